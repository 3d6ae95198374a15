#!/usr/bin/env bash
# Installs ClickHouse's official clients for the client conformance suite,
# once, into $STE_CACHE/clients (default ~/.cache/ste/clients): a Python venv
# with clickhouse-connect and pandas, the JDBC driver com.clickhouse:jdbc-v2
# with its dependencies (Maven), and the Node client @clickhouse/client (npm).
# Idempotent: each part is skipped when its marker is there. Prints the
# directory to pass as STE_CLIENTS.
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
cache=${STE_CACHE:-$HOME/.cache/ste}/clients
PY_CONNECT=1.12.0
PANDAS=3.1.1
JDBC=0.10.0
NODE_CLIENT=1.23.1
mkdir -p "$cache"
log=$cache/install.log

py() {
	local d=$cache/py-$PY_CONNECT
	[[ -f $d/.done ]] && return
	rm -rf "$d"
	# A fresh Debian has python3 without its venv module: make's
	# system-packages installs it (make clients runs after it).
	python3 -m venv "$d" >>"$log" 2>&1 ||
		{ echo "install.sh: python3 -m venv failed (see $log): make system-packages installs python3-venv" >&2; exit 1; }
	# --no-compile: pip would compile every module of pandas and numpy to
	# bytecode (a minute of CPU on two cores, beside make test's compiles);
	# Python compiles what the suite imports, once, when it imports it.
	"$d/bin/pip" install -q --no-compile "clickhouse-connect==$PY_CONNECT" "pandas==$PANDAS" >>"$log" 2>&1
	touch "$d/.done"
}

java() {
	local d=$cache/jdbc-$JDBC
	[[ -f $d/.done ]] && return
	rm -rf "$d"
	mkdir -p "$d/work" "$d/lib"
	sed "s/@JDBC@/$JDBC/" "$here/pom.xml" >"$d/work/pom.xml"
	(cd "$d/work" && mvn -B -q -f pom.xml -Dmaven.repo.local="${STE_CACHE:-$HOME/.cache/ste}/m2" \
		dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$d/lib") >>"$log" 2>&1
	touch "$d/.done"
}

node() {
	local d=$cache/node-$NODE_CLIENT
	[[ -f $d/.done ]] && return
	rm -rf "$d"
	mkdir -p "$d"
	(cd "$d" && npm install --silent --no-audit --no-fund "@clickhouse/client@$NODE_CLIENT") >>"$log" 2>&1
	touch "$d/.done"
}

# The three in parallel: they fetch from different registries.
py & p1=$!
java & p2=$!
node & p3=$!
fail=0
for p in $p1 $p2 $p3; do wait "$p" || fail=1; done
if ((fail)); then
	echo "installing the ClickHouse clients failed; see $log" >&2
	exit 1
fi
cat >"$cache/env" <<ENV
STE_CLIENT_PYTHON=$cache/py-$PY_CONNECT/bin/python
STE_CLIENT_JDBC=$cache/jdbc-$JDBC/lib
STE_CLIENT_NODE=$cache/node-$NODE_CLIENT/node_modules
ENV
echo "$cache"
