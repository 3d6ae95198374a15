#!/usr/bin/env bash
# make test's runner: every package's tests in three lanes run side by
# side, lint at the head of the third.
#
# Why lanes: most of make test's time is spent waiting — on brokers
# starting (a Kafka JVM), on consumer groups settling, on processes killed
# and restarted — not computing, so lanes side by side shorten the run
# without changing what any test proves. Within a lane, packages still run
# one at a time (-p 1): several suites start brokers and measure, and two
# cores do not carry more. Lint (vet, staticcheck) is all computing and
# done in the first minutes; its lane then takes the packages that compute
# least.
#
# Lane 1 takes e2e's conformance, Kafka-tools, secured-cluster, kill-loop
# and gateway scenarios, instance, processors/offline's many-order runs and
# the analytics conformance suite; lane 2 the suites that start the most
# brokers of their own (internal/testing/kafka, e2e/chaos, topics/broker), e2e's
# remaining scenarios (a second e2e test binary: its own ste build, its own
# brokers) and the tests of the goka and curve25519-voi forks' patches
# (third_party/*/PATCHES.md: nested modules, which ./... does not
# reach; ~3 s); lane 3, after lint, every other package. The split
# balances the lanes' times measured on this machine (docs/benchmarks.md,
# "make test: where the time goes").
#
# Usage: scripts/test.sh OUTPUTDIR — every go test flag is set here; the
# environment (STE_KAFKA, STE_CHDB_BIN, …) comes from the Makefile, and so
# does LINT, lane 3's first command. Each lane's output goes to
# OUTPUTDIR/lane-N.log and is printed whole when the lane ends, so the
# lines of two packages never interleave. Exit status: non-zero when any
# lane failed.
set -uo pipefail
out=${1:?usage: scripts/test.sh OUTPUTDIR}
GO=${GO:-go}
mkdir -p "$out"
mod=$($GO list -m)

# e2e's tests that run in lane 1 (a regular expression for -run; lane 2
# runs the rest with -skip, so every e2e test runs in exactly one lane).
E2E_LANE1='^(TestConformance|TestKafkaTools|TestSecuredCluster|TestDiskTablesKillLoop|TestGateway)$'
lane1_pkgs=("$mod/instance" "$mod/processors/offline" "$mod/analytics/conformance")
lane2_pkgs=("$mod/internal/testing/kafka" "$mod/e2e/chaos" "$mod/topics/broker")

mapfile -t all < <($GO list ./...)
lane3_pkgs=()
for p in "${all[@]}"; do
	case $p in
	"$mod/e2e") ;;
	*) [[ " ${lane1_pkgs[*]} ${lane2_pkgs[*]} " == *" $p "* ]] || lane3_pkgs+=("$p") ;;
	esac
done

flags=(-count=1 -p 1 -timeout 30m -artifacts -outputdir "$out")

lane() { # lane N COMMAND...: runs the commands of lane N, logging to lane-N.log
	local n=$1 rc=0 start=$SECONDS
	local log=$out/lane-$n.log
	shift
	: >"$log"
	while (($#)); do
		local cmd=$1
		shift
		eval "$cmd" >>"$log" 2>&1 || rc=1
	done
	printf '\n===== lane %s: %s, %d s =====\n' "$n" "$([[ $rc == 0 ]] && echo passed || echo FAILED)" $((SECONDS - start)) >>"$log"
	flock "$out/.print" cat "$log" # one lane's log at a time
	return $rc
}

lane 1 \
	'$GO test "${flags[@]}" -run "$E2E_LANE1" "$mod/e2e"' \
	'$GO test "${flags[@]}" "${lane1_pkgs[@]}"' &
p1=$!
lane 2 \
	'$GO test "${flags[@]}" "${lane2_pkgs[@]}"' \
	'$GO test "${flags[@]}" -skip "$E2E_LANE1" "$mod/e2e"' \
	'$GO test "${flags[@]}" -run TestPatch github.com/lovoo/goka github.com/oasisprotocol/curve25519-voi/curve github.com/quickfixgo/quickfix' &
p2=$!
lane 3 \
	'${LINT:-true}' \
	'$GO test "${flags[@]}" "${lane3_pkgs[@]}"' &
p3=$!
rc=0
wait $p1 || rc=1
wait $p2 || rc=1
wait $p3 || rc=1
exit $rc
