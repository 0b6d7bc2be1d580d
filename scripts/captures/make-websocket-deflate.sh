#!/bin/bash
# Records the compressed WebSocket fixture of the views' tests
# (Tests/Fixtures/WebSocketDeflate/ws-deflate.pcap): Python websockets (the Makefile's
# .venv-test, websockets 17.4, which compresses by default) as server and client on loopback,
# recorded by the real tcpdump (`tcpdump -w`).
#
#   scripts/captures/make-websocket-deflate.sh        (as root: tcpdump on lo)
#
# Two connections to an echo server on 127.0.0.1 (a port the kernel picks):
#   1. permessage-deflate with both contexts taken over (websockets' default offer): the text
#      "the same words, the same words, the same words" three times (the second and third are a
#      few bytes on the wire: they inflate only with the window of the first), "fragmented
#      message" sent in three fragments (RSV1 on the first only), 64 bytes 00..3f binary;
#   2. permessage-deflate with server_no_context_takeover and client_no_context_takeover: the
#      same text twice.
# Every message is echoed, so each direction carries compressed messages. The capture is
# committed; re-running replaces it (new ports and masks: the tests only read the messages).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/Tests/Fixtures/WebSocketDeflate/ws-deflate.pcap
PYTHON=$ROOT/.venv-test/bin/python
[ -x "$PYTHON" ] || { echo "make-websocket-deflate: run 'make .venv-test/.installed' first" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "make-websocket-deflate: tcpdump needs root" >&2; exit 2; }
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

cat >"$work/peer.py" <<'PY'
import asyncio, sys
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory

async def echo(ws):
    async for message in ws:
        await ws.send(message)

async def server():
    async with serve(echo, "127.0.0.1", 0) as running:
        print(running.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()

async def client(port):
    text = "the same words, the same words, the same words"
    async with connect(f"ws://127.0.0.1:{port}/kept") as ws:
        for message in [text, text, text, ["frag", "mented ", "message"], bytes(range(64))]:
            await ws.send(message)
            await ws.recv()
    reset = ClientPerMessageDeflateFactory(server_no_context_takeover=True, client_no_context_takeover=True)
    async with connect(f"ws://127.0.0.1:{port}/reset", compression=None, extensions=[reset]) as ws:
        for message in [text, text]:
            await ws.send(message)
            await ws.recv()

if sys.argv[1] == "server":
    asyncio.run(server())
else:
    asyncio.run(client(int(sys.argv[2])))
PY

mkfifo "$work/server.out"
"$PYTHON" "$work/peer.py" server >"$work/server.out" &
pids+=($!)
read -r -t 20 port <"$work/server.out"
[ -n "${port:-}" ] || { echo "make-websocket-deflate: the server did not start" >&2; exit 1; }

tcpdump -i lo -U -s 0 -w "$OUT.tmp" "tcp port $port" 2>"$work/tcpdump.err" &
tcpdump=$!
pids+=($tcpdump)
# tcpdump says "listening on lo" once it captures (at most 20 s of looking, 0.1 s apart).
for _ in $(seq 200); do
    grep -q "listening on" "$work/tcpdump.err" && break
    kill -0 "$tcpdump" 2>/dev/null || { cat "$work/tcpdump.err" >&2; exit 1; }
    sleep 0.1
done
grep -q "listening on" "$work/tcpdump.err" || { echo "make-websocket-deflate: tcpdump did not start" >&2; exit 1; }

timeout 60 "$PYTHON" "$work/peer.py" client "$port"
# The last FINs are written (-U) once the client has closed; tcpdump ends on SIGINT.
kill -INT "$tcpdump"
wait "$tcpdump" || true
cat "$work/tcpdump.err" >&2
[ "$(stat -c %s "$OUT.tmp")" -gt 1000 ] || { echo "make-websocket-deflate: the capture is empty: run it again" >&2; exit 1; }
mv "$OUT.tmp" "$OUT"
echo "wrote $OUT ($(stat -c %s "$OUT") bytes)"
