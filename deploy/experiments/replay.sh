#!/usr/bin/env bash
# Measures ste replay, a backtest end to end and the downtime of ste migrate
# on the 250,000-trade standard set (docs/benchmarks.md, "Replay, backtest
# and scale-out"), on the embedded broker with a data directory:
#
#   1. the set (ste gen --trades 250000, seed 1) driven into namespace live
#      and processed by one ste process until every group is at lag 0;
#   2. scale-out: the processors stopped (SIGTERM), ste migrate into live16
#      (16 partitions), ste process on live16 until it is ready — the
#      downtime;
#   3. backtest: ste replay of live into a sandbox with one security
#      suspended, --run to lag 0, ste diff live sandbox.
#
#   deploy/experiments/replay.sh [TRADES]     (default 250000)
#
# Needs ~40 GB free under $STE_HOME (default /tmp/ste-replay-bench), which
# it removes afterwards. Writes docs/benchmarks/runs/replay-<TRADES>.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
TRADES=${1:-250000}
STE=${STE:-bin/ste}
OUT=${OUT:-docs/benchmarks/runs}
export STE_HOME=${STE_HOME:-/tmp/ste-replay-bench}
mkdir -p "$OUT" "$STE_HOME"
[ -x "$STE" ] || make build >/dev/null
W=$STE_HOME/work
rm -rf "$W" && mkdir -p "$W"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "== $*" >&2; }

"$STE" broker --addr 127.0.0.1:0 --data "$W/broker" >"$W/broker.addr" 2>"$W/broker.log" &
BROKER=$!
trap 'kill $BROKER 2>/dev/null; wait $BROKER 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 50); do [ -s "$W/broker.addr" ] && break; sleep 0.1; done
export STE_BROKERS=$(head -1 "$W/broker.addr")

ready() { # NS: wait until an instance of NS is ready
	until "$STE" instances --namespace "$1" --json 2>/dev/null | grep -q '"ready": true'; do sleep 0.2; done
}

say "generate $TRADES trades"
"$STE" refdata gen --out "$W/ref" --seed 3 >/dev/null
"$STE" gen --trades "$TRADES" --seed 1 --refdata "$W/ref" --out "$W/set.xml.zst" >"$W/gen.json"
MESSAGES=$(grep -o '"messages":[0-9]*' "$W/gen.json" | cut -d: -f2)

say "live: drive and process to lag 0"
"$STE" topics create --namespace live >/dev/null
"$STE" refdata load --namespace live --dir "$W/ref" >/dev/null
"$STE" drive --namespace live --in "$W/set.xml.zst" >"$W/drive.json"
t0=$(now)
"$STE" process --namespace live --http 127.0.0.1:0 >"$W/live.log" 2>&1 &
LIVE=$!
ready live
# Every group at lag 0 in one of the instance's lag samples (/status).
addr=$("$STE" instances --namespace live --json | grep -o '"http": "[^"]*"' | head -1 | cut -d'"' -f4)
until curl -sf "http://$addr/status" | python3 -c 'import json,sys; g=json.load(sys.stdin).get("group_lag") or {}; sys.exit(0 if len(g) == 3 and not any(g.values()) else 1)' 2>/dev/null; do sleep 2; done
t1=$(now)
LIVE_S=$(secs "$t0" "$t1")
say "live processed in ${LIVE_S}s"

say "scale-out: stop, migrate to 16 partitions, start"
kill -TERM $LIVE
wait $LIVE || true
t2=$(now)
"$STE" migrate --from live --to live16 --partitions 16 --json >"$W/migrate.json"
t3=$(now)
"$STE" process --namespace live16 --http "" >"$W/live16.log" 2>&1 &
L16=$!
ready live16
t4=$(now)
kill -TERM $L16
wait $L16 || true
MIGRATE_S=$(secs "$t2" "$t3")
READY_S=$(secs "$t3" "$t4")
DOWN_S=$(secs "$t2" "$t4")
say "migrate ${MIGRATE_S}s, live16 ready ${READY_S}s after: downtime ${DOWN_S}s"

say "backtest: replay with one security suspended, run, diff"
cp -r "$W/ref" "$W/ref2"
ISIN=$( (zstdcat "$W/set.xml.zst" || true) | head -1 | grep -o '<ISIN>[A-Z0-9]*</ISIN>' | sed 's/<[^>]*>//g')
sed -i "s/^\($ISIN,.*\),ACTIVE$/\1,SUSPENDED/" "$W/ref2/securities.csv"
t5=$(now)
"$STE" replay --from live --to bt --refdata "$W/ref2" --run --json >"$W/replay.json"
t6=$(now)
set +e
"$STE" diff live bt --lines 3 >"$W/diff.txt"
DIFF_CODE=$?
set -e
t7=$(now)
REPLAY_MSGS=$(grep -o '"msgs_per_sec":[0-9]*' "$W/replay.json" | cut -d: -f2)
COPY_S=$(grep -o '"seconds":[0-9.]*' "$W/replay.json" | cut -d: -f2)
RUN_S=$(grep -o '"run_seconds":[0-9.]*' "$W/replay.json" | cut -d: -f2)
say "replay copy ${COPY_S}s (${REPLAY_MSGS} msg/s), run ${RUN_S}s, diff $(secs "$t6" "$t7")s (exit $DIFF_CODE)"
cat "$W/diff.txt" >&2

cat >"$OUT/replay-$TRADES.json" <<EOF
{"trades": $TRADES, "messages": $MESSAGES, "broker": "embedded", "partitions": 8, "machine_load": "$(cut -d' ' -f1-3 /proc/loadavg)",
 "live_process_seconds": $LIVE_S,
 "migrate": {"to_partitions": 16, "migrate_seconds": $MIGRATE_S, "ready_seconds": $READY_S, "downtime_seconds": $DOWN_S, "result": $(cat "$W/migrate.json")},
 "backtest": {"replay": $(cat "$W/replay.json"), "replay_run_seconds": $(secs "$t5" "$t6"), "diff_seconds": $(secs "$t6" "$t7"),
   "diff_exit": $DIFF_CODE, "end_to_end_seconds": $(secs "$t5" "$t7"), "suspended": "$ISIN"}}
EOF
say "written $OUT/replay-$TRADES.json"
