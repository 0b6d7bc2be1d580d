#!/usr/bin/env python3
"""Writes a large classic pcap of application traffic for the capture benchmark: mostly DNS and
HTTP, the protocols `capture -v` decodes most often.

Usage: bench/make-app-pcap.py OUT.pcap [packets] [seed]   (default 1,000,000 packets, seed 1)

About half of the packets are DNS over UDP port 53 between clients and two resolvers (IPv4 and,
one in eight, IPv6): queries for A, AAAA, MX, TXT, SRV and PTR with EDNS0, answers with CNAME
chains, compression pointers and several records; NXDOMAIN now and then. About 45 % are HTTP/1.1
on ports 80 and 8080: each connection opens with SYN / SYN-ACK / ACK, carries one to three
request/response exchanges (GET or POST with headers; 200, 301 or 404 responses with headers and
a body over one to three segments, acknowledged), and closes with FIN / FIN / ACK. About 1 %
are NTP client/server packets. IP, TCP and UDP checksums are right (tcpdump and sockctl verify them
with -v). Ethernet link type, microsecond timestamps. The output is the same for the same
arguments. Python 3 stdlib only.
"""
import random
import struct
import sys


def csum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (~total) & 0xFFFF


MAC_A, MAC_B = bytes.fromhex("020000000001"), bytes.fromhex("020000000002")


class Writer:
    def __init__(self, path, limit):
        self.file = open(path, "wb")
        self.file.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        self.count = 0
        self.limit = limit
        self.usec = 1_700_000_000 * 1_000_000

    def full(self):
        return self.count >= self.limit

    def ip(self, src, dst, proto, payload, v6):
        if v6:
            pseudo = struct.pack("!16s16sIxxxB", src, dst, len(payload), proto)
            segment = self.fix(payload, proto, pseudo)
            packet = struct.pack("!IHBB16s16s", 0x60000000, len(segment), proto, 64, src, dst) + segment
            frame = MAC_B + MAC_A + b"\x86\xdd" + packet
        else:
            pseudo = struct.pack("!4s4sBBH", src, dst, 0, proto, len(payload))
            segment = self.fix(payload, proto, pseudo)
            header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(segment), self.count & 0xFFFF, 0x4000, 64, proto, 0, src, dst)
            header = header[:10] + struct.pack("!H", csum(header)) + header[12:]
            frame = MAC_B + MAC_A + b"\x08\x00" + header + segment
        self.usec += random.randint(5, 400)
        self.file.write(struct.pack("<IIII", self.usec // 1_000_000, self.usec % 1_000_000, len(frame), len(frame)) + frame)
        self.count += 1

    @staticmethod
    def fix(segment, proto, pseudo):
        where = 16 if proto == 6 else 6
        value = csum(pseudo + segment)
        if proto == 17 and value == 0:
            value = 0xFFFF
        return segment[:where] + struct.pack("!H", value) + segment[where + 2:]


def name(text):
    out = b""
    for label in text.split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


DOMAINS = ["www.example.com", "api.example.net", "cdn.example.org", "mail.example.com", "news.example.net",
           "static.example.org", "login.example.com", "images.example.net"]
TYPES = [(1, 0.55), (28, 0.25), (15, 0.06), (16, 0.05), (33, 0.04), (12, 0.05)]


def dns_pair(rng):
    ident = rng.randrange(65536)
    domain = rng.choice(DOMAINS)
    qtype = rng.choices([t for t, _ in TYPES], [w for _, w in TYPES])[0]
    qname = name(domain) if qtype != 12 else name("%d.2.0.192.in-addr.arpa" % rng.randrange(256))
    opt = b"\0" + struct.pack("!HHIH", 41, 1232, 0, 0)
    question = qname + struct.pack("!HH", qtype, 1)
    query = struct.pack("!HHHHHH", ident, 0x0100, 1, 0, 0, 1) + question + opt
    if rng.random() < 0.05:
        answer = struct.pack("!HHHHHH", ident, 0x8183, 1, 0, 1, 1) + question
        answer += b"\xc0\x0c" + struct.pack("!HHIH", 6, 1, 300, 0)[:-2]
        soa = name("ns1.example.com")[:-1] + b"\xc0\x0c" + b"\x0ahostmaster\xc0\x0c" + struct.pack("!IIIII", 2023, 3600, 600, 86400, 300)
        answer = answer + struct.pack("!H", len(soa)) + soa + opt
        return query, answer
    records = b""
    count = 0
    pointer = b"\xc0\x0c"
    if rng.random() < 0.4 and qtype in (1, 28):
        target = name("edge%d.cdn.example.net" % rng.randrange(50))
        records += pointer + struct.pack("!HHIH", 5, 1, 3600, len(target)) + target
        pointer = struct.pack("!H", 0xC000 | (12 + len(question) + len(records) - len(target)))
        count += 1
    for _ in range(rng.randint(1, 4)):
        if qtype == 1:
            data = bytes([198, 51, 100, rng.randrange(256)])
        elif qtype == 28:
            data = bytes.fromhex("20010db8000000000000000000") + bytes(rng.randrange(256) for _ in range(3))
        elif qtype == 15:
            data = struct.pack("!H", 10 * (count + 1)) + name("mx%d.example.com" % count)
        elif qtype == 16:
            text = b"v=spf1 ip4:198.51.100.0/24 include:_spf.example.net ~all"
            data = bytes([len(text)]) + text
        elif qtype == 33:
            data = struct.pack("!HHH", 10, 20, 5060 + count) + name("sip%d.example.com" % count)
        else:
            data = name("host%d.example.com" % rng.randrange(100))
        records += pointer + struct.pack("!HHIH", qtype, 1, rng.randrange(60, 86400), len(data)) + data
        count += 1
    answer = struct.pack("!HHHHHH", ident, 0x8180, 1, count, 0, 1) + question + records + opt
    return query, answer


def dns(writer, rng):
    v6 = rng.random() < 0.125
    client = bytes.fromhex("20010db8000000000000000000000a%02x" % rng.randrange(256)) if v6 else bytes([192, 0, 2, rng.randrange(1, 255)])
    server = bytes.fromhex("20010db8000000000000000000000035") if v6 else bytes([198, 51, 100, 53 + rng.randrange(2)])
    port = rng.randrange(32768, 61000)
    query, answer = dns_pair(rng)
    writer.ip(client, server, 17, struct.pack("!HHHH", port, 53, 8 + len(query), 0) + query, v6)
    if not writer.full():
        writer.ip(server, client, 17, struct.pack("!HHHH", 53, port, 8 + len(answer), 0) + answer, v6)


def tcp(sport, dport, seq, ack, flags, payload=b"", options=b""):
    offset = (20 + len(options)) // 4
    return struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, offset << 4, flags, 502, 0, 0) + options + payload


PATHS = ["/", "/index.html", "/api/v1/items?page=2", "/static/app.js", "/images/logo.png", "/login", "/missing"]
AGENTS = ["curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/120.0", "python-requests/2.31.0"]


def http(writer, rng):
    v6 = rng.random() < 0.125
    client = bytes.fromhex("20010db8000000000000000000000b%02x" % rng.randrange(256)) if v6 else bytes([192, 0, 2, rng.randrange(1, 255)])
    server = bytes.fromhex("20010db8000000000000000000000050") if v6 else bytes([198, 51, 100, 80])
    sport, dport = rng.randrange(32768, 61000), rng.choice((80, 80, 80, 8080))
    cseq, sseq = rng.randrange(1 << 32), rng.randrange(1 << 32)
    mss = b"\x02\x04\x05\xb4\x04\x02\x01\x01"
    send = lambda src, dst, payload: writer.ip(src, dst, 6, payload, v6)
    send(client, server, tcp(sport, dport, cseq, 0, 0x02, options=mss))
    send(server, client, tcp(dport, sport, sseq, cseq + 1, 0x12, options=mss))
    cseq += 1
    sseq += 1
    send(client, server, tcp(sport, dport, cseq, sseq, 0x10))
    for _ in range(rng.randint(1, 3)):
        if writer.full():
            return
        path = rng.choice(PATHS)
        if rng.random() < 0.2:
            body = b'{"id":%d,"name":"item","tags":["a","b"]}' % rng.randrange(10000)
            request = b"POST %s HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
                path.encode(), rng.choice(AGENTS).encode(), len(body), body)
        else:
            request = b"GET %s HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: %s\r\nAccept: */*\r\nAccept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n\r\n" % (
                path.encode(), rng.choice(AGENTS).encode())
        send(client, server, tcp(sport, dport, cseq, sseq, 0x18, request))
        cseq += len(request)
        status = b"404 Not Found" if path == "/missing" else (b"301 Moved Permanently" if rng.random() < 0.1 else b"200 OK")
        body = bytes(rng.randrange(32, 127) for _ in range(rng.choice((120, 900, 2400, 4000))))
        response = b"HTTP/1.1 %s\r\nServer: nginx/1.22.1\r\nDate: Tue, 14 Nov 2023 22:13:20 GMT\r\nContent-Type: text/html\r\nContent-Length: %d\r\nConnection: keep-alive\r\n\r\n" % (status, len(body)) + body
        for start in range(0, len(response), 1448):
            if writer.full():
                return
            chunk = response[start:start + 1448]
            send(server, client, tcp(dport, sport, sseq, cseq, 0x18 if start + 1448 >= len(response) else 0x10, chunk))
            sseq += len(chunk)
        if writer.full():
            return
        send(client, server, tcp(sport, dport, cseq, sseq, 0x10))
    for packet in ((client, server, tcp(sport, dport, cseq, sseq, 0x11)), (server, client, tcp(dport, sport, sseq, cseq + 1, 0x11)),
                   (client, server, tcp(sport, dport, cseq + 1, sseq + 1, 0x10))):
        if writer.full():
            return
        send(*packet)


def ntp(writer, rng):
    client = bytes([192, 0, 2, rng.randrange(1, 255)])
    server = bytes([198, 51, 100, 123])
    port = rng.randrange(32768, 61000)
    stamp = struct.pack("!II", 3_908_900_000 + rng.randrange(100000), rng.randrange(1 << 32))
    request = struct.pack("!BBbbII4s", 0x23, 0, 6, -20, 0, 0, b"\0\0\0\0") + bytes(24) + stamp
    writer.ip(client, server, 17, struct.pack("!HHHH", port, 123, 8 + len(request), 0) + request, False)
    if writer.full():
        return
    reply = struct.pack("!BBbbII4s", 0x24, 2, 6, -23, 0x0000_1A2B, 0x0000_3C4D, bytes([198, 51, 100, 1])) + stamp + stamp + stamp + stamp
    writer.ip(server, client, 17, struct.pack("!HHHH", 123, port, 8 + len(reply), 0) + reply, False)


def main():
    out = sys.argv[1]
    packets = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    random.seed(rng.random())
    writer = Writer(out, packets)
    while not writer.full():
        pick = rng.random()
        if pick < 0.88:
            dns(writer, rng)
        elif pick < 0.90:
            ntp(writer, rng)
        else:
            http(writer, rng)
    writer.file.close()


if __name__ == "__main__":
    main()
