#!/usr/bin/env bash
# A short, self-contained tour of sockctl on loopback. Usage: scripts/demo.sh [path/to/sockctl]
set -euo pipefail
SOCKCTL=${1:-.build/debug/sockctl}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; }

# Starts "sockctl listen ..." in the background; sets PORT from its "listening on" line.
start_listener() {
    local log=$1; shift
    "$SOCKCTL" listen "$@" 2>"$log" </dev/null &
    PIDS+=($!)
    LISTENER=$!
    for _ in $(seq 1 100); do
        grep -q "listening on" "$log" 2>/dev/null && break
        sleep 0.05
    done
    PORT=$(grep -o 'listening on [^ ,]*' "$log" | head -1 | sed 's/.*://')
    sed 's/^/  [listener] /' "$log"
}

step "1. An echo server for JSON+CRLF messages (port 0: the kernel picks a free port)"
show "sockctl listen 0 --echo --keep-open --framing crlf --delay 5ms"
start_listener "$WORK/echo.log" 0 --echo --keep-open --framing crlf --delay 5ms
ECHO_PORT=$PORT

step "2. send: one request, one response, timings as JSON (curl for sockets)"
show "sockctl send 127.0.0.1:$PORT --framing crlf '{\"op\":\"ping\"}' --json"
"$SOCKCTL" send "127.0.0.1:$PORT" --framing crlf '{"op":"ping"}' --json

step "3. connect: stdin to the socket, the socket to stdout, with -v connection events"
show "printf 'hello\\nworld\\n' | sockctl connect 127.0.0.1:$PORT --framing crlf -v"
printf 'hello\nworld\n' | "$SOCKCTL" connect "127.0.0.1:$PORT" --framing crlf -v

step "4. --hexdump: the bytes on the wire, in tcpdump -X layout"
show "printf '{\"id\":7}\\n' | sockctl connect 127.0.0.1:$PORT --framing crlf --hexdump"
printf '{"id":7}\n' | "$SOCKCTL" connect "127.0.0.1:$PORT" --framing crlf --hexdump

step "5. Happy Eyeballs: a name with ::1 and 127.0.0.1, a server on 127.0.0.1 only"
show "sockctl listen 127.0.0.1:0 --echo --keep-open"
start_listener "$WORK/v4.log" 127.0.0.1:0 --echo --keep-open
V4_LISTENER=$LISTENER
show "sockctl send dual.test:$PORT --resolve dual.test:::1,127.0.0.1 hi -v   # IPv6 refused, IPv4 wins"
"$SOCKCTL" send "dual.test:$PORT" --resolve "dual.test:::1,127.0.0.1" hi -v
echo
show "sockctl send dual.test:$PORT --resolve dual.test:::1,127.0.0.1 -6 x   # IPv6 only: fails, exit 1"
"$SOCKCTL" send "dual.test:$PORT" --resolve "dual.test:::1,127.0.0.1" -6 x || echo "  (exit status $?)"
kill -INT "$V4_LISTENER"; wait "$V4_LISTENER" || true

step "6. Usage errors name the bad part and exit 2"
show "sockctl connect localhost:99999"
"$SOCKCTL" connect localhost:99999 || echo "  (exit status $?)"

step "7. UDP: each datagram is one message; the listener names each sender"
show "sockctl listen udp://127.0.0.1:0 --echo -v"
start_listener "$WORK/udp.log" udp://127.0.0.1:0 --echo -v
UDP_LISTENER=$LISTENER
show "sockctl send udp://127.0.0.1:$PORT ping pong --responses 2"
"$SOCKCTL" send "udp://127.0.0.1:$PORT" ping pong --responses 2
kill -INT "$UDP_LISTENER"; wait "$UDP_LISTENER" || true
sed 's/^/  [udp listener] /' "$WORK/udp.log" | tail -3

step "8. loadtest: 20 connections for 3 s against the echo server (it answers after 5 ms)"
show "sockctl loadtest 127.0.0.1:$ECHO_PORT -c 20 --duration 3s --framing crlf --message '{\"id\":{{seq}}}' --threshold 'p99<50ms'"
"$SOCKCTL" loadtest "127.0.0.1:$ECHO_PORT" -c 20 --duration 3s --framing crlf --message '{"id":{{seq}}}' --threshold 'p99<50ms'

step "9. proxy: between a client and the echo server, 100 ms added towards the server, messages shown"
show "sockctl proxy 127.0.0.1:0 127.0.0.1:$ECHO_PORT --framing crlf --print-messages --fault latency=100ms,dir=up"
"$SOCKCTL" proxy 127.0.0.1:0 "127.0.0.1:$ECHO_PORT" --framing crlf --print-messages --fault latency=100ms,dir=up 2>"$WORK/proxy.log" </dev/null &
PROXY=$!
PIDS+=("$PROXY")
for _ in $(seq 1 100); do grep -q "listening on" "$WORK/proxy.log" 2>/dev/null && break; sleep 0.05; done
PROXY_PORT=$(grep -o 'listening on [^ ,]*' "$WORK/proxy.log" | head -1 | sed 's/.*://')
show "sockctl send 127.0.0.1:$PROXY_PORT --framing crlf '{\"op\":\"get\",\"id\":1}' --json   # first_byte: about 105 ms"
"$SOCKCTL" send "127.0.0.1:$PROXY_PORT" --framing crlf '{"op":"get","id":1}' --json
kill -INT "$PROXY"; wait "$PROXY" || true
sed 's/^/  [proxy] /' "$WORK/proxy.log"

step "10. capture: the exchange on the wire, exactly as tcpdump -n -X prints it (needs root or CAP_NET_RAW)"
show "sockctl capture -i lo --port $ECHO_PORT -c 6 --print -w $WORK/demo.pcap"
"$SOCKCTL" capture -i lo --port "$ECHO_PORT" -c 6 --print -w "$WORK/demo.pcap" >"$WORK/capture.out" 2>"$WORK/capture.err" &
CAPTURE=$!
PIDS+=($CAPTURE)
for _ in $(seq 1 100); do
    grep -q -e "listening on" -e "needs root" "$WORK/capture.err" 2>/dev/null && break
    sleep 0.05
done
if grep -q "listening on" "$WORK/capture.err"; then
    "$SOCKCTL" send "127.0.0.1:$ECHO_PORT" --framing crlf '{"id":1,"op":"get","key":"user:1"}' >/dev/null
    for _ in $(seq 1 100); do kill -0 "$CAPTURE" 2>/dev/null || break; sleep 0.05; done
    kill -INT "$CAPTURE" 2>/dev/null || true
    wait "$CAPTURE" || true
    cat "$WORK/capture.out"
    sed 's/^/  [capture] /' "$WORK/capture.err"
    echo
    show "sockctl capture -r $WORK/demo.pcap --follow --framing crlf   # the conversation, reassembled"
    "$SOCKCTL" capture -r "$WORK/demo.pcap" --follow --framing crlf 2>/dev/null
else
    wait "$CAPTURE" || true
    sed 's/^/  [capture] /' "$WORK/capture.err"
fi

step "11. HTTP: listen http:// is a test server answering every request with a file; send http:// prints the body (-v: status line and headers on stderr, as curl -v)"
printf '{"status":"ok","service":"demo"}\n' > "$WORK/health.json"
show "sockctl listen http://127.0.0.1:0 --respond health.json --keep-open"
PORT=""
start_listener "$WORK/http.log" http://127.0.0.1:0 --respond "$WORK/health.json" --keep-open || true
HTTP_LISTENER=$LISTENER
if [ -n "$PORT" ]; then
    show "sockctl send http://127.0.0.1:$PORT/health -v"
    "$SOCKCTL" send "http://127.0.0.1:$PORT/health" -v --timeout 5s </dev/null || echo "  (exit status $?: this build does not speak HTTP yet)"
else
    echo "  (this build does not listen on http:// yet)"
fi
kill -INT "$HTTP_LISTENER" 2>/dev/null || true; wait "$HTTP_LISTENER" || true

step "12. Ctrl-C (SIGINT) stops the echo server with a summary"
kill -INT "${PIDS[0]}"; wait "${PIDS[0]}" || true
sed 's/^/  [listener] /' "$WORK/echo.log" | tail -4
printf '\nDone. See README.md for the tour of every subcommand.\n'
