#!/usr/bin/env bash
# Records Tests/Fixtures/proxy-protocol/proxy-protocol.pcap (by tcpdump on loopback, as root) and
# what tshark reads in it (proxy-protocol.tshark): connections that begin with a PROXY protocol
# header, from real senders —
#   1. haproxy `send-proxy` (v1) from a client at 127.0.0.2 to `sockctl listen --accept-proxy-protocol --echo`
#   2. haproxy `send-proxy-v2`, the same
#   3. `sockctl proxy --send-proxy-protocol v2` to haproxy `accept-proxy ssl` over TLS (the
#      header, then the ClientHello), curl from 127.0.0.3 through it
#   4. a client that writes a malformed v1 line (refused by the listener)
# and writes with tshark, per TCP stream that has one, the header's fields: stream, source address
# and port, destination address and port. Usage: scripts/captures/make-proxy-protocol.sh SOCKCTL
# Traffic: 127.0.0.0/8 only; every process started here is stopped by PID.
set -euo pipefail
SOCKCTL=$(realpath "${1:?usage: make-proxy-protocol.sh path/to/sockctl}")
OUT=$(cd "$(dirname "$0")/../.." && pwd)/Tests/Fixtures/proxy-protocol
WORK=$(mktemp -d)
PIDS=()
trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "timed out waiting for '$2' in $1" >&2; exit 1; }

LISTEN=$(port); FRONT1=$(port); FRONT2=$(port); PROXY=$(port); TLS=$(port)
tcpdump -i lo -U -s 0 -w "$WORK/capture.pcap" "tcp and (port $LISTEN or port $FRONT1 or port $FRONT2 or port $PROXY or port $TLS)" 2>"$WORK/tcpdump.err" &
PIDS+=($!); CAPTURE=$!
wait_for "$WORK/tcpdump.err" "listening on"

"$SOCKCTL" listen "127.0.0.1:$LISTEN" --accept-proxy-protocol --echo -k 2>"$WORK/listen.err" &
PIDS+=($!)
wait_for "$WORK/listen.err" "listening on"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" -days 2 -subj "/CN=127.0.0.1" 2>/dev/null
cat "$WORK/cert.pem" "$WORK/key.pem" > "$WORK/haproxy.pem"
cat > "$WORK/haproxy.cfg" <<CFG
defaults
  mode tcp
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend v1
  bind 127.0.0.1:$FRONT1
  default_backend v1
backend v1
  server s 127.0.0.1:$LISTEN send-proxy
frontend v2
  bind 127.0.0.1:$FRONT2
  default_backend v2
backend v2
  server s 127.0.0.1:$LISTEN send-proxy-v2
frontend tls
  mode http
  bind 127.0.0.1:$TLS accept-proxy ssl crt $WORK/haproxy.pem
  http-request return status 200 content-type text/plain lf-string "%[src]:%[src_port]\n"
CFG
haproxy -f "$WORK/haproxy.cfg" -db -V >"$WORK/haproxy.out" 2>&1 &
PIDS+=($!)
wait_for "$WORK/haproxy.out" "as the polling mechanism"
echo "through haproxy send-proxy" | ncat -s 127.0.0.2 127.0.0.1 "$FRONT1"
echo "through haproxy send-proxy-v2" | ncat -s 127.0.0.2 127.0.0.1 "$FRONT2"

"$SOCKCTL" proxy "127.0.0.1:$PROXY" "tls://127.0.0.1:$TLS" --send-proxy-protocol v2 --upstream-insecure 2>"$WORK/proxy.err" &
PIDS+=($!)
wait_for "$WORK/proxy.err" "listening on"
curl -sS --interface 127.0.0.3 "http://127.0.0.1:$PROXY/"

printf 'PROXY TCP4 192.0.2 198.51.100.1 40001 443\r\nhello\n' | ncat 127.0.0.1 "$LISTEN" || true
wait_for "$WORK/listen.err" "refused"
sleep 0.5
kill -INT "$CAPTURE"; wait "$CAPTURE" 2>/dev/null || true
cp "$WORK/capture.pcap" "$OUT/proxy-protocol.pcap"
tshark -r "$OUT/proxy-protocol.pcap" -Y proxy -T fields -E separator=' ' \
    -e tcp.stream -e proxy.src.ipv4 -e proxy.srcport -e proxy.dst.ipv4 -e proxy.dstport > "$OUT/proxy-protocol.tshark"
echo "wrote $OUT/proxy-protocol.pcap ($(wc -l < "$OUT/proxy-protocol.tshark") headers by tshark)"
