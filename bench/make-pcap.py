#!/usr/bin/env python3
"""Writes a large classic pcap (Ethernet, microsecond timestamps) for the capture benchmark.

Usage: bench/make-pcap.py OUT.pcap [packets] [seed]   (default 1,000,000 packets, seed 1)

The mix imitates a busy host: 192 TCP flows at a time (one in eight over IPv6), each opened with
SYN / SYN-ACK / ACK (MSS, SACK-permitted, timestamps, window scale), carrying data segments of
60-1500 IP bytes with the timestamp option and pure ACKs (one in four with a SACK block), and
closed with FIN / FIN / ACK, after which a new flow with new ports and sequence numbers takes its
place; plus UDP datagrams (one in ten packets). Ports are ones tcpdump has no application
decoder for, so every line ends at `length N` in both tools. IPv4 header checksums are right;
TCP and UDP checksums are zero (tcpdump only looks at them with -v). The output is the same for
the same arguments. Python 3 stdlib only; about 1M packets in a few seconds.
"""
import random
import struct
import sys

PACKETS_DEFAULT = 1_000_000
FLOWS = 192
MSS4, MSS6 = 1448, 1428          # payload of a full segment with the 12-byte timestamp option

rec_hdr = struct.Struct("<IIII")
ip4_hdr = struct.Struct("!BBHHHBBH4s4s")
ip6_hdr = struct.Struct("!IHBB16s16s")
tcp_hdr = struct.Struct("!HHIIBBHHH")
udp_hdr = struct.Struct("!HHHH")
ts_opt = struct.Struct("!BBBBII")             # nop, nop, TS, 10, val, ecr
sack_opt = struct.Struct("!BBBBII")           # nop, nop, SACK, 10, left, right
syn_opt = struct.Struct("!BBHBBBBIIBBBB")     # mss, sackOK, TS, nop, wscale (20 bytes)

ETH_SERVER = bytes.fromhex("02000000aa01")
ETH_CLIENT = bytes.fromhex("02000000bb02")
ETH4_C2S = ETH_SERVER + ETH_CLIENT + b"\x08\x00"
ETH4_S2C = ETH_CLIENT + ETH_SERVER + b"\x08\x00"
ETH6_C2S = ETH_SERVER + ETH_CLIENT + b"\x86\xdd"
ETH6_S2C = ETH_CLIENT + ETH_SERVER + b"\x86\xdd"

SERVER_PORTS = (6969, 7070, 9000, 5201, 8443, 6000)
UDP_PORTS = (6973, 40123, 51820, 47000)


def payload_pool(rng):
    """64 KiB of payload: text (HTTP-ish, JSON) and binary, sliced at random offsets."""
    text = (b"GET /api/v1/items?page=2 HTTP/1.1\r\nHost: example.test\r\nAccept: */*\r\n\r\n"
            b'{"id":1234,"name":"widget","tags":["a","b"],"price":12.5,"ok":true}\n'
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n")
    pool = bytearray()
    while len(pool) < 32768:
        pool += text
    pool += bytes(rng.getrandbits(8) for _ in range(32768))
    return bytes(pool + pool[:1500])        # any 1500-byte slice from [0, 65536) exists


def ip4_checksum(partial, total_length, ident):
    s = partial + total_length + ident
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def addr_sum(addr):
    return sum(int.from_bytes(addr[i:i + 2], "big") for i in range(0, len(addr), 2))


class Flow:
    __slots__ = ("v6", "caddr", "saddr", "cport", "sport", "cseq", "sseq", "cts", "sts",
                 "partial", "stage", "left", "ident")

    def __init__(self, rng, index, generation):
        self.v6 = index % 8 == 7
        if self.v6:
            self.caddr = bytes.fromhex("20010db8000000000000000000%06x" % (0x100 + index))
            self.saddr = bytes.fromhex("20010db800000000000000000000beef")
        else:
            self.caddr = bytes((10, 0, index >> 8 & 0xFF, index & 0xFF))
            self.saddr = bytes((192, 0, 2, 80))
            # Header words that do not change within the flow: version/IHL/TOS, flags (DF),
            # TTL/protocol, both addresses.
            self.partial = 0x4500 + 0x4000 + (64 << 8 | 6) + addr_sum(self.caddr) + addr_sum(self.saddr)
        self.cport = 32768 + (index * 211 + generation * 7919) % 28000
        self.sport = SERVER_PORTS[index % len(SERVER_PORTS)]
        self.cseq = rng.getrandbits(32)
        self.sseq = rng.getrandbits(32)
        self.cts = rng.getrandbits(31)
        self.sts = rng.getrandbits(31)
        self.ident = rng.getrandbits(16)
        self.stage = 0                     # 0 SYN, 1 SYN-ACK, 2 ACK, 3 data, 4.. closing
        self.left = rng.randint(10, 600)   # data/ACK packets before the close


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: make-pcap.py OUT.pcap [packets] [seed]")
    out_path = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else PACKETS_DEFAULT
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    pool = payload_pool(rng)
    randrange, rand = rng.randrange, rng.random

    generations = [0] * FLOWS
    flows = [Flow(rng, i, 0) for i in range(FLOWS)]
    seconds, micros = 1_700_000_000, 0
    chunks = []
    with open(out_path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        for n in range(count):
            micros += randrange(1, 120)
            if micros >= 1_000_000:
                seconds += 1
                micros -= 1_000_000

            if rand() < 0.1:                              # UDP datagram
                index = randrange(FLOWS)
                f = flows[index]
                length = randrange(8, 1200)
                udp = udp_hdr.pack(f.cport, UDP_PORTS[index % 4], 8 + length, 0)
                o = randrange(65536)
                data = pool[o:o + length]
                if f.v6:
                    frame = b"".join((ETH6_C2S, ip6_hdr.pack(0x60000000, 8 + length, 17, 64, f.caddr, f.saddr), udp, data))
                else:
                    total = 28 + length
                    f.ident = (f.ident + 1) & 0xFFFF
                    partial = f.partial - 6 + 17
                    ip = ip4_hdr.pack(0x45, 0, total, f.ident, 0x4000, 64, 17,
                                      ip4_checksum(partial, total, f.ident), f.caddr, f.saddr)
                    frame = b"".join((ETH4_C2S, ip, udp, data))
                chunks.append(rec_hdr.pack(seconds, micros, len(frame), len(frame)))
                chunks.append(frame)
                continue

            index = randrange(FLOWS)
            f = flows[index]
            stage = f.stage
            mss = MSS6 if f.v6 else MSS4
            length = 0
            if stage == 0:
                to_server, flags = True, 0x02
                opts = syn_opt.pack(2, 4, mss + 12, 4, 2, 8, 10, f.cts, 0, 1, 3, 3, 7)
                f.stage = 1
            elif stage == 1:
                to_server, flags = False, 0x12
                opts = syn_opt.pack(2, 4, mss + 12, 4, 2, 8, 10, f.sts, f.cts, 1, 3, 3, 7)
                f.stage = 2
            elif stage == 2:
                to_server, flags = True, 0x10
                opts = ts_opt.pack(1, 1, 8, 10, f.cts, f.sts)
                f.stage = 3
            elif stage == 3:
                to_server = rand() < 0.35
                r = rand()
                if r < 0.55:                               # data segment
                    flags = 0x18 if rand() < 0.5 else 0x10
                    if rand() < 0.3:
                        length = mss
                    else:
                        length = randrange(60, 1501) - (72 if f.v6 else 52)
                        if length < 1:
                            length = 1
                    opts = ts_opt.pack(1, 1, 8, 10, f.cts if to_server else f.sts, f.sts if to_server else f.cts)
                else:                                      # pure ACK, some with SACK
                    flags = 0x10
                    opts = ts_opt.pack(1, 1, 8, 10, f.cts if to_server else f.sts, f.sts if to_server else f.cts)
                    if rand() < 0.25:
                        peer = f.sseq if to_server else f.cseq
                        left = (peer + mss * randrange(1, 8)) & 0xFFFFFFFF
                        opts += sack_opt.pack(1, 1, 5, 10, left, (left + mss * randrange(1, 4)) & 0xFFFFFFFF)
                f.left -= 1
                if f.left <= 0:
                    f.stage = 4
            elif stage == 4 or stage == 5:                 # FIN from each side
                to_server, flags = stage == 4, 0x11
                opts = ts_opt.pack(1, 1, 8, 10, f.cts if to_server else f.sts, f.sts if to_server else f.cts)
                f.stage = stage + 1
            else:                                          # last ACK; the slot gets a new flow
                to_server, flags = True, 0x10
                opts = ts_opt.pack(1, 1, 8, 10, f.cts, f.sts)
                generations[index] += 1
                flows[index] = Flow(rng, index, generations[index])

            if to_server:
                sport, dport, seq, ack = f.cport, f.sport, f.cseq, f.sseq
                f.cts = (f.cts + 1) & 0xFFFFFFFF
            else:
                sport, dport, seq, ack = f.sport, f.cport, f.sseq, f.cseq
                f.sts = (f.sts + 1) & 0xFFFFFFFF
            if flags == 0x02:
                ack = 0
            advance = length + (1 if flags & 0x03 else 0)
            if to_server:
                f.cseq = (seq + advance) & 0xFFFFFFFF
            else:
                f.sseq = (seq + advance) & 0xFFFFFFFF
            if flags == 0x02:
                window = 64240
            elif flags == 0x12:
                window = 65160
            else:
                window = 501 + randrange(0, 12)
            tcp = tcp_hdr.pack(sport, dport, seq, ack, (20 + len(opts)) << 2, flags, window, 0, 0) + opts
            o = randrange(65536)
            data = pool[o:o + length]
            seg = len(tcp) + length
            if f.v6:
                ip = ip6_hdr.pack(0x60000000, seg, 6, 64, f.caddr if to_server else f.saddr,
                                  f.saddr if to_server else f.caddr)
                eth = ETH6_C2S if to_server else ETH6_S2C
            else:
                total = 20 + seg
                f.ident = (f.ident + 1) & 0xFFFF
                ip = ip4_hdr.pack(0x45, 0, total, f.ident, 0x4000, 64, 6, ip4_checksum(f.partial, total, f.ident),
                                  f.caddr if to_server else f.saddr, f.saddr if to_server else f.caddr)
                eth = ETH4_C2S if to_server else ETH4_S2C
            frame = b"".join((eth, ip, tcp, data))
            chunks.append(rec_hdr.pack(seconds, micros, len(frame), len(frame)))
            chunks.append(frame)
            if len(chunks) >= 65536:
                out.write(b"".join(chunks))
                chunks.clear()
        out.write(b"".join(chunks))


if __name__ == "__main__":
    main()
