"""WebSocket over TLS peers for scripts/tls-sessions/record.sh (Python websockets, the
Makefile's pinned .venv-test).

  ws-peer.py server PORT CERT KEY COMPRESSION LOG     serve one connection on 127.0.0.1:PORT
  ws-peer.py client PORT KEYLOG COMPRESSION LOG       connect, exchange, close

COMPRESSION is "deflate" (permessage-deflate, both contexts taken over: websockets' default
offer) or "none". Each side sends a handful of text and binary messages (the client its own,
the server a greeting and each message it receives back reversed) and logs every message it
sends as a line "SENDER text|binary HEX" to LOG: what the view must show inflated. The client's
ssl.SSLContext writes the NSS key log (keylog_filename). Everything on 127.0.0.1; every wait
bounded (20 s).
"""
import asyncio
import ssl
import sys

from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

CLIENT_MESSAGES = [
    "hello over websocket and TLS",
    "the same words, the same words, the same words",
    "the same words, the same words, the same words",
    bytes(range(48)),
    "a longer text that repeats itself: " + "abcdefgh" * 40,
    bytes([0xFF, 0x00] * 150),
]


def log_sent(log, sender, message):
    kind = "text" if isinstance(message, str) else "binary"
    data = message.encode() if isinstance(message, str) else message
    log.write("%s %s %s\n" % (sender, kind, data.hex()))
    log.flush()


def compression(name):
    return "deflate" if name == "deflate" else None


async def server(port, cert, key, mode, log):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    done = asyncio.get_running_loop().create_future()

    async def handler(ws):
        greeting = ["server says hello", bytes([1, 2, 3, 4, 5, 250, 251, 252])]
        for message in greeting:
            log_sent(log, "server", message)
            await ws.send(message)
        async for message in ws:
            answer = message[::-1]
            log_sent(log, "server", answer)
            await ws.send(answer)
        if not done.done():
            done.set_result(None)

    async with serve(handler, "127.0.0.1", port, ssl=context, compression=compression(mode)):
        print("listening", flush=True)
        await asyncio.wait_for(done, 20)


async def client(port, keylog, mode, log):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.keylog_filename = keylog
    async with connect(f"wss://127.0.0.1:{port}/session", ssl=context, compression=compression(mode), open_timeout=20) as ws:
        for _ in range(2):
            await asyncio.wait_for(ws.recv(), 20)
        for message in CLIENT_MESSAGES:
            log_sent(log, "client", message)
            await ws.send(message)
            await asyncio.wait_for(ws.recv(), 20)


def main():
    role, port = sys.argv[1], int(sys.argv[2])
    if role == "server":
        cert, key, mode, path = sys.argv[3:7]
        with open(path, "a") as log:
            asyncio.run(server(port, cert, key, mode, log))
    else:
        keylog, mode, path = sys.argv[3:6]
        with open(path, "a") as log:
            asyncio.run(client(port, keylog, mode, log))


if __name__ == "__main__":
    main()
