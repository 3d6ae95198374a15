#!/usr/bin/env bash
# Memory and recovery of one separate `ste process` holding a whole run's
# state (docs/benchmarks.md, "Tables: memory and recovery"):
#
#   deploy/experiments/tables.sh TRADES memory|disk [OUT]
#
# Starts an embedded broker (`ste broker`, its own process) with a fresh
# namespace, drives a standard set of TRADES trades (7 messages each) into
# it, runs one `ste process --tables KIND` until every group is at lag 0,
# reads its RSS, kills it with SIGKILL, starts it again and times it to
# /readyz. Prints one JSON object (also written to OUT if given). The set is
# cached under $STE_HOME/tables-bench/sets; everything else is removed.
# GOGC/GOMEMLIMIT from the environment reach the process (unset: the
# process's own defaults, see instance/gc.go). PROCESS_PPROF=ADDR serves the
# process's pprof there; with PROFILE_DIR=DIR too, heap profiles are saved
# in DIR every 60 s of the drain (heap-drain-N.pb.gz) and 10 s after it
# (heap-drained.pb.gz), with the process's RSS at each (rss.txt).
set -euo pipefail
cd "$(dirname "$0")/../.."
TRADES=${1:?usage: tables.sh TRADES memory|disk [OUT]}
KIND=${2:?usage: tables.sh TRADES memory|disk [OUT]}
OUT=${3:-}
STE=${STE:-$PWD/bin/ste}
[ -x "$STE" ] || make build >/dev/null
ROOT=${STE_HOME:-$HOME/.local/share/ste}/tables-bench
mkdir -p "$ROOT/sets"
WORK=$(mktemp -d "$ROOT/run-XXXX")
export STE_HOME=$WORK/home STE_NAMESPACE=tb$RANDOM
PORT=$((20000 + RANDOM % 20000))
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
log() { echo "tables.sh: $*" >&2; }
now() { date +%s.%N; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }

SET=$ROOT/sets/standard-$TRADES.zst
REF=$ROOT/sets/refdata
[ -d "$REF" ] || "$STE" refdata gen --out "$REF" >/dev/null
[ -f "$SET" ] || { log "generating $TRADES trades"; "$STE" gen --trades "$TRADES" --refdata "$REF" --out "$SET" >/dev/null; }

"$STE" broker --addr 127.0.0.1:0 --data "$WORK/broker" >"$WORK/broker.addr" 2>"$WORK/broker.log" &
pids+=($!)
for _ in $(seq 100); do [ -s "$WORK/broker.addr" ] && break; sleep 0.1; done
export STE_BROKERS=$(head -1 "$WORK/broker.addr")
"$STE" topics create >/dev/null
"$STE" refdata load --dir "$REF" >/dev/null
log "driving $SET into $STE_NAMESPACE"
"$STE" drive --in "$SET" >/dev/null

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }
status() { curl -sf "http://127.0.0.1:$PORT/status" || true; }
metric() { # sum of a metric's samples
	curl -sf "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 ~ "^"m"([{]|$)" {s += $2} END {printf "%.0f", s}'
}
start() {
	# PROCESS_PPROF=ADDR serves the process's (not the broker's) pprof there.
	env ${PROCESS_PPROF:+STE_PPROF=$PROCESS_PPROF} \
		"$STE" process --tables "$KIND" --http "127.0.0.1:$PORT" --instance-id tables-bench 2>>"$WORK/process.log" &
	pid=$!
	pids+=($pid)
}
wait_ready() {
	until curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null; do
		kill -0 "$pid" 2>/dev/null || { log "process died"; tail -20 "$WORK/process.log" >&2; exit 1; }
		sleep 0.05
	done
}
wait_drained() { # every group at lag 0 in a sample taken after processing began
	until [ "$(status | jq -r 'if .lag_at != "0001-01-01T00:00:00Z" and (.group_lag | length) == 3 then ([.group_lag[]] | add) else -1 end')" = 0 ]; do
		kill -0 "$pid" 2>/dev/null || { log "process died"; tail -20 "$WORK/process.log" >&2; exit 1; }
		sleep 1
	done
}

profile() { # NAME: a heap profile and the RSS beside it, if asked for
	[ -n "${PROCESS_PPROF:-}" ] && [ -n "${PROFILE_DIR:-}" ] || return 0
	mkdir -p "$PROFILE_DIR"
	curl -sf "http://$PROCESS_PPROF/debug/pprof/heap" -o "$PROFILE_DIR/heap-$1.pb.gz" || true
	echo "$1 $(date -u +%T) rss_kb=$(rss_kb "$pid") hwm_kb=$(hwm_kb "$pid")" >>"$PROFILE_DIR/rss.txt"
}

t0=$(now)
start
wait_ready
if [ -n "${PROFILE_DIR:-}" ]; then
	(n=0; while sleep 60; do n=$((n + 1)); profile "drain-$n"; done) &
	profiler=$!
fi
wait_drained
t1=$(now)
[ -z "${profiler:-}" ] || kill "$profiler" 2>/dev/null || true
sleep 10 # settle: the collector and compactions catch up
profile drained
rss_drained=$(rss_kb "$pid")
hwm=$(hwm_kb "$pid")
heap=$(metric go_memstats_heap_inuse_bytes)
trades=$(metric ste_open_trades)
disk=$(du -sk "$STE_HOME" | cut -f1)
sleep 20 # and at rest: a quiet process returns its free memory (instance/gc.go)
rss_rest=$(rss_kb "$pid")
profile rest
log "drained in $(minus "$t1" "$t0") s; RSS $((rss_drained / 1024)) MB, 30 s after the drain $((rss_rest / 1024)) MB; killing"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true

mark=$(wc -l <"$WORK/process.log")
t2=$(now)
start
wait_ready
t3=$(now)
# Of that, the tables' part: from the last assignment to "processors ready"
# (the rest is the group noticing the killed member and rebalancing).
tables_s=$(tail -n +"$((mark + 1))" "$WORK/process.log" | awk '
	/partitions assigned/ { a = $1 } /processors ready/ { r = $1 }
	END { gsub("time=", "", a); gsub("time=", "", r); print a, r }' |
	while read -r a r; do minus "$(date -d "$r" +%s.%N)" "$(date -d "$a" +%s.%N)"; done)
rss_ready=$(rss_kb "$pid")
restored=$(metric ste_table_records_restored_total)
sleep 10
rss_after=$(rss_kb "$pid")
log "ready $(minus "$t3" "$t2") s after restart ($tables_s s from assignment); RSS $((rss_ready / 1024)) MB, 10 s later $((rss_after / 1024)) MB"
kill "$pid"
wait "$pid" 2>/dev/null || true

json=$(jq -n --arg kind "$KIND" --argjson trades "$TRADES" --argjson drain "$(minus "$t1" "$t0")" \
	--argjson rss "$rss_drained" --argjson rss_rest "$rss_rest" --argjson hwm "$hwm" --argjson heap "$heap" --argjson open "$trades" \
	--argjson disk "$disk" --argjson ready "$(minus "$t3" "$t2")" --argjson rss_ready "$rss_ready" \
	--argjson rss_after "$rss_after" --argjson restored "${restored:-0}" --argjson tables_s "$tables_s" \
	--arg gogc "${GOGC:-}" --arg gomemlimit "${GOMEMLIMIT:-}" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
	'{tables: $kind, trades: $trades, messages: ($trades * 7), drain_seconds: $drain,
	  rss_mb: ($rss / 1024 | floor), rss_30s_after_drain_mb: ($rss_rest / 1024 | floor), rss_peak_mb: ($hwm / 1024 | floor), go_heap_inuse_mb: ($heap / 1048576 | floor),
	  open_trades: $open, home_disk_mb: ($disk / 1024 | floor),
	  kill9_to_ready_seconds: $ready, assigned_to_ready_seconds: $tables_s, rss_at_ready_mb: ($rss_ready / 1024 | floor), rss_10s_later_mb: ($rss_after / 1024 | floor),
	  records_restored: $restored, gogc: $gogc, gomemlimit: $gomemlimit, loadavg: $load}')
echo "$json"
[ -z "$OUT" ] || echo "$json" >"$OUT"
