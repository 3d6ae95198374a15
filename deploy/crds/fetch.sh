#!/usr/bin/env bash
# fetch.sh — idempotent, cached CustomResourceDefinitions of the custom
# resources STE ships, as their projects release them, for the schema checks
# of go test ./deploy (deploy/schemas_test.go):
#
#   KEDA     ScaledObject, TriggerAuthentication: config/crd/bases/ of the
#            released Go module github.com/kedacore/keda/v2 (the module proxy
#            serves the tagged release; the CRDs in it are the ones the
#            release's keda-*-crds.yaml is assembled from).
#   Prometheus Operator  ServiceMonitor, PrometheusRule: the CRDs under
#            example/prometheus-operator-crd/ of the released Go module
#            github.com/prometheus-operator/prometheus-operator (those the
#            release's bundle.yaml holds).
#   Strimzi  KafkaTopic, KafkaUser: Strimzi releases its CRDs on GitHub only;
#            Maven Central has the two artifacts they are made from, the
#            api jar (io.strimzi:api) and Strimzi's generator
#            (io.strimzi:crd-generator). The CRDs are generated here as
#            Strimzi's release build does, with the generator arguments read
#            from the release's own pom (META-INF/maven/io.strimzi/api/pom.xml,
#            the execution that generates KafkaTopic's).
#
# Output: the directory on stdout (nothing else), holding
#   keda-<v>/keda.sh_scaledobjects.yaml, keda-<v>/keda.sh_triggerauthentications.yaml,
#   prometheus-operator-<v>/monitoring.coreos.com_{servicemonitors,prometheusrules}.yaml,
#   strimzi-<v>/043-Crd-kafkatopic.yaml, strimzi-<v>/044-Crd-kafkauser.yaml
# Errors: one line on stderr, non-zero exit. Needs go, java and mvn.
#
# Environment:
#   STE_CACHE        cache root (default $HOME/.cache/ste); output in $STE_CACHE/crds
#   KEDA_VERSION     default below (the chart's ScaledObject is keda.sh/v1alpha1)
#   PROMOP_VERSION   the Prometheus Operator's, default below
#   STRIMZI_VERSION  default below: the newest release with both artifacts on
#                    Maven Central that serves kafka.strimzi.io/v1beta2
set -euo pipefail

KEDA_VERSION="${KEDA_VERSION:-v2.21.0}"
STRIMZI_VERSION="${STRIMZI_VERSION:-0.45.0}"
PROMOP_VERSION="${PROMOP_VERSION:-v0.85.0}"
CACHE_ROOT="${STE_CACHE:-${HOME:-/tmp}/.cache/ste}"
OUT="$CACHE_ROOT/crds"
STRIMZI_DIR="$OUT/strimzi-$STRIMZI_VERSION"

die() { printf 'crds/fetch.sh: %s\n' "$*" >&2; exit 1; }

# gomod NAME MODULE VERSION DIR FILE... copies the FILEs under DIR of the
# released Go module MODULE@VERSION into $OUT/NAME-VERSION.
gomod() {
	local name=$1 mod=$2 version=$3 sub=$4 dest="$OUT/$1-$3"
	shift 4
	[ -f "$dest/.complete" ] && return 0
	command -v go >/dev/null || die "go not found"
	local dir
	dir="$(go mod download -json "$mod@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')" ||
		die "go mod download $mod@$version failed"
	mkdir -p "$dest"
	for f in "$@"; do
		[ -f "$dir/$sub/$f" ] || die "$mod@$version has no $sub/$f"
		cp "$dir/$sub/$f" "$dest/$f"
	done
	touch "$dest/.complete"
}

strimzi() {
	[ -f "$STRIMZI_DIR/.complete" ] && return 0
	command -v java >/dev/null || die "java not found"
	command -v mvn >/dev/null || die "mvn not found"
	local work
	work="$(mktemp -d)"
	trap 'rm -rf "$work"' RETURN
	cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>ste</groupId><artifactId>strimzi-crds</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>io.strimzi</groupId><artifactId>api</artifactId><version>$STRIMZI_VERSION</version></dependency>
    <dependency><groupId>io.strimzi</groupId><artifactId>crd-generator</artifactId><version>$STRIMZI_VERSION</version></dependency>
  </dependencies>
</project>
EOF
	(cd "$work" && mvn -q -B -Dmaven.repo.local="$OUT/m2" dependency:build-classpath -Dmdep.outputFile=cp.txt >mvn.log 2>&1) ||
		die "resolving io.strimzi:api and io.strimzi:crd-generator $STRIMZI_VERSION failed: $(tail -n 3 "$work/mvn.log" | tr '\n' ' ')"
	local cp api
	cp="$(cat "$work/cp.txt")"
	api="$(tr ':' '\n' <"$work/cp.txt" | grep "/io/strimzi/api/$STRIMZI_VERSION/api-$STRIMZI_VERSION.jar$")" || die "no api jar on the classpath"
	# The generator's arguments of the release: the <argument>s of its
	# execution, less -classpath and its value, each output file moved here.
	local args=()
	# The pom inside the jar: unzip, or the JDK's jar tool where unzip is
	# not installed (Maven needs a JDK).
	local pom=META-INF/maven/io.strimzi/api/pom.xml
	if command -v unzip >/dev/null; then
		unzip -p "$api" "$pom" >"$work/api.pom"
	else
		(cd "$work" && jar xf "$api" "$pom" && mv "$pom" api.pom)
	fi || die "no $pom in $api"
	mapfile -t args < <(cat "$work/api.pom" |
		awk '/<execution>/{e=""} {e=e $0 "\n"} /<\/execution>/&&e~/topic\.KafkaTopic=/{printf "%s", e; exit}' |
		grep -o '<argument>[^<]*</argument>' | sed 's/<[/]*argument>//g' | sed '1,2d')
	[ "${args[0]:-}" = io.strimzi.crdgenerator.CrdGenerator ] || die "the api $STRIMZI_VERSION pom has no CrdGenerator execution for KafkaTopic and KafkaUser"
	local i
	for i in "${!args[@]}"; do
		case "${args[$i]}" in
		*'=${project.basedir}'*) args[i]="${args[$i]%%=*}=$work/out/${args[$i]##*\}}" ;;
		esac
	done
	mkdir -p "$work/out"
	java -cp "$cp" "${args[@]}" >"$work/gen.log" 2>&1 || die "CrdGenerator failed: $(tail -n 3 "$work/gen.log" | tr '\n' ' ')"
	mkdir -p "$STRIMZI_DIR"
	for f in 043-Crd-kafkatopic.yaml 044-Crd-kafkauser.yaml; do
		[ -s "$work/out/$f" ] || die "CrdGenerator wrote no $f"
		cp "$work/out/$f" "$STRIMZI_DIR/$f"
	done
	touch "$STRIMZI_DIR/.complete"
}

gomod keda github.com/kedacore/keda/v2 "$KEDA_VERSION" config/crd/bases \
	keda.sh_scaledobjects.yaml keda.sh_triggerauthentications.yaml &
kpid=$!
gomod prometheus-operator github.com/prometheus-operator/prometheus-operator "$PROMOP_VERSION" example/prometheus-operator-crd \
	monitoring.coreos.com_servicemonitors.yaml monitoring.coreos.com_prometheusrules.yaml &
ppid=$!
strimzi
wait "$kpid" || exit 1
wait "$ppid" || exit 1
printf '%s\n' "$OUT"
