#!/bin/bash
# Records plaintext HTTP/2 (h2c) sessions between nghttpd and nghttp on loopback with tcpdump,
# and writes what tshark decodes of their header blocks, for the HPACK comparison
# (Tests/PacketDecodingTests/HTTP2HeaderCaptureTests.swift):
#
#   scripts/captures/make-h2c-sessions.sh [OUTDIR]      (as root; default Tests/Fixtures/http2)
#
# Sessions (each NAME.pcap, and NAME.tshark.json: tshark -T json of the HTTP/2 packets):
#   h2c-streams   nghttp with prior knowledge: 13 requests on one connection (many streams, the
#                 same headers again and again, so HPACK's dynamic table is used), 200s and 404s;
#                 a second connection with a large header table (nghttp -c 65536) and big headers
#   h2c-grpc      nghttp POSTs with content-type application/grpc: a body of gRPC length-prefixed
#                 messages (text, JSON, binary, compressed flag, one split over DATA frames)
# (NAME.tshark.txt is what the test compares with; tshark's whole -T json is not kept: megabytes.)
#   h2c-sequential h2load -n 12 -m 1: twelve requests one after another on one connection
#   h2c-late      h2c-sequential from its 12th packet on (editcap): a capture that joined the
#                 connection late, its HPACK tables unknown (no tshark file: tshark cannot either)
#
# nghttpd serves a temporary directory on a port picked here; everything is on 127.0.0.1. Every
# wait is bounded; only PIDs started here are signalled. Regenerate, never hand-edit.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/Tests/Fixtures/http2}
mkdir -p "$OUT"
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ -n "${KEEP_LOGS:-}" ]; then cp -r "$WORK" "$KEEP_LOGS"; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$WORK/root/assets"
for i in $(seq 1 10); do printf 'page %s\n' "$i" > "$WORK/root/page$i.txt"; done
printf '{"ok":true}\n' > "$WORK/root/data.json"
printf 'body { color: red }\n' > "$WORK/root/assets/style.css"

nghttpd --no-tls --address=127.0.0.1 -d "$WORK/root" "$PORT" > "$WORK/nghttpd.log" 2>&1 &
PIDS+=($!)
source "$(dirname "$0")/record-common.sh"
wait_port "$PORT"


# What tshark decodes of a session, in NAME.tshark.txt, one line per header block and per gRPC
# message, in the order of the capture (packets, then frames within one):
#   headers SRCPORT STREAM<TAB>NAME: VALUE<TAB>NAME: VALUE...     (http2.header, -T json)
#   grpc SRCPORT COMPRESSED LENGTH                                (grpc.compressed_flag, grpc.message_length)
expect() {
    local name=$1
    tshark -r "$OUT/$name.pcap" -d "tcp.port==$PORT,http2" -Y http2 -T json --no-duplicate-keys 2>/dev/null > "$WORK/$name.json"
    python3 "$ROOT/scripts/captures/tshark-http2-headers.py" "$WORK/$name.json" > "$OUT/$name.tshark.txt"
    # gRPC messages: tshark's fields (several per packet are comma-separated, in order).
    tshark -r "$OUT/$name.pcap" -d "tcp.port==$PORT,http2" -Y grpc -T fields -E separator=' ' \
        -e tcp.srcport -e grpc.compressed_flag -e grpc.message_length -e http2.streamid 2>/dev/null \
        | python3 -c '
import sys
for line in sys.stdin:
    port, flags, lengths, streams = (line.split(" ") + ["", "", "", ""])[:4]
    for flag, length in zip(flags.split(","), lengths.split(",")):
        print("grpc %s %s %s" % (port, flag, length))
' >> "$OUT/$name.tshark.txt"
}

URL=http://127.0.0.1:$PORT
urls=()
for round in 1 2; do
    for i in $(seq 1 10); do urls+=("$URL/page$i.txt"); done
    urls+=("$URL/missing-$round")
    urls+=("$URL/data.json")
done
record h2c-streams nghttp -n -v -H "user-agent: sockctl-test/1" -H "x-trace: abc,def" "${urls[@]}"
record h2c-table nghttp -n -c 65536 -H "x-big: $(head -c 3000 /dev/zero | tr '\0' a)" -H "cookie: a=1; b=2" "$URL/page1.txt" "$URL/page2.txt" "$URL/page3.txt"
expect h2c-table
expect h2c-streams


python3 - "$WORK/grpc.bin" "$WORK/grpc2.bin" <<'PY'
import struct, sys
def message(payload, compressed=False):
    return struct.pack(">BI", 1 if compressed else 0, len(payload)) + payload
first = message(b"hello grpc") + message(b'{"name":"sockctl","n":[1,2,3]}') + message(bytes([0x0a, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0xff]))
second = message(b"\x1f\x8b\x08\x00compressed", compressed=True) + message(b"") + message(b"x" * 20000)
open(sys.argv[1], "wb").write(first)
open(sys.argv[2], "wb").write(second)
PY
record h2c-grpc nghttp -n -H "content-type: application/grpc+proto" -H "te: trailers" -d "$WORK/grpc.bin" "$URL/pkg.Service/First"
expect h2c-grpc
# A second connection: a body over several DATA frames.
record h2c-grpc2 nghttp -n -H "content-type: application/grpc" -d "$WORK/grpc2.bin" "$URL/pkg.Service/Second"
expect h2c-grpc2

# One request at a time on one connection (h2load -m 1): many packets, each block after the first
# naming entries of the dynamic table. h2c-late is the same capture from its 12th packet on.
record h2c-sequential h2load -n 12 -c 1 -m 1 -H "x-request-tag: sequential" "$URL/page1.txt"
expect h2c-sequential
editcap -r "$OUT/h2c-sequential.pcap" "$OUT/h2c-late.pcap" 12-10000
echo "recorded: $(cd "$OUT" && ls)"
