#!/usr/bin/env bash
# kafka.sh — a throw-away Apache Kafka 4.x broker (KRaft, combined mode) for tests.
#
#   kafka.sh fetch        resolve the broker jars from Maven Central into the cache
#   kafka.sh start DIR    format + start a broker under DIR, print 127.0.0.1:PORT
#   kafka.sh stop DIR     stop the broker started in DIR (SIGTERM, then SIGKILL)
#   kafka.sh kill DIR     kill the broker in DIR with SIGKILL at once (a crash; data kept)
#   kafka.sh restart DIR  start the broker of DIR again on its address, data and config
#   kafka.sh cluster-start DIR N
#                         format + start N KRaft nodes (each broker and controller) under
#                         DIR/node1..N, replication N (at most 3), min.insync.replicas N-1;
#                         prints the bootstrap list; kill/restart/stop take DIR/nodeI
#   kafka.sh cluster-stop DIR
#                         stop every node of the cluster in DIR
#   kafka.sh fetch-tools  resolve Kafka's command-line tools (kafka-tools) likewise
#   kafka.sh tool NAME ARG...
#                         run one of Kafka's tools, as bin/NAME.sh of the Kafka
#                         distribution would: kafka-topics, kafka-consumer-groups,
#                         kafka-configs, kafka-console-consumer, kafka-console-producer,
#                         kafka-get-offsets (fetches the tools first if needed)
#
# Needs only bash, coreutils, Java >= 17 and Maven. Everything else is fetched.
#
# Environment:
#   STE_CACHE              cache root (default $HOME/.cache/ste); the broker lives
#                          in $STE_CACHE/kafka/<version>, the tools in
#                          $STE_CACHE/kafka/tools-<version>, Maven's repo in $STE_CACHE/kafka/m2
#   STE_KAFKA_VERSION      org.apache.kafka:kafka_2.13 version (default below)
#   KAFKA_HEAP_OPTS        JVM heap flags (default -Xms128m -Xmx512m)
#   KAFKA_JVM_OPTS         extra JVM flags appended to the defaults
#   KAFKA_START_TIMEOUT    seconds to wait for the broker to answer (default 60)
#   KAFKA_STOP_TIMEOUT     seconds between SIGTERM and SIGKILL (default 20)
#   KAFKA_WATCH_PID        if set, a watchdog stops the broker once this pid is gone
#                          (tests pass their own pid so a crashed test leaves no JVM)
#   KAFKA_TOOL_JVM_OPTS    extra JVM flags for `tool` (default heap -Xmx256m)
#   KAFKA_SASL_SSL_KEYSTORE  a PEM file with the broker's private key (PKCS#8) and
#                          certificate chain: adds a SASL_SSL listener on another
#                          port, written to DIR/bootstrap_sasl_ssl
#   KAFKA_SASL_USERS       "user:password ..." accepted on that listener with PLAIN,
#                          SCRAM-SHA-256 and SCRAM-SHA-512 (letters, digits, _ . - only)
#   KAFKA_AUTHORIZER       1: with the SASL_SSL listener, enforce ACLs (StandardAuthorizer,
#                          deny by default; the plaintext listener is a super user)
#   JAVA_HOME              java to use (default: java on PATH)
set -Eeuo pipefail

readonly DEFAULT_KAFKA_VERSION=4.4.0
# log4j2 for Kafka versions whose pom brings none (4.0.x); 4.1+ bring their own.
readonly FALLBACK_LOG4J_VERSION=2.24.3
readonly PROG=kafka.sh

die() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 1
}
# A safety net: any unexpected failure is reported as one line, too.
# shellcheck disable=SC2154 # rc is assigned inside the trap
trap 'rc=$?; printf "%s: unexpected failure (exit %d) at line %d: %s\n" "$PROG" "$rc" "$LINENO" "$BASH_COMMAND" >&2; exit "$rc"' ERR

usage() {
	die "usage: $PROG fetch | start DIR | stop DIR | kill DIR | restart DIR | cluster-start DIR N | cluster-stop DIR | fetch-tools | tool NAME ARG..."
}

KAFKA_VERSION=${STE_KAFKA_VERSION:-$DEFAULT_KAFKA_VERSION}
CACHE_ROOT=${STE_CACHE:-${HOME:-/tmp}/.cache/ste}/kafka
DIST=$CACHE_ROOT/$KAFKA_VERSION
MARKER=$DIST/.complete
TOOLS=$CACHE_ROOT/tools-$KAFKA_VERSION

if [[ -n ${JAVA_HOME:-} && -x ${JAVA_HOME}/bin/java ]]; then
	JAVA=$JAVA_HOME/bin/java
else
	JAVA=java
fi

need_java() {
	command -v "$JAVA" >/dev/null 2>&1 || die "java not found (Kafka 4 needs Java >= 17)"
	local spec
	spec=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n1) || true
	[[ -n $spec ]] || die "cannot determine the Java version of $JAVA"
	# "1.8" style versions are < 17 as well.
	if [[ $spec == 1.* ]] || ((${spec%%.*} < 17)); then
		die "Java $spec found, Kafka 4 needs Java >= 17 (set JAVA_HOME)"
	fi
}


# ---------------------------------------------------------------- fetch

write_pom() { # write_pom FILE ARTIFACT... (group:artifact:version)
	local file=$1 gav g a v
	shift
	{
		printf '<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
		printf '  <modelVersion>4.0.0</modelVersion>\n'
		printf '  <groupId>ste.local</groupId><artifactId>kafka-broker-fetch</artifactId>\n'
		printf '  <version>1</version><packaging>pom</packaging>\n'
		printf '  <dependencies>\n'
		for gav in "$@"; do
			IFS=: read -r g a v <<<"$gav"
			printf '    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n' "$g" "$a" "$v"
		done
		printf '  </dependencies>\n</project>\n'
	} >"$file"
}

mvn_copy() { # mvn_copy WORKDIR OUTDIR LOG GAV...: resolve GAVs + runtime deps into OUTDIR
	local work=$1 out=$2 log=$3
	shift 3
	write_pom "$work/pom.xml" "$@"
	if ! (cd -- "$work" && mvn -B -q -f pom.xml \
		-Dmaven.repo.local="$CACHE_ROOT/m2" \
		dependency:copy-dependencies \
		-DincludeScope=runtime -DoutputDirectory="$out") >>"$log" 2>&1; then
		die "fetch of $* failed (maven); see $log"
	fi
}

# add_log4j_binding WORKDIR LIBS LOG: Kafka logs through slf4j; its poms bring
# log4j2 but no binding. Add the binding that matches the log4j2 and slf4j
# versions Kafka came with.
add_log4j_binding() {
	local work=$1 libs=$2 log=$3 v= binding jar
	for jar in "$libs"/log4j-core-*.jar; do
		[[ -f $jar ]] || continue
		v=${jar##*/log4j-core-}
		v=${v%.jar}
	done
	if compgen -G "$libs/slf4j-api-1.*.jar" >/dev/null; then
		binding=log4j-slf4j-impl
	else
		binding=log4j-slf4j2-impl
	fi
	if [[ -n $v ]]; then
		mvn_copy "$work" "$libs" "$log" "org.apache.logging.log4j:$binding:$v"
	else # Kafka 4.0.x: no log4j2 in the pom at all
		v=$FALLBACK_LOG4J_VERSION
		mvn_copy "$work" "$libs" "$log" "org.apache.logging.log4j:$binding:$v" "org.apache.logging.log4j:log4j-core:$v"
	fi
}

write_log4j2() { # the broker logs to ${kafka.logs.dir}/server.log, nothing to the console
	cat >"$1" <<'EOF'
# Written by kafka.sh: broker logs go to ${sys:kafka.logs.dir}/server.log.
status = warn
name = ste-kafka
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = ${sys:kafka.logs.dir}/server.log
appender.file.filePattern = ${sys:kafka.logs.dir}/server.log.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 50MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 2
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.apache.name = org.apache.kafka
logger.apache.level = INFO
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.authorizer.name = kafka.authorizer.logger
logger.authorizer.level = WARN
EOF
}

# fetch_into DEST GAV JAR FINISH: resolve GAV, its runtime dependencies and a
# log4j2 binding into DEST/libs, check that DEST/libs/JAR came, let FINISH TMP
# add its own checks and files, then move the result to DEST in one step.
# Idempotent: DEST/.complete marks a finished fetch.
fetch_into() {
	local dest=$1 gav=$2 jar=$3 finish=$4
	[[ -f $dest/.complete ]] && return 0
	command -v mvn >/dev/null 2>&1 || die "mvn not found (needed once to fetch $gav)"
	need_java
	mkdir -p -- "$CACHE_ROOT" || die "cannot create cache directory $CACHE_ROOT"

	# One fetch at a time per cache (several test binaries may start together).
	exec 8>"$CACHE_ROOT/.lock"
	if command -v flock >/dev/null 2>&1; then
		flock -w 900 8 || die "timed out waiting for the fetch lock $CACHE_ROOT/.lock"
	fi
	[[ -f $dest/.complete ]] && return 0

	local tmp log libs
	tmp=$(mktemp -d "$CACHE_ROOT/.fetch-${dest##*/}.XXXXXX") || die "mktemp failed in $CACHE_ROOT"
	FETCH_TMP=$tmp
	trap 'rm -rf -- "${FETCH_TMP:-}"' EXIT
	log=$CACHE_ROOT/fetch-${dest##*/}.log
	: >"$log"
	libs=$tmp/libs
	mkdir -p "$libs" "$tmp/work"

	mvn_copy "$tmp/work" "$libs" "$log" "$gav"
	add_log4j_binding "$tmp/work" "$libs" "$log"
	[[ -f $libs/$jar ]] || die "$jar missing after fetch; see $log"
	"$finish" "$tmp"
	rm -rf "$tmp/work"
	printf '%s\nfetched %s\n' "$gav" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$tmp/.complete"

	rm -rf -- "$dest"
	mv -- "$tmp" "$dest" || die "cannot move $tmp to $dest"
	FETCH_TMP=
	exec 8>&-
}

finish_broker() { # kafka.Kafka is the broker, kafka.tools.StorageTool formats storage (kafka-storage.sh).
	if command -v unzip >/dev/null 2>&1; then
		unzip -l "$1/libs/kafka_2.13-$KAFKA_VERSION.jar" kafka/tools/StorageTool.class >/dev/null 2>&1 ||
			die "kafka.tools.StorageTool not found in kafka_2.13-$KAFKA_VERSION.jar"
	fi
	write_log4j2 "$1/log4j2.properties"
}

do_fetch() {
	fetch_into "$DIST" "org.apache.kafka:kafka_2.13:$KAFKA_VERSION" "kafka_2.13-$KAFKA_VERSION.jar" finish_broker
}

# ---------------------------------------------------------------- tools

# The classes Kafka's bin/NAME.sh scripts run (as of Kafka 4.4, all in kafka-tools;
# kafka-configs ran kafka.admin.ConfigCommand of the broker jar in older releases).
declare -A TOOL_CLASS=(
	[kafka-topics]=org.apache.kafka.tools.TopicCommand
	[kafka-consumer-groups]=org.apache.kafka.tools.consumer.group.ConsumerGroupCommand
	[kafka-configs]=org.apache.kafka.tools.ConfigCommand
	[kafka-console-consumer]=org.apache.kafka.tools.consumer.ConsoleConsumer
	[kafka-console-producer]=org.apache.kafka.tools.ConsoleProducer
	[kafka-get-offsets]=org.apache.kafka.tools.GetOffsetShell
)

finish_tools() {
	if command -v unzip >/dev/null 2>&1; then
		unzip -l "$1/libs/kafka-tools-$KAFKA_VERSION.jar" org/apache/kafka/tools/TopicCommand.class >/dev/null 2>&1 ||
			die "org.apache.kafka.tools.TopicCommand not found in kafka-tools-$KAFKA_VERSION.jar"
	fi
	# Like Kafka's config/tools-log4j2.yaml: warnings and errors to stderr.
	cat >"$1/log4j2.properties" <<'EOF'
# Written by kafka.sh: Kafka's tools log warnings and errors to stderr.
status = warn
name = ste-kafka-tools
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stderr.ref = stderr
EOF
}

do_fetch_tools() {
	fetch_into "$TOOLS" "org.apache.kafka:kafka-tools:$KAFKA_VERSION" "kafka-tools-$KAFKA_VERSION.jar" finish_tools
}

do_tool() {
	[[ $# -ge 1 ]] || usage
	local name=$1 class
	shift
	class=${TOOL_CLASS[$name]:-}
	[[ -n $class ]] || die "unknown tool $name (known: ${!TOOL_CLASS[*]})"
	do_fetch_tools
	# shellcheck disable=SC2206
	local extra=(${KAFKA_TOOL_JVM_OPTS:-})
	# A tool is a short-lived client: a small heap, the C1 compiler only and
	# no perf data file start it sooner.
	exec "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData \
		-Djava.awt.headless=true -Dlog4j2.configurationFile="$TOOLS/log4j2.properties" \
		-cp "$TOOLS/libs/*" "${extra[@]}" "$class" "$@"
}

# ---------------------------------------------------------------- start

port_in_use() { # port_in_use PORT: true if something listens on 127.0.0.1:PORT
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pick_port() { # pick_port [EXCLUDE]: sets PORT to a free port below the ephemeral range
	local p i
	for ((i = 0; i < 200; i++)); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
		[[ $p == "${1:-}" ]] && continue
		if command -v ss >/dev/null 2>&1 && [[ -n $(ss -Htan "sport = :$p" 2>/dev/null) ]]; then
			continue
		fi
		port_in_use "$p" && continue
		PORT=$p
		return 0
	done
	die "no free loopback port found"
}

# metadata_ok PORT: send a Metadata v4 request (all topics) and succeed when the
# answer lists at least one broker. v4 is the oldest Metadata version Kafka 4 keeps.
metadata_ok() {
	local port=$1 out
	out=$(
		exec 2>/dev/null
		exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
		# size=18 | api_key=3 api_version=4 correlation_id=7 client_id="ste" | topics=null allow_auto=false
		printf '\x00\x00\x00\x12\x00\x03\x00\x04\x00\x00\x00\x07\x00\x03ste\xff\xff\xff\xff\x00' >&3
		timeout 2 head -c 16 <&3 | od -An -v -tx1 | tr -d ' \n'
	) || return 1
	# bytes 4-7 correlation id, 8-11 throttle time, 12-15 number of brokers
	[[ ${#out} == 32 && ${out:8:8} == 00000007 ]] || return 1
	((16#${out:24:8} >= 1 && 16#${out:24:8} < 1000))
}

# sasl_users_ok: KAFKA_SASL_USERS is "user:password ..." in the characters
# JAAS and the storage tool's --add-scram take without quoting.
sasl_users_ok() {
	local u
	[[ -n ${KAFKA_SASL_USERS:-} ]] || return 1
	for u in $KAFKA_SASL_USERS; do
		[[ $u =~ ^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+$ ]] || return 1
	done
}

write_server_properties() { # DIR PORT CPORT [SPORT]
	local dir=$1 port=$2 cport=$3 sport=${4:-} listeners advertised protocols u plain_users=
	listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
	advertised=PLAINTEXT://127.0.0.1:$port
	protocols=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
	if [[ -n $sport ]]; then
		listeners+=,SASL_SSL://127.0.0.1:$sport
		advertised+=,SASL_SSL://127.0.0.1:$sport
		protocols+=,SASL_SSL:SASL_SSL
		for u in $KAFKA_SASL_USERS; do
			plain_users+=" user_${u%%:*}=\"${u#*:}\""
		done
	fi
	cat >"$dir/server.properties" <<EOF
# Written by kafka.sh: KRaft (combined broker+controller) for tests.
process.roles=broker,controller
node.id=${NODE_ID:-1}
controller.quorum.voters=${VOTERS:-1@127.0.0.1:$cport}
listeners=$listeners
advertised.listeners=$advertised
listener.security.protocol.map=$protocols
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
log.dirs=$dir/data

num.partitions=8
default.replication.factor=${RF:-1}
min.insync.replicas=${MIN_ISR:-1}
auto.create.topics.enable=false
delete.topic.enable=true
offsets.topic.replication.factor=${RF:-1}
offsets.topic.num.partitions=8
transaction.state.log.replication.factor=${RF:-1}
transaction.state.log.min.isr=${MIN_ISR:-1}
transaction.state.log.num.partitions=4
share.coordinator.state.topic.replication.factor=${RF:-1}
share.coordinator.state.topic.min.isr=${MIN_ISR:-1}
group.initial.rebalance.delay.ms=0

# Small and quick on a 2-core machine.
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
background.threads=4
log.cleaner.threads=1
log.cleaner.dedupe.buffer.size=16777216
log.cleaner.backoff.ms=1000
log.retention.check.interval.ms=60000
controller.quorum.election.timeout.ms=500
controller.quorum.fetch.timeout.ms=1000

# Failure detection (docs/operations.md, "Broker settings"): a node whose
# heartbeats stop for broker.session.timeout.ms is fenced and its
# leaderships move to the in-sync replicas; that time is how long a crashed
# leader's partitions stand still. Kafka's default is 9 s (heartbeats every
# 2 s); 6 s, heartbeats every 500 ms, keeps a leader loss within 10 s, at
# the price of fencing a node paused for 6 s (a long GC pause, a stalled
# disk), which then rejoins and takes its partitions back.
broker.heartbeat.interval.ms=500
broker.session.timeout.ms=6000
EOF
	if [[ -n $sport ]]; then
		cat >>"$dir/server.properties" <<EOF

# SASL_SSL for clients (KAFKA_SASL_SSL_KEYSTORE, KAFKA_SASL_USERS).
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_ssl.ssl.keystore.type=PEM
listener.name.sasl_ssl.ssl.keystore.location=$KAFKA_SASL_SSL_KEYSTORE
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required$plain_users;
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
EOF
		if [[ ${KAFKA_AUTHORIZER:-} == 1 ]]; then
			cat >>"$dir/server.properties" <<EOF

# KAFKA_AUTHORIZER=1: ACLs enforced, deny by default. The plaintext and
# controller listeners (ANONYMOUS) are the test's administrator.
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:ANONYMOUS
EOF
		fi
	fi
}

java_opts() { # the JVM flags for broker and storage tool
	local dir=$1
	# shellcheck disable=SC2206
	local heap=(${KAFKA_HEAP_OPTS:--Xms128m -Xmx512m}) extra=(${KAFKA_JVM_OPTS:-})
	JOPTS=(
		"${heap[@]}"
		-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData
		-Djava.awt.headless=true
		-Dlog4j2.configurationFile="$DIST/log4j2.properties"
		# log4j's own shutdown hook stopped the logging while Kafka's ran:
		# a broker told to stop logged none of its controlled shutdown.
		-Dlog4j2.shutdownHookEnabled=false
		-Dkafka.logs.dir="$dir/logs"
		-cp "$DIST/libs/*"
		"${extra[@]}"
	)
}

start_once() { # start_once DIR: one attempt; sets PORT (and SPORT), or RETRY=1 on a port clash
	local dir=$1 port cport sport= cluster_id u scram=()
	RETRY=0
	pick_port
	port=$PORT
	pick_port "$port"
	cport=$PORT
	if [[ -n ${KAFKA_SASL_SSL_KEYSTORE:-} ]]; then
		pick_port "$cport"
		sport=$PORT
		if [[ $sport == "$port" ]]; then
			RETRY=1
			return 0
		fi
		for u in $KAFKA_SASL_USERS; do
			scram+=(--add-scram "SCRAM-SHA-256=[name=${u%%:*},password=${u#*:}]" --add-scram "SCRAM-SHA-512=[name=${u%%:*},password=${u#*:}]")
		done
	fi
	write_server_properties "$dir" "$port" "$cport" "$sport"
	rm -rf -- "$dir/data" "$dir/logs"
	mkdir -p -- "$dir/data" "$dir/logs"

	java_opts "$dir"
	# Kafka's Uuid is 16 random bytes in URL-safe base64 without padding; like
	# Kafka's own Uuid.randomUuid, avoid a leading '-' (read as an option).
	cluster_id=-
	while [[ $cluster_id == -* ]]; do
		cluster_id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
	done
	if ! "$JAVA" "${JOPTS[@]}" kafka.tools.StorageTool format \
		-t "$cluster_id" -c "$dir/server.properties" "${scram[@]}" >"$dir/logs/format.log" 2>&1; then
		die "formatting storage failed; see $dir/logs/format.log"
	fi

	launch "$dir" "$port"
	SPORT=$sport
}

launch() { # launch DIR PORT: start the broker of DIR, wait until it answers; sets PORT, or RETRY=1 on a port clash
	local dir=$1 port=$2 pid deadline
	java_opts "$dir"
	# setsid: the broker must not die with the caller's terminal or process group,
	# and must not hold the caller's stdout/stderr open.
	setsid "$JAVA" "${JOPTS[@]}" -Dste.kafka.dir="$dir" kafka.Kafka "$dir/server.properties" \
		</dev/null >>"$dir/logs/kafka.out" 2>&1 &
	pid=$!
	echo "$pid" >"$dir/kafka.pid"

	if [[ -n ${KAFKA_WATCH_PID:-} ]]; then
		# Stops the broker once the watched process (e.g. a test binary) is gone.
		# shellcheck disable=SC2016 # expanded by the inner bash
		setsid bash -c '
			while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done
			if kill -0 "$2" 2>/dev/null; then
				kill -TERM "$2" 2>/dev/null
				for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$2" 2>/dev/null || exit 0; sleep 1; done
				kill -KILL "$2" 2>/dev/null
			fi' kafka-watchdog "$KAFKA_WATCH_PID" "$pid" </dev/null >/dev/null 2>&1 &
		echo "$!" >"$dir/watchdog.pid"
	fi

	deadline=$((SECONDS + ${KAFKA_START_TIMEOUT:-60}))
	while ((SECONDS < deadline)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f -- "$dir/kafka.pid"
			if grep -qs 'Address already in use' "$dir/logs/kafka.out" "$dir/logs/server.log"; then
				RETRY=1
				return 0
			fi
			die "broker exited during startup; see $dir/logs/server.log and $dir/logs/kafka.out"
		fi
		if metadata_ok "$port"; then
			PORT=$port
			return 0
		fi
		sleep 0.2
	done
	stop_pid "$pid"
	rm -f -- "$dir/kafka.pid"
	die "broker did not answer on 127.0.0.1:$port within ${KAFKA_START_TIMEOUT:-60}s; see $dir/logs/server.log"
}

do_start() {
	[[ $# == 1 ]] || usage
	local dir attempt
	mkdir -p -- "$1" 2>/dev/null || die "cannot create directory $1"
	dir=$(cd -- "$1" && pwd -P)
	if [[ -f $dir/kafka.pid ]] && kill -0 "$(<"$dir/kafka.pid")" 2>/dev/null; then
		die "a broker is already running in $dir (pid $(<"$dir/kafka.pid"))"
	fi
	[[ -f $MARKER ]] || die "Kafka $KAFKA_VERSION is not fetched; run: $PROG fetch"
	need_java
	if [[ -n ${KAFKA_SASL_SSL_KEYSTORE:-} ]]; then
		[[ -r $KAFKA_SASL_SSL_KEYSTORE ]] || die "KAFKA_SASL_SSL_KEYSTORE $KAFKA_SASL_SSL_KEYSTORE is not readable"
		sasl_users_ok || die "KAFKA_SASL_USERS must be \"user:password ...\" (letters, digits, _ . -) with KAFKA_SASL_SSL_KEYSTORE"
	fi
	rm -f -- "$dir/bootstrap_sasl_ssl"
	for attempt in 1 2 3; do
		start_once "$dir"
		if ((RETRY == 0)); then
			[[ -z ${SPORT:-} ]] || echo "127.0.0.1:$SPORT" >"$dir/bootstrap_sasl_ssl"
			echo "127.0.0.1:$PORT" >"$dir/bootstrap"
			echo "127.0.0.1:$PORT"
			return 0
		fi
	done
	die "could not bind a free loopback port after $attempt attempts; see $dir/logs/kafka.out"
}

# ---------------------------------------------------------------- stop

stop_pid() { # stop_pid PID: SIGTERM, wait up to KAFKA_STOP_TIMEOUT, then SIGKILL
	local pid=$1 deadline
	kill -TERM "$pid" 2>/dev/null || return 0
	deadline=$((SECONDS + ${KAFKA_STOP_TIMEOUT:-20}))
	while kill -0 "$pid" 2>/dev/null; do
		if ((SECONDS >= deadline)); then
			kill -KILL "$pid" 2>/dev/null || true
			sleep 0.2
			break
		fi
		sleep 0.1
	done
}

# broker_pid DIR: sets PID to the broker running in DIR, or "" when none is.
broker_pid() {
	local dir=$1
	PID=
	[[ -f $dir/kafka.pid ]] || return 0
	PID=$(cat "$dir/kafka.pid")
	[[ $PID =~ ^[0-9]+$ ]] || die "bad pid file $dir/kafka.pid"
	# Only signal the process if it is still our broker (pids get reused).
	if [[ -r /proc/$PID/cmdline ]] && ! grep -qa 'kafka\.Kafka' "/proc/$PID/cmdline"; then
		rm -f -- "$dir/kafka.pid"
		PID=
	fi
}

do_kill() { # a crash: SIGKILL, no shutdown; data, logs and config stay for restart
	[[ $# == 1 ]] || usage
	local dir=$1
	[[ -d $dir ]] || die "no such directory: $dir"
	broker_pid "$dir"
	[[ -n $PID ]] || die "no broker running in $dir"
	kill -KILL "$PID" 2>/dev/null || true
	while kill -0 "$PID" 2>/dev/null; do sleep 0.05; done
	rm -f -- "$dir/kafka.pid"
}

do_restart() { # the broker of DIR again: same address, data and config, no format
	[[ $# == 1 ]] || usage
	local dir port
	dir=$(cd -- "$1" 2>/dev/null && pwd -P) || die "no such directory: $1"
	[[ -f $dir/server.properties && -f $dir/bootstrap ]] || die "$dir holds no broker started by $PROG start"
	broker_pid "$dir"
	[[ -z $PID ]] || die "a broker is already running in $dir (pid $PID)"
	[[ -f $MARKER ]] || die "Kafka $KAFKA_VERSION is not fetched; run: $PROG fetch"
	need_java
	port=$(<"$dir/bootstrap")
	port=${port##*:}
	if [[ -f $dir/watchdog.pid ]]; then
		kill "$(cat "$dir/watchdog.pid")" 2>/dev/null || true
	fi
	RETRY=0
	launch "$dir" "$port"
	((RETRY == 0)) || die "127.0.0.1:$port is taken by another process; see $dir/logs/kafka.out"
	echo "127.0.0.1:$port"
}

do_stop() {
	[[ $# == 1 ]] || usage
	local dir=$1 pid
	[[ -d $dir ]] || die "no such directory: $dir"
	if [[ -f $dir/watchdog.pid ]]; then
		kill "$(cat "$dir/watchdog.pid")" 2>/dev/null || true
		rm -f -- "$dir/watchdog.pid"
	fi
	[[ -f $dir/kafka.pid ]] || return 0 # nothing running: stopping is idempotent
	pid=$(cat "$dir/kafka.pid")
	[[ $pid =~ ^[0-9]+$ ]] || die "bad pid file $dir/kafka.pid"
	# Only signal the process if it is still our broker (pids get reused).
	if [[ -r /proc/$pid/cmdline ]] && ! grep -qa 'kafka\.Kafka' "/proc/$pid/cmdline"; then
		rm -f -- "$dir/kafka.pid"
		return 0
	fi
	stop_pid "$pid"
	kill -0 "$pid" 2>/dev/null && die "broker pid $pid did not stop"
	rm -f -- "$dir/kafka.pid"
}

# ---------------------------------------------------------------- cluster

do_cluster_start() { # DIR N: N combined nodes, one quorum, one cluster id
	[[ $# == 2 && $2 =~ ^[1-9]$ ]] || usage
	local n=$2 dir i used=" " voters= cluster_id boot= pids=() failed=0
	mkdir -p -- "$1" 2>/dev/null || die "cannot create directory $1"
	dir=$(cd -- "$1" && pwd -P)
	[[ -f $MARKER ]] || die "Kafka $KAFKA_VERSION is not fetched; run: $PROG fetch"
	need_java
	local -a ports cports
	for ((i = 1; i <= n; i++)); do
		[[ ! -f $dir/node$i/kafka.pid ]] || ! kill -0 "$(<"$dir/node$i/kafka.pid")" 2>/dev/null ||
			die "a broker is already running in $dir/node$i"
		for p in port cport; do
			while :; do
				pick_port
				[[ $used == *" $PORT "* ]] || break
			done
			used+="$PORT "
			if [[ $p == port ]]; then ports[i]=$PORT; else cports[i]=$PORT; fi
		done
		voters+="${voters:+,}$i@127.0.0.1:${cports[i]}"
		boot+="${boot:+,}127.0.0.1:${ports[i]}"
	done
	cluster_id=-
	while [[ $cluster_id == -* ]]; do
		cluster_id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
	done
	RF=$((n < 3 ? n : 3))
	MIN_ISR=$((RF > 1 ? RF - 1 : 1))
	VOTERS=$voters
	for ((i = 1; i <= n; i++)); do
		local nd=$dir/node$i
		mkdir -p -- "$nd"
		NODE_ID=$i write_server_properties "$nd" "${ports[i]}" "${cports[i]}"
		rm -rf -- "$nd/data" "$nd/logs"
		mkdir -p -- "$nd/data" "$nd/logs"
		java_opts "$nd"
		"$JAVA" "${JOPTS[@]}" kafka.tools.StorageTool format -t "$cluster_id" -c "$nd/server.properties" \
			>"$nd/logs/format.log" 2>&1 || die "formatting storage of node $i failed; see $nd/logs/format.log"
		echo "127.0.0.1:${ports[i]}" >"$nd/bootstrap"
	done
	# A node answers Metadata only once the quorum has a leader: start them
	# all, then wait for each.
	for ((i = 1; i <= n; i++)); do
		(RETRY=0; launch "$dir/node$i" "${ports[i]}"; ((RETRY == 0))) &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || failed=1
	done
	if ((failed)); then
		do_cluster_stop "$dir" || true
		die "a node of the cluster did not start; see $dir/node*/logs/server.log"
	fi
	echo "$boot" >"$dir/bootstrap"
	echo "$boot"
}

do_cluster_stop() {
	[[ $# == 1 ]] || usage
	local nd rc=0
	[[ -d $1 ]] || die "no such directory: $1"
	for nd in "$1"/node*; do
		[[ -d $nd ]] || continue
		(do_stop "$nd") || rc=1 # every node is stopped, even when one would not
	done
	return "$rc"
}

# ---------------------------------------------------------------- main

[[ $# -ge 1 ]] || usage
cmd=$1
shift
case $cmd in
fetch)
	[[ $# == 0 ]] || usage
	do_fetch
	;;
start) do_start "$@" ;;
stop) do_stop "$@" ;;
kill) do_kill "$@" ;;
restart) do_restart "$@" ;;
cluster-start) do_cluster_start "$@" ;;
cluster-stop) do_cluster_stop "$@" ;;
fetch-tools)
	[[ $# == 0 ]] || usage
	do_fetch_tools
	;;
tool) do_tool "$@" ;;
-h | --help | help)
	sed -n '2,/^set -/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' || true
	;;
*) usage ;;
esac
