#!/usr/bin/env python3
"""Small servers and clients for scripts/captures/make-live-apps.sh (run inside its namespaces).

Every socket has a timeout and every loop is bounded, so a stuck peer ends the run.

  live_apps.py http-server --port 80 --root DIR
      HTTP/1.1 (keep-alive) over IPv4 and IPv6: GET and HEAD of files in DIR, POST /echo
      (echoes the body), GET /chunked (a chunked answer), anything else 404. Runs until killed.
  live_apps.py ws-server --port 8080
      A WebSocket echo server (the python3-websockets library); a plain HTTP request gets the
      library's own 426 answer. Runs until killed.
  live_apps.py ws-client --url ws://HOST:8080/chat [--no-compression]
      Upgrades, sends a text and a binary message and a ping, reads the echoes, closes.
  live_apps.py mcast --group 239.1.2.3 --ifname IF [--seconds 1]
      Joins an IPv4 (or IPv6) multicast group on IF (the kernel sends IGMP / MLD reports),
      holds it, then leaves (a leave / done message).
"""
import argparse
import asyncio
import http.server
import os
import socket
import socketserver
import struct
import sys
import time

TIMEOUT = 5.0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "sockctl-golden/1.0"
    root = "."

    def log_message(self, fmt, *args):  # to stderr, as the base class does, but shorter
        sys.stderr.write("http-server: %s\n" % (fmt % args))

    def send_body(self, status, body, content_type="text/plain; charset=utf-8", head=False):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def file_body(self):
        name = os.path.basename(self.path.split("?", 1)[0]) or "index.html"
        path = os.path.join(self.root, name)
        if not os.path.isfile(path):
            return None, None
        with open(path, "rb") as f:
            data = f.read()
        return data, ("text/html; charset=utf-8" if name.endswith(".html") else "text/plain; charset=utf-8")

    def do_GET(self):
        if self.path == "/chunked":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (b"first chunk\n", b"second, longer chunk of text\n", b""):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            return
        body, kind = self.file_body()
        if body is None:
            self.send_body(404, b"not found\n")
        else:
            self.send_body(200, body, kind)

    def do_HEAD(self):
        body, kind = self.file_body()
        if body is None:
            self.send_body(404, b"not found\n", head=True)
        else:
            self.send_body(200, body, kind, head=True)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(min(length, 1 << 20))
        if self.path == "/echo":
            self.send_body(200, body, self.headers.get("Content-Type") or "application/octet-stream")
        else:
            self.send_body(404, b"not found\n")


class DualStackServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def http_server(args):
    Handler.root = args.root
    Handler.timeout = TIMEOUT
    with DualStackServer(("::", args.port), Handler) as server:
        server.serve_forever()


def ws_server(args):
    import websockets

    async def echo(ws, path=None):
        async for message in ws:
            await ws.send(message)

    async def main():
        async with websockets.serve(echo, None, args.port):  # None: IPv4 and IPv6 sockets
            await asyncio.Future()

    asyncio.run(main())


def ws_client(args):
    import websockets

    async def main():
        options = {"open_timeout": TIMEOUT, "close_timeout": TIMEOUT}
        if args.no_compression:
            options["compression"] = None
        async with websockets.connect(args.url, **options) as ws:
            await ws.send("hello from sockctl's golden corpus")
            print("ws-client: text echo:", await asyncio.wait_for(ws.recv(), TIMEOUT), file=sys.stderr)
            await ws.send(bytes(range(40)))
            print("ws-client: binary echo:", len(await asyncio.wait_for(ws.recv(), TIMEOUT)), "bytes", file=sys.stderr)
            pong = await ws.ping(b"ping-1")
            await asyncio.wait_for(pong, TIMEOUT)

    asyncio.run(asyncio.wait_for(main(), 4 * TIMEOUT))


def mcast(args):
    ifindex = socket.if_nametoindex(args.ifname)
    if ":" in args.group:
        sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        mreq = socket.inet_pton(socket.AF_INET6, args.group) + struct.pack("@I", ifindex)
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP, mreq)
        time.sleep(args.seconds)
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_LEAVE_GROUP, mreq)
    else:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # struct ip_mreqn: group, local address (any), interface index
        mreq = socket.inet_aton(args.group) + socket.inet_aton("0.0.0.0") + struct.pack("@i", ifindex)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
        time.sleep(args.seconds)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_DROP_MEMBERSHIP, mreq)
    sock.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["http-server", "ws-server", "ws-client", "mcast"])
    parser.add_argument("--port", type=int, default=80)
    parser.add_argument("--root", default=".")
    parser.add_argument("--url")
    parser.add_argument("--no-compression", action="store_true")
    parser.add_argument("--group")
    parser.add_argument("--ifname")
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    {"http-server": http_server, "ws-server": ws_server, "ws-client": ws_client, "mcast": mcast}[args.mode](args)


if __name__ == "__main__":
    main()
