#!/bin/bash
# Records plaintext HTTP/1.1 sessions between curl and nginx on loopback with tcpdump, and writes
# what tshark's HTTP dissector shows of every message, for the `--decode http` comparison
# (Tests/PacketDecodingTests/HTTP1ViewCaptureTests.swift):
#
#   scripts/captures/make-http11-sessions.sh [OUTDIR]     (as root; default Tests/Fixtures/http11)
#
# Sessions (NAME.pcap and NAME.tshark.txt):
#   http11-nginx  one keep-alive connection: GET (Content-Length), HEAD, a 404, a gzip'd GET
#                 (chunked), a POST with a chunked request body (405); then an HTTP/1.0 gzip'd
#                 GET on its own connection (no length: the body runs until nginx closes)
#   curl-http11-tls  no new recording: Tests/Fixtures/TLS/curl-http11.pcap (curl against openssl
#                 s_server -www, recorded by scripts/tls-sessions/record.sh) as tshark decrypts it
#                 with its key log (only curl-http11-tls.tshark.txt is written here)
#
# NAME.tshark.txt: one line per HTTP message tshark shows, in capture order:
#   FRAME<TAB>SRCPORT<TAB>request<TAB>METHOD<TAB>URI<TAB>Name: value<TAB>...
#   FRAME<TAB>SRCPORT<TAB>response<TAB>CODE<TAB><TAB>Name: value<TAB>...
# (http.request.method, http.request.uri, http.response.code, http.request.line /
# http.response.line without their CRLF). nginx runs from a temporary directory on a port picked
# here; everything is on 127.0.0.1; every wait is bounded; only PIDs started here are signalled.
# Regenerate, never hand-edit.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/Tests/Fixtures/http11}
mkdir -p "$OUT"
WORK=$(mktemp -d)
chmod 755 "$WORK"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$WORK/root" "$WORK/logs"
printf '<html><body>sockctl http/1.1 view</body></html>\n' > "$WORK/root/index.html"
python3 -c 'print("line of text for gzip\n" * 400)' > "$WORK/root/big.txt"
chmod -R a+rX "$WORK/root"
cat > "$WORK/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $WORK/body;
    proxy_temp_path $WORK/proxy;
    fastcgi_temp_path $WORK/fastcgi;
    uwsgi_temp_path $WORK/uwsgi;
    scgi_temp_path $WORK/scgi;
    server_tokens off;
    gzip on;
    gzip_types text/plain;
    gzip_min_length 0;
    gzip_http_version 1.0;
    types { text/html html; text/plain txt; }
    server {
        listen 127.0.0.1:$PORT;
        root $WORK/root;
    }
}
CONF
nginx -c "$WORK/nginx.conf" -e "$WORK/logs/error.log" > "$WORK/nginx.log" 2>&1 &
PIDS+=($!)
source "$(dirname "$0")/record-common.sh"
wait_port "$PORT"


head -c 3000 /dev/zero | tr '\0' 'x' > "$WORK/post.txt"
session() {
    local base=http://127.0.0.1:$PORT
    curl -s --http1.1 -o /dev/null "$base/index.html" \
        --next -s --http1.1 -o /dev/null -I "$base/index.html" \
        --next -s --http1.1 -o /dev/null "$base/missing" \
        --next -s --http1.1 --compressed -o /dev/null "$base/big.txt" \
        --next -s --http1.1 -o /dev/null -H 'Transfer-Encoding: chunked' --data-binary @"$WORK/post.txt" "$base/index.html"
    curl -s --http1.0 --compressed -o /dev/null "$base/big.txt"
}
record http11-nginx session

# expect NAME PCAP [TSHARK OPTIONS...]: NAME.tshark.txt from tshark -T json of the HTTP packets.
expect() {
    local name=$1 pcap=$2
    shift 2
    tshark -r "$pcap" "$@" -Y http -T json --no-duplicate-keys 2>/dev/null > "$WORK/$name.json"
    python3 - "$WORK/$name.json" > "$OUT/$name.tshark.txt" <<'PY'
import json, sys
def each(value):
    return value if isinstance(value, list) else [value]
def lines(http, key):
    return [line.rstrip("\r\n") for line in each(http.get(key, []))]
for packet in json.load(open(sys.argv[1])):
    layers = packet["_source"]["layers"]
    frame = each(layers["frame"]["frame.number"])[0]
    port = each(layers["tcp"]["tcp.srcport"])[0]
    for http in each(layers.get("http", [])):
        if not isinstance(http, dict):
            continue
        request = next((v for k, v in http.items() if isinstance(v, dict) and "http.request.method" in v), None)
        response = next((v for k, v in http.items() if isinstance(v, dict) and "http.response.code" in v), None)
        if request is not None:
            print("\t".join([frame, port, "request", request["http.request.method"], request["http.request.uri"]] + lines(http, "http.request.line")))
        elif response is not None:
            print("\t".join([frame, port, "response", response["http.response.code"], ""] + lines(http, "http.response.line")))
PY
}
expect http11-nginx "$OUT/http11-nginx.pcap" -d "tcp.port==$PORT,http"
TLS=$ROOT/Tests/Fixtures/TLS
TLS_PORT=$(tshark -r "$TLS/curl-http11.pcap" -T fields -e tcp.dstport -c 1 2>/dev/null)
expect curl-http11-tls "$TLS/curl-http11.pcap" -o "tls.keylog_file:$TLS/curl-http11.keylog" -d "tcp.port==$TLS_PORT,tls"
wc -l "$OUT"/*.tshark.txt
