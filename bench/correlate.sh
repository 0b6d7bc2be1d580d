#!/usr/bin/env bash
# What --correlate costs: sockctl loadtest against `sockctl listen --echo` (framing line) at 100
# connections, the same JSON message with and without `--correlate 'json:$.id'`, in interleaved
# rounds (loopback throughput drifts between runs), at pipeline 1 and 16. The echo server sends
# each message back, so every reply matches: the runs differ only in how replies are matched.
# Usage: bench/correlate.sh path/to/release/sockctl [seconds-per-run] [rounds]
# Reported: replies per second (median of the rounds) each way and their ratio — the issue asks
# that correlation cost at most 10 % (ratio ≥ 0.90) — and the client's CPU time (user + sys)
# per reply each way, which a busy machine disturbs less than the rate.
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

# rate PIPELINE EXTRA-ARGS...: replies per second of one run, its unmatched replies and the
# client's CPU µs per reply.
rate() {
    local pipeline=$1
    shift
    /usr/bin/time -f "%U %S" -o "$WORK/run.time" "$SOCKCTL" loadtest "127.0.0.1:$port" -c "$CONNECTIONS" --connect-rate 0 --duration "${SECONDS_PER_RUN}s" \
        --framing line --pipeline "$pipeline" --message "$MESSAGE" "$@" --json "$WORK/run.json" > "$WORK/run.log" 2>&1 || true
    python3 -c "
import json
r = json.load(open('$WORK/run.json'))
user, system = open('$WORK/run.time').read().split()[-2:]
print(r['throughput']['received_per_second'], r['messages'].get('unmatched', '-'), (float(user) + float(system)) * 1e6 / max(1, r['messages']['received']))
" 2>/dev/null || echo "0 - 0"
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "--correlate cost: $CONNECTIONS connections, sockctl listen --echo, ${SECONDS_PER_RUN}s per run, $ROUNDS rounds, median"
echo "message: $MESSAGE"
printf '\n%-9s %14s %20s %7s %18s %18s\n' pipeline "plain msgs/s" "--correlate msgs/s" ratio "plain CPU µs/msg" "correlated µs/msg"
for pipeline in 1 16; do
    plain=()
    correlated=()
    plain_cpu=()
    correlated_cpu=()
    for _ in $(seq 1 "$ROUNDS"); do
        read -r r _ cpu < <(rate "$pipeline")
        plain+=("$r")
        plain_cpu+=("$cpu")
        read -r r unmatched cpu < <(rate "$pipeline" --correlate 'json:$.id')
        correlated+=("$r")
        correlated_cpu+=("$cpu")
        [ "$unmatched" = 0 ] || echo "warning: $unmatched unmatched replies in a correlated run" >&2
    done
    p=$(median "${plain[@]}")
    c=$(median "${correlated[@]}")
    printf '%-9s %14.0f %20.0f %6.2fx %18.3f %18.3f\n' "$pipeline" "$p" "$c" "$(echo "$c / ($p + 0.000001)" | bc -l)" \
        "$(median "${plain_cpu[@]}")" "$(median "${correlated_cpu[@]}")"
done
echo
echo "ratio = correlated / plain replies per second (1.00x: no cost; the issue asks for >= 0.90x)"
