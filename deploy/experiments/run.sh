#!/usr/bin/env bash
# Reproduces the experiments of docs/benchmarks.md on this machine: every
# figure there comes from a `ste bench --json` result written under
# docs/benchmarks/runs/ by this script, and every plot from `ste plot`.
#
#   deploy/experiments/run.sh [throughput|degradation|littles|instances|scenarios|plots|all]
#
# The 7 M-message run keeps ~50 GB of broker log on disk (the embedded
# broker's data directory under $STE_HOME/bench): check `df -h` first; the
# script refuses to start it with less than 60 GB free, and removes the log
# afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
STE=${STE:-bin/ste}
OUT=${OUT:-docs/benchmarks}
RUNS="$OUT/runs"
mkdir -p "$RUNS"
[ -x "$STE" ] || make build >/dev/null

run() { # name, bench flags...
	local name=$1
	shift
	echo "== $name: ste bench $*" >&2
	"$STE" bench "$@" --json "$RUNS/$name.json" >/dev/null
}

free_gb() { df -BG --output=avail "${STE_HOME:-$HOME/.local/share/ste}" 2>/dev/null | tail -1 | tr -dc 0-9; }

throughput() {
	run throughput-250k --trades 250000 --no-analytics --window 10s
	run throughput-250k-analytics --trades 250000 --window 10s
}

degradation() {
	mkdir -p "${STE_HOME:-$HOME/.local/share/ste}"
	if [ "$(free_gb)" -lt 60 ]; then
		echo "degradation: less than 60 GB free for the 7 M-message run; skipped" >&2
		return 0
	fi
	run throughput-1m --trades 1000000 --no-analytics --window 30s
	rm -rf "${STE_HOME:-$HOME/.local/share/ste}/bench/broker"
}

littles() {
	# Paced runs from 1,000 msg/s up to past saturation, ~30 s each.
	for r in 1000 2000 3000 4000 5000 6000 7000 8000; do
		run "rate-$r" --trades $((r * 30 / 7)) --rate "$r" --no-analytics
	done
}

instances() {
	for n in 1 2 4; do
		run "instances-$n" --trades 50000 --instances "$n" --no-analytics
	done
}

scenarios() {
	run steady --trades 25000 --rate 3000 --no-analytics --monitor-interval 500ms
	run ramp --trades 40000 --rate 1000 --ramp-to 10000 --ramp-over 40s --no-analytics --monitor-interval 500ms
}

plots() {
	"$STE" plot littles --out "$OUT/littles.svg" "$RUNS"/rate-*.json
	"$STE" plot instances --out "$OUT/instances.svg" "$RUNS"/instances-*.json
	if [ -f "$RUNS/throughput-1m.json" ]; then
		"$STE" plot degradation --out "$OUT/degradation.svg" "$RUNS/throughput-1m.json"
	fi
	"$STE" plot timeline --title "Steady 3,000 msg/s" --out "$OUT/steady.svg" "$RUNS/steady.json"
	"$STE" plot timeline --title "Ramp 1,000 → 10,000 msg/s" --out "$OUT/ramp.svg" "$RUNS/ramp.json"
}

case "${1:-all}" in
throughput | degradation | littles | instances | scenarios | plots) "$1" ;;
all) throughput && littles && instances && scenarios && degradation && plots ;;
*) echo "usage: $0 [throughput|degradation|littles|instances|scenarios|plots|all]" >&2; exit 2 ;;
esac
