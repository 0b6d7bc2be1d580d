"""WebSocket peers built on the `websockets` library (pinned in the Makefile's .venv-test), for
the interop tests. Every line printed is one JSON object.

  ws_peer.py server [SUBPROTOCOL...]
      Serves on 127.0.0.1 on a port the kernel picks, printed first as {"port": N}. To each client it first sends one text
      message describing the handshake ({"path", "origin", "x_test", "subprotocol"}), then
      echoes every message with its type, prefixed: text -> "text:" + message,
      binary -> b"binary:" + message. Prints each close it receives.
  ws_peer.py client URL [ORIGIN]
      Sends a text message, a binary message, a fragmented text message and a ping, prints
      what comes back ({"type", "data"} with binary data as hex), then closes with 4000 'done'.
"""
import asyncio
import json
import signal
import sys

from websockets.asyncio.client import connect
from websockets.asyncio.server import serve


def emit(obj):
    print(json.dumps(obj), flush=True)


async def run_server(subprotocols):
    async def handler(ws):
        request = ws.request
        await ws.send(json.dumps({
            "path": request.path,
            "origin": request.headers.get("Origin"),
            "x_test": request.headers.get("X-Test"),
            "subprotocol": ws.subprotocol,
        }))
        try:
            async for message in ws:
                if isinstance(message, bytes):
                    await ws.send(b"binary:" + message)
                else:
                    await ws.send("text:" + message)
        finally:
            emit({"closed": ws.close_code, "reason": ws.close_reason})

    async with serve(handler, "127.0.0.1", 0, subprotocols=subprotocols or None, compression=None) as server:
        emit({"port": server.sockets[0].getsockname()[1]})
        stop = asyncio.get_running_loop().create_future()
        for number in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(number, lambda: stop.done() or stop.set_result(None))
        await stop


async def run_client(url, origin):
    async with connect(url, origin=origin, compression=None, ping_interval=None) as ws:
        await ws.send("héllo wörld")
        await ws.send(b"\x00\xff\x10")
        await ws.send(["frag", "mented"])  # one message in two frames
        pong = await ws.ping(b"are you there")
        await pong
        emit({"pong": True})
        for _ in range(3):
            message = await ws.recv()
            if isinstance(message, bytes):
                emit({"type": "binary", "data": message.hex()})
            else:
                emit({"type": "text", "data": message})
        await ws.close(4000, "done")
        emit({"closed": ws.close_code, "sent": 4000})


if __name__ == "__main__":
    if sys.argv[1] == "server":
        asyncio.run(run_server(sys.argv[2:]))
    else:
        asyncio.run(run_client(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
