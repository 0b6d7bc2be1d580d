#!/usr/bin/env bash
# Records the TLS sessions behind the decryption tests (Tests/Fixtures/TLS/) with real peers on
# loopback: tcpdump -w captures each one; the peers write the NSS key log (openssl
# -keylogfile, curl SSLKEYLOGFILE); tshark writes the expected decrypted bytes
# (NAME.tshark: `tshark -q -z follow,tls,raw,N` for every TCP stream N). Regenerate, never
# hand-edit. Needs root (tcpdump on lo), openssl, curl, nghttpd, tcpdump, tshark, editcap, and the
# Makefile's .venv-test (websockets). Besides NAME.tshark: tshark's decrypted HTTP/2 header lists
# (h2-tls-streams.http2.tshark.txt) and inflated WebSocket messages (ws-tls-*.ws.tshark.txt),
# and what the WebSocket peers say they sent (ws-tls-*.sent).
#
# Sessions: TLS 1.3 with each suite; TLS 1.2 ECDHE-RSA and ECDHE-ECDSA with AES-128-GCM,
# AES-256-GCM and ChaCha20-Poly1305; curl HTTP/1.1 against openssl s_server -www; HTTP/2 with
# many streams (curl --http2 --parallel against nghttpd: h2-tls-streams); WebSocket with
# permessage-deflate and without (Python websockets: ws-tls-deflate, ws-tls-plain); a capture
# that starts mid-connection (the pcap cut after the handshake); a wrong key log (every
# secret's last byte flipped); a key log without this connection's lines.
#
# Usage: scripts/tls-sessions/record.sh [OUTDIR]   (default Tests/Fixtures/TLS)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/Tests/Fixtures/TLS}
mkdir -p "$OUT"
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# Certificates: an RSA and an ECDSA server key, self-signed for 127.0.0.1.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/rsa.key" -out "$WORK/rsa.pem" -days 3 \
    -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/ec.key" -out "$WORK/ec.pem" \
    -days 3 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_for FILE TEXT: until FILE holds TEXT (at most 10 s).
wait_for() {
    for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "timed out waiting for '$2' in $1" >&2; return 1
}

# start_capture PORT PCAP: tcpdump on lo for that port, returned once it listens.
start_capture() {
    rm -f "$WORK/tcpdump.err"
    tcpdump -i lo --immediate-mode -U -s 0 -w "$2" "tcp port $1" 2>"$WORK/tcpdump.err" &
    CAPTURE=$!
    PIDS+=("$CAPTURE")
    wait_for "$WORK/tcpdump.err" "listening on"
}
stop_capture() {
    sleep 0.3
    kill -INT "$CAPTURE"; wait "$CAPTURE" 2>/dev/null || true
}

# server PORT CERT KEY ARGS...: openssl s_server -rev (answers every line reversed).
start_server() {
    local port=$1 cert=$2 key=$3; shift 3
    rm -f "$WORK/server.out"
    openssl s_server -accept "$port" -cert "$cert" -key "$key" -rev -naccept 1 "$@" >"$WORK/server.out" 2>&1 &
    SERVER=$!
    PIDS+=("$SERVER")
    wait_for "$WORK/server.out" "ACCEPT"
}

# openssl_session NAME CERT KEY SERVER_ARGS -- CLIENT_ARGS: three lines each way, then close.
openssl_session() {
    local name=$1 cert=$2 key=$3; shift 3
    local server_args=() client_args=()
    while [ "$1" != "--" ]; do server_args+=("$1"); shift; done
    shift
    client_args=("$@")
    local port; port=$(free_port)
    rm -f "$OUT/$name.keylog"
    start_capture "$port" "$OUT/$name.pcap"
    start_server "$port" "$cert" "$key" "${server_args[@]}"
    { printf 'hello over %s\n' "$name"; sleep 0.3; printf 'GET /second HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'; sleep 0.3
      head -c 3000 /dev/zero | tr '\0' 'x'; printf '\n'; sleep 0.5; } |
        timeout 20 openssl s_client -connect "127.0.0.1:$port" -keylogfile "$OUT/$name.keylog" -quiet -no_ign_eof "${client_args[@]}" >/dev/null 2>&1 || true
    wait "$SERVER" 2>/dev/null || true
    stop_capture
}

openssl_session tls13-aes128gcm "$WORK/rsa.pem" "$WORK/rsa.key" -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256 -- -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256
openssl_session tls13-aes256gcm "$WORK/rsa.pem" "$WORK/rsa.key" -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -- -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384
openssl_session tls13-chacha20 "$WORK/ec.pem" "$WORK/ec.key" -tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256 -- -tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256
for suite in AES128-GCM-SHA256 AES256-GCM-SHA384 CHACHA20-POLY1305; do
    lower=$(echo "$suite" | tr 'A-Z' 'a-z' | sed 's/-sha[0-9]*$//; s/-poly1305//; s/-//g')
    openssl_session "tls12-ecdhe-rsa-$lower" "$WORK/rsa.pem" "$WORK/rsa.key" -tls1_2 -cipher "ECDHE-RSA-$suite" -- -tls1_2 -cipher "ECDHE-RSA-$suite"
    openssl_session "tls12-ecdhe-ecdsa-$lower" "$WORK/ec.pem" "$WORK/ec.key" -tls1_2 -cipher "ECDHE-ECDSA-$suite" -- -tls1_2 -cipher "ECDHE-ECDSA-$suite"
done

# curl (HTTP/1.1, SSLKEYLOGFILE) against openssl s_server -www, two requests on one connection
# and a second connection.
port=$(free_port)
rm -f "$OUT/curl-http11.keylog"
start_capture "$port" "$OUT/curl-http11.pcap"
rm -f "$WORK/server.out"
openssl s_server -accept "$port" -cert "$WORK/rsa.pem" -key "$WORK/rsa.key" -www -naccept 2 >"$WORK/server.out" 2>&1 &
SERVER=$!; PIDS+=("$SERVER")
wait_for "$WORK/server.out" "ACCEPT"
for path in /one /two; do
    SSLKEYLOGFILE="$OUT/curl-http11.keylog" timeout 20 curl -sk --http1.1 "https://127.0.0.1:$port$path" -o /dev/null
done
wait "$SERVER" 2>/dev/null || true
stop_capture

# HTTP/2 over TLS with many streams: curl --http2 --parallel (SSLKEYLOGFILE) fetching 20 paths
# (16 files, 4 missing: 200s and 404s) multiplexed on one connection to nghttpd (ALPN h2).
port=$(free_port)
mkdir -p "$WORK/h2root"
for i in $(seq 1 16); do printf 'page %s over h2\n' "$i" > "$WORK/h2root/page$i.txt"; done
rm -f "$OUT/h2-tls-streams.keylog"
nghttpd --address=127.0.0.1 -d "$WORK/h2root" "$port" "$WORK/rsa.key" "$WORK/rsa.pem" >"$WORK/nghttpd.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
start_capture "$port" "$OUT/h2-tls-streams.pcap"
urls=()
for i in $(seq 1 16); do urls+=("https://127.0.0.1:$port/page$i.txt"); done
for i in $(seq 1 4); do urls+=("https://127.0.0.1:$port/missing-$i"); done
SSLKEYLOGFILE="$OUT/h2-tls-streams.keylog" timeout 20 curl -sk --http2 --parallel --parallel-max 20 \
    -H "x-trace: abc,def" -H "user-agent: sockctl-test/1" "${urls[@]}" -o /dev/null >/dev/null || true
stop_capture

# WebSocket over TLS, with permessage-deflate (both contexts taken over) and without: Python
# websockets (scripts/tls-sessions/ws-peer.py) as server and client, the client's ssl context
# writing the key log; NAME.sent is what each peer says it sent (the messages the view must show).
PYTHON=${PYTHON:-$ROOT/.venv-test/bin/python}
for mode in deflate none; do
    name=ws-tls-$([ "$mode" = deflate ] && echo deflate || echo plain)
    port=$(free_port)
    rm -f "$OUT/$name.keylog" "$OUT/$name.sent" "$WORK/ws-server.out"
    start_capture "$port" "$OUT/$name.pcap"
    "$PYTHON" "$ROOT/scripts/tls-sessions/ws-peer.py" server "$port" "$WORK/rsa.pem" "$WORK/rsa.key" "$mode" "$OUT/$name.sent" >"$WORK/ws-server.out" 2>&1 &
    SERVER=$!; PIDS+=("$SERVER")
    wait_for "$WORK/ws-server.out" "listening"
    timeout 30 "$PYTHON" "$ROOT/scripts/tls-sessions/ws-peer.py" client "$port" "$OUT/$name.keylog" "$mode" "$OUT/$name.sent"
    wait "$SERVER" 2>/dev/null || true
    stop_capture
done

# Mid-connection: the TLS 1.3 AES-128 session without its first 12 packets (the handshake).
editcap -r "$OUT/tls13-aes128gcm.pcap" "$WORK/mid.pcap" 13-1000 2>/dev/null
editcap -F pcap "$WORK/mid.pcap" "$OUT/mid-connection.pcap"
cp "$OUT/tls13-aes128gcm.keylog" "$OUT/mid-connection.keylog"

# Wrong key: the TLS 1.2 ECDHE-RSA AES-128 session with every secret's last hex digit changed.
cp "$OUT/tls12-ecdhe-rsa-aes128gcm.pcap" "$OUT/wrong-key.pcap"
sed -E 's/([0-9a-f])$/\1X/; s/0X$/1/; s/[1-9a-f]X$/0/' "$OUT/tls12-ecdhe-rsa-aes128gcm.keylog" > "$OUT/wrong-key.keylog"
# No key: the TLS 1.3 ChaCha session with the AES-256 session's key log.
cp "$OUT/tls13-chacha20.pcap" "$OUT/no-key.pcap"
cp "$OUT/tls13-aes256gcm.keylog" "$OUT/no-key.keylog"

# Expected output: tshark's decrypted bytes per TCP stream.
for pcap in "$OUT"/*.pcap; do
    name=$(basename "$pcap" .pcap)
    streams=$(tshark -r "$pcap" -T fields -e tcp.stream 2>/dev/null | sort -un)
    : > "$OUT/$name.tshark"
    for stream in $streams; do
        tshark -r "$pcap" -o "tls.keylog_file:$OUT/$name.keylog" -q -z "follow,tls,raw,$stream" >> "$OUT/$name.tshark"
    done
done
# tshark's decrypted HTTP/2 header blocks (NAME.http2.tshark.txt) and inflated WebSocket
# messages (NAME.ws.tshark.txt), one line each in capture order (scripts/captures/
# tshark-http2-headers.py, scripts/tls-sessions/tshark-ws-messages.py).
tshark -r "$OUT/h2-tls-streams.pcap" -o "tls.keylog_file:$OUT/h2-tls-streams.keylog" -Y http2 -T json --no-duplicate-keys 2>/dev/null > "$WORK/h2.json"
python3 "$ROOT/scripts/captures/tshark-http2-headers.py" "$WORK/h2.json" > "$OUT/h2-tls-streams.http2.tshark.txt"
for name in ws-tls-deflate ws-tls-plain; do
    tshark -r "$OUT/$name.pcap" -o "tls.keylog_file:$OUT/$name.keylog" -Y websocket -T json --no-duplicate-keys 2>/dev/null > "$WORK/ws.json"
    python3 "$ROOT/scripts/tls-sessions/tshark-ws-messages.py" "$WORK/ws.json" > "$OUT/$name.ws.tshark.txt"
done
ls -l "$OUT"
