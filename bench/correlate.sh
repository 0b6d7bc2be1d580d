#!/usr/bin/env bash
# What --correlate costs: sockctl loadtest against `sockctl listen --echo` (framing line) at 100
# connections, the same JSON message with and without `--correlate 'json:$.id'`, in interleaved
# rounds (loopback throughput drifts between runs), at pipeline 1 and 16. The echo server sends
# each message back, so every reply matches: the runs differ only in how replies are matched.
# Usage: bench/correlate.sh path/to/release/sockctl [seconds-per-run] [rounds]
# Reported: replies per second (median of the rounds) each way and the ratio; the issue asks
# that correlation cost at most 10 % (ratio ≥ 0.90).
# Traffic: 127.0.0.1 only; every run stops by itself after SECONDS.
set -euo pipefail
SOCKCTL=$(realpath -m "${1:?usage: bench/correlate.sh path/to/sockctl [seconds] [rounds]}")
SECONDS_PER_RUN=${2:-5}
ROUNDS=${3:-3}
CONNECTIONS=100
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# free_block, wait_listen
source "$(dirname "$0")/common.sh"

MESSAGE='{"id":{{seq}},"op":"get","key":"user:{{conn}}","pad":"xxxxxxxxxxxxxxxx"}'
port=$(free_block 1)
"$SOCKCTL" listen "127.0.0.1:$port" --echo -k --framing line --max-clients $((CONNECTIONS + 16)) 2>"$WORK/listen.log" &
PIDS+=("$!")
wait_listen "$port"

# rate PIPELINE EXTRA-ARGS...: replies per second of one run.
rate() {
    local pipeline=$1
    shift
    "$SOCKCTL" loadtest "127.0.0.1:$port" -c "$CONNECTIONS" --connect-rate 0 --duration "${SECONDS_PER_RUN}s" \
        --framing line --pipeline "$pipeline" --message "$MESSAGE" "$@" --json "$WORK/run.json" > "$WORK/run.log" 2>&1 || true
    python3 -c "import json;r=json.load(open('$WORK/run.json'));print(r['throughput']['received_per_second'], r['messages'].get('unmatched', '-'))" 2>/dev/null || echo "0 -"
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "--correlate cost: $CONNECTIONS connections, sockctl listen --echo, ${SECONDS_PER_RUN}s per run, $ROUNDS rounds, median"
echo "message: $MESSAGE"
printf '\n%-9s %16s %22s %8s\n' pipeline "plain msgs/s" "--correlate msgs/s" ratio
for pipeline in 1 16; do
    plain=()
    correlated=()
    for _ in $(seq 1 "$ROUNDS"); do
        read -r r _ < <(rate "$pipeline")
        plain+=("$r")
        read -r r unmatched < <(rate "$pipeline" --correlate 'json:$.id')
        correlated+=("$r")
        [ "$unmatched" = 0 ] || echo "warning: $unmatched unmatched replies in a correlated run" >&2
    done
    p=$(median "${plain[@]}")
    c=$(median "${correlated[@]}")
    printf '%-9s %16.0f %22.0f %7.2fx\n' "$pipeline" "$p" "$c" "$(echo "$c / ($p + 0.000001)" | bc -l)"
done
echo
echo "ratio = correlated / plain replies per second (1.00x: no cost; the issue asks for >= 0.90x)"
