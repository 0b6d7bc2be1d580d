#!/bin/sh
# Records one TLS 1.3 HTTP exchange on loopback with its key log, for the pcapng Decryption
# Secrets Block tests (Tests/Fixtures/pcapng/tls13-keylog.pcap and .keylog).
#
# Run as root (tcpdump -i lo) on Linux with openssl and tcpdump; the results are committed.
# openssl s_server -www on 127.0.0.1:6975 (a throwaway key made here), openssl s_client
# -keylogfile sends one GET; tcpdump -w records it. Every wait is bounded; only the PIDs
# started here are signalled.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$root/Tests/Fixtures/pcapng"
work=$(mktemp -d /tmp/sockctl-tls-keylog.XXXXXX)
PORT=6975
SERVER_PID=
TCPDUMP_PID=
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    [ -n "$TCPDUMP_PID" ] && kill -INT "$TCPDUMP_PID" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
    -subj /CN=localhost -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
openssl s_server -accept "127.0.0.1:$PORT" -www -tls1_3 -cert "$work/cert.pem" -key "$work/key.pem" -quiet \
    >/dev/null 2>&1 &
SERVER_PID=$!
tcpdump -i lo -U --immediate-mode -w "$work/tls.pcap" "tcp port $PORT" 2>"$work/tcpdump.err" &
TCPDUMP_PID=$!
tries=0
until grep -q "listening on" "$work/tcpdump.err" 2>/dev/null && ss -ltn | grep -q ":$PORT "; do
    tries=$((tries + 1)); [ "$tries" -lt 100 ] || { echo "make-tls-keylog.sh: peers did not start" >&2; exit 1; }
    sleep 0.1
done
printf 'GET / HTTP/1.0\r\n\r\n' | timeout 10 openssl s_client -connect "127.0.0.1:$PORT" -tls1_3 \
    -keylogfile "$work/tls.keylog" -quiet -ign_eof >"$work/client.out" 2>&1 || { cat "$work/client.out" >&2; exit 1; }
# tcpdump -U writes each packet as it reads it: wait until the file stops growing (bounded).
last=-1; tries=0
while size=$(wc -c <"$work/tls.pcap") && [ "$size" != "$last" ] && [ "$tries" -lt 50 ]; do
    last=$size; tries=$((tries + 1)); sleep 0.5
done
kill -INT "$TCPDUMP_PID"; wait "$TCPDUMP_PID" || true; TCPDUMP_PID=
kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=
cp "$work/tls.pcap" "$out/tls13-keylog.pcap"
grep -v '^#' "$work/tls.keylog" >"$out/tls13-keylog.keylog"
echo "make-tls-keylog.sh: wrote $out/tls13-keylog.pcap and .keylog" >&2
