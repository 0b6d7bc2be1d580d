#!/usr/bin/env bash
# Load generation: messages per second for 64-byte echo round trips at 1, 100 and 1000
# connections, sockctl loadtest next to sockperf (Debian's package), in the same run.
# Usage: bench/loadtest.sh path/to/release/sockctl [seconds-per-run]
#
# Every run is closed loop and unthrottled: each connection keeps one 64-byte message in flight
# and sends the next when the reply is back.
#  - sockperf ping-pong against `sockperf server` (one port per connection, a feed file, since
#    sockperf's server serves one connection per port).
#  - sockctl loadtest against the same `sockperf server`: the message is a sockperf message
#    (14-byte header: sequence, flags client|pong-request, length 64), framed fixed:64, so both
#    clients load the very same server. Where `--io auto` chose a thread per connection (fewer
#    connections than cores), the same run again with `--io events` (event loops) next to it.
#  - sockctl loadtest against `sockctl listen --echo` (one port), framing line.
#  - the same over WebSocket: `sockctl loadtest ws://` against `sockctl listen ws:// --echo`,
#    each 64-byte message one WebSocket message (framing raw), next to the plain TCP row.
# (sockperf cannot load `sockctl listen --echo`: its client drops replies that still carry its
# own "client" flag, which a plain echo server sends back unchanged.)
# Reported: messages/s (replies received per second of the measured run), the client's CPU
# seconds (user + sys) and CPU per million messages, and sockctl/sockperf ratios.
# Traffic: 127.0.0.1 only; every run stops by itself after SECONDS.
set -euo pipefail
SOCKCTL=$(realpath -m "${1:?usage: bench/loadtest.sh path/to/sockctl [seconds]}")
SECONDS_PER_RUN=${2:-5}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

command -v sockperf >/dev/null || { echo "sockperf is not installed (make bench installs it)" >&2; exit 1; }
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('>QHI',0,3,64)+b'x'*50)" > "$WORK/sockperf-64.bin"
LINE64=$(head -c 63 /dev/zero | tr '\0' x)

# free_block, wait_listen
source "$(dirname "$0")/common.sh"

# cpu FILE: user + sys seconds from /usr/bin/time -f "%U %S".
cpu() { awk 'END {print $1 + $2}' "$1"; }

declare -A RATE CPU IO

# json FILE KEY1 KEY2: a figure of a loadtest --json report (0 when missing).
json() { python3 -c "import json;print(json.load(open('$1'))['$2']['$3'])" 2>/dev/null || echo 0; }

# sockctl_echo KEY CONNECTIONS ENDPOINT LOADTEST-ARGS...: sockctl loadtest against
# `sockctl listen ENDPOINT --echo` (@PORT@ in ENDPOINT is a free port); the framing of the
# loadtest arguments is the listener's too (raw: none, for WebSocket).
sockctl_echo() {
    local key=$1 connections=$2 port listener framing=()
    shift 2
    port=$(free_block 1)
    local endpoint=${1//@PORT@/$port}
    shift
    [ "$2" != raw ] && framing=(--framing "$2")
    "$SOCKCTL" listen "$endpoint" --echo -k "${framing[@]}" --max-clients $((connections + 16)) 2>"$WORK/listen-$key.log" &
    listener=$!
    PIDS+=("$listener")
    wait_listen "$port"
    /usr/bin/time -f "%U %S" -o "$WORK/$key.time" \
        "$SOCKCTL" loadtest "$endpoint" -c "$connections" --duration "${SECONDS_PER_RUN}s" --connect-rate 0 \
        "$@" --json "$WORK/$key-$connections.json" > "$WORK/$key-$connections.log" 2>&1 || true
    RATE[$key-$connections]=$(json "$WORK/$key-$connections.json" throughput received_per_second)
    CPU[$key-$connections]=$(cpu "$WORK/$key.time")
    CPU[$key-$connections-count]=$(json "$WORK/$key-$connections.json" messages received)
    kill -INT "$listener" 2>/dev/null || true
    wait "$listener" 2>/dev/null || true
}
run_pair() {
    local connections=$1 base feed targets=() p
    base=$(free_block "$connections")
    feed=$WORK/feed-$connections.txt
    : > "$feed"
    for p in $(seq "$base" $((base + connections - 1))); do
        echo "T:127.0.0.1:$p" >> "$feed"
        targets+=("127.0.0.1:$p")
    done
    sockperf server -f "$feed" > "$WORK/server-$connections.log" 2>&1 &
    local server=$!
    PIDS+=("$server")
    wait_listen $((base + connections - 1))

    # sockperf ping-pong
    /usr/bin/time -f "%U %S" -o "$WORK/sp.time" \
        sockperf ping-pong -f "$feed" -t "$SECONDS_PER_RUN" -m 64 > "$WORK/sp-$connections.log" 2>&1
    local received runtime
    received=$(sed -n 's/.*Valid Duration.*ReceivedMessages=\([0-9]*\).*/\1/p' "$WORK/sp-$connections.log" | tail -n 1)
    runtime=$(sed -n 's/.*Valid Duration\] RunTime=\([0-9.]*\) sec.*/\1/p' "$WORK/sp-$connections.log" | tail -n 1)
    RATE[sockperf-$connections]=$(echo "${received:-0} / ${runtime:-1}" | bc -l)
    CPU[sockperf-$connections]=$(cpu "$WORK/sp.time")
    CPU[sockperf-$connections-count]=${received:-0}

    # sockctl loadtest against the same sockperf server
    /usr/bin/time -f "%U %S" -o "$WORK/sc.time" \
        "$SOCKCTL" loadtest "${targets[@]}" -c "$connections" --duration "${SECONDS_PER_RUN}s" --connect-rate 0 \
        --framing fixed:64 --message-file "$WORK/sockperf-64.bin" --json "$WORK/sc-$connections.json" > "$WORK/sc-$connections.log" 2>&1 || true
    RATE[sockctl-sp-$connections]=$(json "$WORK/sc-$connections.json" throughput received_per_second)
    CPU[sockctl-sp-$connections]=$(cpu "$WORK/sc.time")
    CPU[sockctl-sp-$connections-count]=$(json "$WORK/sc-$connections.json" messages received)
    IO[$connections]=$(python3 -c "import json;print(json.load(open('$WORK/sc-$connections.json'))['config'].get('io','events'))" 2>/dev/null || echo events)
    if [ "${IO[$connections]}" = threads ]; then
        # The same load on event loops, for comparison (--io auto chose a thread per connection).
        /usr/bin/time -f "%U %S" -o "$WORK/sce.time" \
            "$SOCKCTL" loadtest "${targets[@]}" -c "$connections" --duration "${SECONDS_PER_RUN}s" --connect-rate 0 --io events \
            --framing fixed:64 --message-file "$WORK/sockperf-64.bin" --json "$WORK/sce-$connections.json" > "$WORK/sce-$connections.log" 2>&1 || true
        RATE[sockctl-spev-$connections]=$(json "$WORK/sce-$connections.json" throughput received_per_second)
        CPU[sockctl-spev-$connections]=$(cpu "$WORK/sce.time")
        CPU[sockctl-spev-$connections-count]=$(json "$WORK/sce-$connections.json" messages received)
    fi
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true

    # sockctl loadtest against sockctl listen --echo, over TCP and over WebSocket
    sockctl_echo sockctl-echo "$connections" "127.0.0.1:@PORT@" --framing line --message "$LINE64"
    sockctl_echo sockctl-ws "$connections" "ws://127.0.0.1:@PORT@/" --framing raw --message "${LINE64}x"
}

echo "64-byte echo round trips, closed loop, one message in flight per connection, ${SECONDS_PER_RUN}s per run"
echo "sockctl: $SOCKCTL"
for connections in 1 100 1000; do run_pair "$connections"; done

per_million() {
    local cpu=$1 count=$2
    [ "${count:-0}" -gt 0 ] && echo "$cpu * 1000000 / $count" | bc -l || echo 0
}
printf '\n%-6s %-34s %12s %12s %14s %10s\n' conns "client → server" "msgs/s" "client CPU s" "CPU s / 1M msg" "vs sockperf"
for connections in 1 100 1000; do
    base=${RATE[sockperf-$connections]}
    for key in sockperf sockctl-sp sockctl-spev sockctl-echo sockctl-ws; do
        [ -n "${RATE[$key-$connections]:-}" ] || continue
        case $key in
            sockperf) label="sockperf ping-pong → sockperf server" ;;
            sockctl-sp) label="sockctl loadtest → sockperf server" ;;
            sockctl-spev) label="  the same with --io events" ;;
            sockctl-echo) label="sockctl loadtest → sockctl listen" ;;
            sockctl-ws) label="  the same over ws://" ;;
        esac
        rate=${RATE[$key-$connections]}
        ratio=$(echo "$rate / ($base + 0.000001)" | bc -l)
        printf '%-6s %-34s %12.0f %12.2f %14.2f %9.2fx\n' "$connections" "$label" "$rate" "${CPU[$key-$connections]}" \
            "$(per_million "${CPU[$key-$connections]}" "${CPU[$key-$connections-count]}")" "$ratio"
    done
done
echo
echo "Ratios are messages/s over sockperf ping-pong's at the same connection count (higher is better)."
printf 'sockctl --io auto chose:'
for connections in 1 100 1000; do printf ' c=%s %s' "$connections" "${IO[$connections]}"; done
echo " (threads: a thread per connection, polling for replies; events: event loops)"
printf 'WebSocket over plain TCP (sockctl loadtest → sockctl listen):'
for connections in 1 100 1000; do
    printf ' c=%s %.2fx' "$connections" "$(echo "${RATE[sockctl-ws-$connections]} / (${RATE[sockctl-echo-$connections]} + 0.000001)" | bc -l)"
done
echo

# Send-only: no replies expected. sockperf's throughput client never reads, so the server is one
# that reads and discards (`sockctl listen --discard`, the same for both, which counts what it
# was served); sockctl sends sockperf's own 64-byte message (without the pong-request flag).
echo
echo "Send-only, 64-byte messages, ${SECONDS_PER_RUN}s per run, into \`sockctl listen --discard\` (bytes in = what the server was served)"
printf '%-6s %-34s %14s %16s %12s\n' conns client "msgs/s (client)" "served MB/s" "vs sockperf"
for connections in 1 100; do
    declare -A SERVED SENT
    for client in sockperf sockctl; do
        port=$(free_block 1)
        "$SOCKCTL" listen "127.0.0.1:$port" --discard -k --max-clients $((connections + 16)) 2>"$WORK/discard.log" &
        sink=$!
        PIDS+=("$sink")
        wait_listen "$port"
        if [ "$client" = sockperf ]; then
            for _ in $(seq "$connections"); do echo "T:127.0.0.1:$port"; done > "$WORK/send-feed.txt"
            sockperf throughput -f "$WORK/send-feed.txt" -m 64 -t "$SECONDS_PER_RUN" > "$WORK/send-sp.log" 2>&1 || true
            SENT[$client]=$(sed -n 's/.*Message Rate is \([0-9]*\).*/\1/p' "$WORK/send-sp.log")
        else
            "$SOCKCTL" loadtest "127.0.0.1:$port" -c "$connections" --connect-rate 0 --duration "${SECONDS_PER_RUN}s" \
                --message-file "$WORK/sockperf-64.bin" --json "$WORK/send-sc.json" > /dev/null 2>&1 || true
            SENT[$client]=$(json "$WORK/send-sc.json" throughput sent_per_second)
        fi
        kill -INT "$sink" 2>/dev/null || true
        wait "$sink" 2>/dev/null || true
        SERVED[$client]=$(sed -n 's/.* \([0-9]*\) bytes in,.*/\1/p' "$WORK/discard.log" | tail -1)
    done
    for client in sockperf sockctl; do
        printf '%-6s %-34s %14.0f %16.1f %11.2fx\n' "$connections" "$client" "${SENT[$client]:-0}" \
            "$(echo "${SERVED[$client]:-0} / 1000000 / $SECONDS_PER_RUN" | bc -l)" \
            "$(echo "${SERVED[$client]:-0} / (${SERVED[sockperf]:-0} + 0.000001)" | bc -l)"
    done
done
echo "(served MB/s counts the server's bytes over the run's length; the ratio is of bytes served; goal >= 1.0x)"
