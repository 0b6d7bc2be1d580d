"""permessage-deflate peers built on the `websockets` library (pinned in the Makefile's
.venv-test), which compresses by default, for the compression interop tests. Every line printed
is one JSON object. Each peer records the RSV1 bit of every data frame it receives, as it came off
the wire (before websockets inflates it), so a test sees whether sockctl compressed.

  ws_deflate_peer.py server
      Serves on 127.0.0.1 (port printed first as {"port": N}); echoes every message. When a client
      leaves it prints {"extensions": <the Sec-WebSocket-Extensions it answered, or null>,
      "rsv1": [one bool per data frame received], "closed": <close code>}.
  ws_deflate_peer.py bomb SIZE
      Serves likewise; to each client it sends one binary message of SIZE zero bytes (compressed:
      a few KiB on the wire) and prints {"closed": <the close code the client sent>}.
  ws_deflate_peer.py client URL [no-context-takeover|text-only]
      Sends three text messages (the same text twice: context takeover at work) and a binary one
      (text-only: a fourth text one instead),
      prints {"echo": true|false} per message, then {"extensions": <the server's answer>,
      "rsv1": [...]} and closes with 1000.
"""
import asyncio
import json
import signal
import sys

from websockets.asyncio.client import connect
from websockets.asyncio.server import serve
from websockets.extensions.permessage_deflate import (
    ClientPerMessageDeflateFactory,
    PerMessageDeflate,
    ServerPerMessageDeflateFactory,
)

received_rsv1 = []


class RecordingDeflate(PerMessageDeflate):
    """Notes each data frame's RSV1 before inflating it."""

    def decode(self, frame, *, max_size=None):
        if frame.opcode in (0, 1, 2):
            received_rsv1.append(bool(frame.rsv1))
        return super().decode(frame, max_size=max_size)


class RecordingServerFactory(ServerPerMessageDeflateFactory):
    def process_request_params(self, params, accepted_extensions):
        response, extension = super().process_request_params(params, accepted_extensions)
        extension.__class__ = RecordingDeflate
        return response, extension


class RecordingClientFactory(ClientPerMessageDeflateFactory):
    def process_response_params(self, params, accepted_extensions):
        extension = super().process_response_params(params, accepted_extensions)
        extension.__class__ = RecordingDeflate
        return extension


def emit(obj):
    print(json.dumps(obj), flush=True)


async def serve_until_signalled(handler):
    async with serve(handler, "127.0.0.1", 0, compression=None, extensions=[RecordingServerFactory()], max_size=None) as server:
        emit({"port": server.sockets[0].getsockname()[1]})
        stop = asyncio.get_running_loop().create_future()
        for number in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(number, lambda: stop.done() or stop.set_result(None))
        await stop


async def run_server():
    async def handler(ws):
        received_rsv1.clear()
        try:
            async for message in ws:
                await ws.send(message)
        finally:
            emit({"extensions": ws.response.headers.get("Sec-WebSocket-Extensions"), "rsv1": list(received_rsv1), "closed": ws.close_code})

    await serve_until_signalled(handler)


async def run_bomb(size):
    async def handler(ws):
        try:
            await ws.send(bytes(size))
            await ws.wait_closed()
        finally:
            emit({"closed": ws.close_code, "reason": ws.close_reason})

    await serve_until_signalled(handler)


async def run_client(url, no_context_takeover, text_only):
    factory = RecordingClientFactory(client_no_context_takeover=no_context_takeover, server_no_context_takeover=no_context_takeover)
    async with connect(url, compression=None, extensions=[factory], ping_interval=None) as ws:
        text = "compress me, compress me, compress me: " * 20
        for message in [text, text, "héllo wörld", "last" if text_only else bytes(range(256)) * 4]:
            await ws.send(message)
            emit({"echo": await ws.recv() == message})
        emit({"extensions": ws.response.headers.get("Sec-WebSocket-Extensions"), "rsv1": list(received_rsv1)})


def main():
    mode = sys.argv[1]
    if mode == "server":
        asyncio.run(run_server())
    elif mode == "bomb":
        asyncio.run(run_bomb(int(sys.argv[2])))
    elif mode == "client":
        flag = sys.argv[3] if len(sys.argv) > 3 else ""
        asyncio.run(run_client(sys.argv[2], flag == "no-context-takeover", flag == "text-only"))
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
