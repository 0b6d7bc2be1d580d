#!/usr/bin/env python3
"""Loopback traffic for the golden-test captures (Python 3 stdlib only).

Used by scripts/captures/make-live.sh while tcpdump records. Every socket has a
timeout and every loop is bounded, so a stuck peer ends the run instead of hanging it.

  traffic.py tcp  --host 127.0.0.1 --port 6969 [--close fin|rst] [--messages 3]
      One process, two ends: a server thread answers each CRLF-terminated JSON request
      with a JSON reply; the client sends --messages requests, reads the replies, then
      closes with FIN (close()) or RST (SO_LINGER {1, 0}).
  traffic.py udp  --host 127.0.0.1 --port 6973 [--messages 3]
      A UDP flow: each JSON datagram is echoed back.
  traffic.py sink --host 10.213.0.2 --port 7000
      Accepts one connection and reads until EOF (for the SACK capture).
  traffic.py bulk --host 10.213.0.2 --port 7000 --bytes 120000
      Connects, writes --bytes of JSON lines, closes.
"""
import argparse
import json
import socket
import struct
import sys
import threading
import time

TIMEOUT = 5.0


def family_of(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def request(i):
    return (json.dumps({"id": i, "op": "get", "key": "user:%d" % i}, separators=(",", ":")) + "\r\n").encode()


def reply(line):
    try:
        req = json.loads(line)
        ident = req.get("id")
    except ValueError:
        ident = None
    return (json.dumps({"id": ident, "ok": True, "value": "caf\u00e9 \"quoted\"\ttab"}, separators=(",", ":"), ensure_ascii=False) + "\r\n").encode()


def read_line(sock, buffer):
    """Reads one CRLF-terminated line (bounded to 64 KiB); returns (line, rest) or (None, rest) at EOF."""
    while b"\r\n" not in buffer:
        if len(buffer) > 65536:
            raise RuntimeError("line too long")
        chunk = sock.recv(4096)
        if not chunk:
            return None, buffer
        buffer += chunk
    line, _, rest = buffer.partition(b"\r\n")
    return line, rest


def tcp(args):
    fam = family_of(args.host)
    server = socket.socket(fam, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((args.host, args.port))
    server.listen(1)
    server.settimeout(TIMEOUT)
    errors = []

    def serve():
        try:
            conn, _ = server.accept()
            conn.settimeout(TIMEOUT)
            buffer = b""
            for _ in range(args.messages + 1):
                line, buffer = read_line(conn, buffer)
                if line is None:
                    break
                conn.sendall(reply(line))
            conn.close()
        except ConnectionResetError:
            pass  # expected for --close rst
        except Exception as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    thread = threading.Thread(target=serve)
    thread.start()
    client = socket.create_connection((args.host, args.port), timeout=TIMEOUT)
    buffer = b""
    for i in range(1, args.messages + 1):
        client.sendall(request(i))
        line, buffer = read_line(client, buffer)
        if line is None:
            raise RuntimeError("server closed early")
        time.sleep(0.01)
    if args.close == "rst":
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()
    else:
        client.shutdown(socket.SHUT_WR)
        client.settimeout(TIMEOUT)
        if client.recv(1) != b"":
            raise RuntimeError("expected EOF")
        client.close()
    thread.join(TIMEOUT * 2)
    server.close()
    if errors:
        raise errors[0]


def udp(args):
    fam = family_of(args.host)
    server = socket.socket(fam, socket.SOCK_DGRAM)
    server.bind((args.host, args.port))
    server.settimeout(TIMEOUT)
    client = socket.socket(fam, socket.SOCK_DGRAM)
    client.settimeout(TIMEOUT)
    for i in range(1, args.messages + 1):
        client.sendto(request(i), (args.host, args.port))
        data, peer = server.recvfrom(65536)
        server.sendto(reply(data.rstrip(b"\r\n")), peer)
        client.recvfrom(65536)
        time.sleep(0.01)
    client.close()
    server.close()


def sink(args):
    server = socket.socket(family_of(args.host), socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((args.host, args.port))
    server.listen(1)
    server.settimeout(20)
    conn, _ = server.accept()
    conn.settimeout(20)
    total = 0
    for _ in range(1_000_000):
        chunk = conn.recv(65536)
        if not chunk:
            break
        total += len(chunk)
    conn.close()
    server.close()
    print("sink received %d bytes" % total, file=sys.stderr)


def bulk(args):
    deadline = time.monotonic() + 10
    while True:
        try:
            client = socket.create_connection((args.host, args.port), timeout=20)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    payload = b"".join(request(i) for i in range(1, 100000))[: args.bytes]
    client.sendall(payload)
    client.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["tcp", "udp", "sink", "bulk"])
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--close", choices=["fin", "rst"], default="fin")
    parser.add_argument("--messages", type=int, default=3)
    parser.add_argument("--bytes", type=int, default=120000)
    args = parser.parse_args()
    {"tcp": tcp, "udp": udp, "sink": sink, "bulk": bulk}[args.mode](args)


if __name__ == "__main__":
    main()
