#!/usr/bin/env python3
"""Writes the crafted edge-case captures for the golden tests (Python 3 stdlib only).

  make-crafted.py [OUTDIR]      (default: Tests/Goldens)

Deterministic: the same script always writes the same bytes (fixed timestamps from
2023-11-14 22:13:20 UTC, 1 ms apart). Each file groups one topic; the comment on each packet
says which tcpdump 4.99.3 marker it exercises (see /work/shared/reference/tcpdump-output.md
and robustness.md §1.4). Ports here are never well-known (6969, 7070, ...) so tcpdump runs no
application decoder; the modules in crafted/ aim at the application printers on their ports.
Checksums are computed correctly unless a packet is about checksums.
After changing this file run scripts/regenerate-goldens.sh.
"""
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from craft import *  # noqa: E402,F403


# ---------------------------------------------------------------- the captures

def tcp_options():
    """Every TCP option kind tcpdump knows, and wrong lengths. SYNs (no ACK) print absolute seqs."""
    seq = 1000
    sets = [
        MSS + SACKOK + ts(1356699033, 0) + NOP + WS7,            # Linux SYN
        MSS + EOL + b"\0\0\0",                                   # eol stops parsing
        NOP * 4,                                                 # nops only
        opt(6, struct.pack("!I", 42)) + opt(7, struct.pack("!I", 43)) + NOP * 4,  # echo / echoreply
        opt(11, struct.pack("!I", 1)) + opt(12, struct.pack("!I", 2)) + opt(13, struct.pack("!I", 3)) + NOP * 2,  # cc, ccnew, ccecho
        pad4(opt(19, bytes(range(16)))),                         # md5
        opt(20, b"\x0f\x03"),                                    # scps
        opt(28, struct.pack("!H", 0x12D)),                       # uto minutes
        opt(28, struct.pack("!H", 0x12C)),                       # uto seconds
        pad4(opt(29, b"\x05\x06" + bytes.fromhex("00112233445566778899aabb"))),  # tcp-ao
        pad4(opt(30, b"\x00\x81" + bytes.fromhex("0102030405060708"))),          # mptcp capable v0 csum + key
        opt(30, b"\x01\x81"),                                    # mptcp capable v1 csum (SYN)
        pad4(opt(30, b"\x01\x01" + bytes.fromhex("1111111111111111") + bytes.fromhex("2222222222222222"))),  # capable v1 two keys
        pad4(opt(30, b"\x10\x02" + struct.pack("!II", 0xAABBCCDD, 0x01020304))),   # join SYN
        pad4(opt(30, b"\x20\x01" + struct.pack("!IIII", 1, 2, 3, 4))),            # dss ack+map
        pad4(opt(30, b"\x30\x01" + bytes([10, 0, 0, 1]))),       # add-addr v4
        pad4(opt(30, b"\x40\x01\x02")),                          # remove-addr
        pad4(opt(30, b"\x50\x01")),                              # prio
        pad4(opt(30, b"\x60\x00" + struct.pack("!Q", 12345))),   # fail
        pad4(opt(30, b"\x70\x00" + bytes(8))),                   # fastclose
        pad4(opt(30, b"\xf0\x00")),                              # unknown subtype
        pad4(opt(30, b"")),                                      # mptcp, no subtype byte
        pad4(opt(34, bytes.fromhex("0011223344556677"))),        # tfo cookie
        pad4(opt(34)),                                           # tfo cookiereq
        pad4(opt(34, b"\x01")),                                  # tfo (invalid)
        pad4(opt(254, b"\xf9\x89" + bytes.fromhex("a1b2c3d4"))), # exp-tfo cookie
        pad4(opt(254, b"\x12\x34\x00\x00")),                     # exp-1234
        pad4(opt(254, b"\xf9")),                                 # exp too short
        pad4(opt(99, bytes.fromhex("deadbeef"))),                # unknown-99 with data
        pad4(opt(99)),                                           # unknown-99 without data
        pad4(opt(2, struct.pack("!H", 1460) + b"\0\0")),         # mss[len 6]
        pad4(opt(2, b"\x05", 3)),                                # mss 3-byte
        pad4(opt(3, b"\x07\x00")),                               # wscale[len 4]
        pad4(opt(4, b"\x00")),                                   # sackOK[len 3]
        opt(8, bytes(8), 12) + bytes(2),                         # TS length 12
        pad4(opt(5, bytes(7))),                                  # sack invalid sack
        opt(5) + NOP * 2,                                        # sack 0 blocks
        opt(2, b"", 0) + MSS,                                    # [bad opt] length 0
        opt(2, b"", 1) + NOP * 2,                                # [bad opt] length 1
        NOP + NOP + opt(8, bytes(6), 40),                        # [bad opt] length > remaining
        NOP * 3 + b"\x02",                                       # kind without length byte
        NOP * 40,                                                # 40 bytes of options (doff 15)
    ]
    packets = []
    for i, options in enumerate(sets):
        packets.append(tcp4(40000 + i, 6969, seq + i, 0, SYN, win=64240, options=pad4(options)))
    # SACK blocks are relative to the bases set by the SYN-ACK, even on later packets.
    packets += [
        tcp4(41000, 6969, 5000, 0, SYN, options=MSS + SACKOK + ts(1, 0) + NOP + WS7),
        tcp4(6969, 41000, 9000, 5001, SYN | ACK, src=V4_B, dst=V4_A, options=MSS + SACKOK + ts(2, 1) + NOP + WS7),
        tcp4(41000, 6969, 5001, 9001, ACK, payload=JSON),
        tcp4(6969, 41000, 9001, 5001 + len(JSON), ACK, src=V4_B, dst=V4_A,
             options=NOP * 2 + opt(5, struct.pack("!IIIIII", 5100, 5200, 5300, 5400, 5500, 5600))),
        tcp4(6969, 41000, 9001, 5001, ACK, src=V4_B, dst=V4_A,
             options=NOP * 2 + opt(5, struct.pack("!IIIIIIII", 4000, 4100, 0, 0xFFFFFFFF, 9000, 9001, 5001, 5002))),
    ]
    return packets


def tcp_headers():
    """Flags, relative/absolute sequence numbers, and malformed or truncated TCP headers."""
    p = []
    # Handshake + data + FIN on one tuple (relative numbers), then a second SYN-ACK resets the bases.
    p.append(tcp4(42000, 6969, 100, 0, SYN, options=MSS + SACKOK + ts(10, 0) + NOP + WS7))
    p.append(tcp4(6969, 42000, 900, 101, SYN | ACK, src=V4_B, dst=V4_A))
    p.append(tcp4(42000, 6969, 101, 901, ACK))
    p.append(tcp4(42000, 6969, 101, 901, PSH | ACK, payload=JSON))
    p.append(tcp4(6969, 42000, 901, 101 + len(JSON), PSH | ACK, src=V4_B, dst=V4_A, payload=b'{"ok":true}\r\n'))
    p.append(tcp4(42000, 6969, 101 + len(JSON), 914, FIN | PSH | ACK, payload=b"bye\r\n"))
    p.append(tcp4(6969, 42000, 700, 5, SYN | ACK, src=V4_B, dst=V4_A))       # reused tuple: bases reset
    p.append(tcp4(42000, 6969, 5, 701, ACK))
    # Mid-stream (no handshake): the first ACK-bearing packet prints absolute.
    p.append(tcp4(43000, 7070, 144119398, 174417647, PSH | ACK, payload=JSON))
    p.append(tcp4(7070, 43000, 174417647, 144119398 + len(JSON), ACK, src=V4_B, dst=V4_A))
    p.append(tcp4(43000, 7070, 144119398 + len(JSON), 174417647, PSH | ACK, payload=JSON))
    # Sequence wrap-around.
    p.append(tcp4(44000, 7071, 0xFFFFFFF0, 0xFFFFFFFE, ACK, payload=b"x" * 32))
    p.append(tcp4(44000, 7071, 0x10, 0xFFFFFFFE, ACK, payload=b"y" * 4))
    # RST without ACK (absolute), RST+ACK (relative), RST with payload.
    p.append(tcp4(45000, 7072, 4294967043, 0, RST))
    p.append(tcp4(7072, 45000, 1, 2, ACK, src=V4_B, dst=V4_A))
    p.append(tcp4(7072, 45000, 43, 34, RST | ACK, src=V4_B, dst=V4_A))
    p.append(tcp4(45001, 7072, 1, 0, RST, payload=b"connection reset: reason text, longer than thirty bytes"))
    # Flag combinations: none, all, URG with pointer, ECE/CWR on SYN, NS bit only.
    p.append(tcp4(46000, 7073, 1, 0, 0))
    p.append(tcp4(46001, 7073, 1, 2, 0xFF, urg=3, payload=b"abc"))
    p.append(tcp4(46002, 7073, 1, 2, URG | ACK | PSH, urg=1, payload=b"!"))
    p.append(tcp4(46003, 7073, 1, 0, SYN | ECE | CWR))
    bare = tcp(46004, 7073, 1, 0, 0)
    p.append(ether(ipv4(bare[:12] + b"\x51\x00" + bare[14:])))             # NS bit only (checksum now wrong)
    p.append(tcp4(46005, 7073, 1, 0, ACK, win=0))
    # Malformed headers.
    p.append(tcp4(47000, 6969, 1, 0, ACK, doff=4, payload=b"12345678"))      # bad hdr length 16 - too short
    p.append(tcp4(47001, 6969, 1, 0, ACK, doff=0))                           # bad hdr length 0
    p.append(tcp4(47002, 6969, 1, 2, PSH | ACK, doff=15))                    # bad hdr length 60 - too long
    p.append(tcp4(47003, 6969, 1, 2, PSH | ACK, doff=8, payload=b"abcd"))    # too long, > 24
    full = tcp4(47004, 6969, 1, 2, PSH | ACK, payload=JSON)
    p.append(Record(full, caplen=14 + 20 + 10))                              # caplen ends in TCP header: [|tcp]
    p.append(Record(full, caplen=14 + 20 + 2))                               # caplen ends before the dst port
    p.append(Record(full, caplen=14 + 20))                                   # no TCP byte at all
    opts = tcp4(47005, 6969, 1, 2, ACK, options=NOP + NOP + ts(5, 6), payload=JSON)
    p.append(Record(opts, caplen=14 + 20 + 20 + 5))                          # cut inside TS: [|tcp]>
    syn = tcp4(47006, 6969, 1, 0, SYN, options=MSS + SACKOK + ts(5, 0) + NOP + WS7)
    p.append(Record(syn, caplen=14 + 20 + 20 + 6))                           # cut at option boundary (longjmp path)
    p.append(Record(full, caplen=len(full) - 10))                            # payload cut: header fine, length from IP
    # Ethernet padding after a short IP packet is dumped but not decoded.
    small = tcp4(47007, 6969, 1, 2, ACK)
    p.append(small + bytes(60 - len(small)))
    # IPv6 TCP: handshake + data on the IPv6 table.
    p.append(tcp6(48000, 6970, 77, 0, SYN, options=MSS + SACKOK + ts(1, 0) + NOP + WS7))
    p.append(tcp6(6970, 48000, 99, 78, SYN | ACK, src=V6_B, dst=V6_A, options=MSS + SACKOK + ts(2, 1) + NOP + WS7))
    p.append(tcp6(48000, 6970, 78, 100, ACK, payload=JSON))
    p.append(tcp6(48000, 6970, 78 + len(JSON), 100, FIN | ACK))
    return p


def ipv4_cases():
    t = tcp(40001, 6969, 1, 2, PSH | ACK, payload=JSON)
    p = []
    p.append(ether(ipv4(t, ihl=4)))                                          # bad-hlen 16
    p.append(ether(ipv4(t, ihl=0)))                                          # bad-hlen 0
    p.append(ether(ipv4(t, total_length=10)))                                # bad-len 10
    p.append(ether(ipv4(t, total_length=0)))                                 # bad-len 0 (TSO)
    p.append(ether(ipv4(t, total_length=20 + len(t) + 920)))                 # truncated-ip - 920 bytes missing!
    p.append(ether(ipv4(t, ihl=15)[:14 + 40]))                               # IHL beyond the frame
    p.append(Record(ether(ipv4(t)), caplen=14 + 12))                         # cut inside IP header: [|ip]
    p.append(Record(ether(ipv4(t)), caplen=10))                              # cut inside Ethernet: [|ether]
    p.append(ether(ipv4(t, version=6)))                                      # version 6 on the IPv4 ethertype
    p.append(ether(ipv4(t, version=5)))                                      # version 5
    # IP options: NOP+EOL, record route, timestamp, router alert, bad lengths.
    rr = bytes([7, 11, 4]) + bytes([10, 0, 0, 1]) + bytes(4)
    p.append(ether(ipv4(t, options=rr + b"\x01")))
    p.append(ether(ipv4(t, options=bytes([148, 4, 0, 0]))))                 # router alert
    p.append(ether(ipv4(t, options=bytes([68, 12, 5, 0]) + bytes(8))))      # timestamp
    p.append(ether(ipv4(t, options=bytes([7, 0, 0, 0]))))                   # RR bad length 0
    p.append(ether(ipv4(t, options=bytes([68, 255, 5, 0]))))                # timestamp bad length 255
    p.append(ether(ipv4(t, options=bytes([1, 1, 1, 0]))))                   # NOPs + EOL
    p.append(ether(ipv4(t, options=bytes([130, 1, 0, 0]))))                 # option length 1
    # Fragments: first (decoded as TCP) and non-first (ip-proto-6), UDP fragment.
    p.append(ether(ipv4(t[:24], frag=0x2000, ident=0x4242)))
    p.append(ether(ipv4(t[24:], frag=0x0003, ident=0x4242)))
    u = udp(40002, 6975, JSON)
    p.append(ether(ipv4(u[:16], proto=17, frag=0x2000, ident=0x4343)))
    p.append(ether(ipv4(u[16:], proto=17, frag=0x0002, ident=0x4343)))
    # Unknown protocols and UDP edge cases.
    p.append(ether(ipv4(b"hello, world!", proto=253)))                      # ip-proto-253 13
    p.append(ether(ipv4(b"", proto=59)))
    p.append(ether(ipv4(udp(40003, 6975, JSON), proto=17)))                 # UDP, length 48
    p.append(ether(ipv4(udp(40003, 6975, JSON, length=200), proto=17)))     # UDP, bad length 200 > 56
    p.append(ether(ipv4(udp(40003, 6975, JSON, length=4), proto=17)))       # UDP length < 8
    p.append(ether(ipv4(udp(40003, 6975, b"")[:6], proto=17)))              # truncated UDP header
    p.append(ether(ipv4(udp(40003, 6975, b""), proto=17)))                  # empty datagram
    # Loopback addresses and a 1500-byte packet (multi-line dump).
    p.append(ether(ipv4(tcp(40004, 6969, 1, 2, ACK, src=LO4, dst=LO4, payload=bytes(range(256)) * 5 + JSON * 3), src=LO4, dst=LO4), dst=bytes(6), src=bytes(6)))
    return p


def ipv6_cases():
    t = tcp(42001, 6970, 1, 2, PSH | ACK, payload=JSON, v6=True)
    def ext(nh, body):        # generic TLV extension header, body padded to 8n-2
        body = body + bytes((6 - len(body)) % 8)
        return bytes([nh, (len(body) + 2) // 8 - 1]) + body
    pad_opts = b"\x01\x04" + bytes(4)
    p = []
    p.append(ether(ipv6(ext(6, pad_opts) + t, nh=0), ETHERTYPE_IPV6))                 # HBH
    p.append(ether(ipv6(ext(60, pad_opts) + ext(6, pad_opts) + t, nh=0), ETHERTYPE_IPV6))  # HBH DSTOPT
    routing = bytes([60, 2, 0, 1]) + bytes(4) + V6_B                                  # type 0 routing, 1 segment left
    p.append(ether(ipv6(routing + ext(6, pad_opts) + t, nh=43), ETHERTYPE_IPV6))
    srh = bytes([6, 2, 4, 0, 0, 0, 0, 0]) + V6_B                                      # segment routing header
    p.append(ether(ipv6(srh + t, nh=43), ETHERTYPE_IPV6))
    frag_first = bytes([6, 0, 0, 1]) + struct.pack("!I", 0xABCD)                      # offset 0, M=1
    p.append(ether(ipv6(frag_first + t[:24], nh=44), ETHERTYPE_IPV6))
    frag_next = bytes([6, 0, 0, 24]) + struct.pack("!I", 0xABCD)                      # offset 24 (3*8), M=0
    p.append(ether(ipv6(frag_next + t[24:], nh=44), ETHERTYPE_IPV6))
    p.append(ether(ipv6(ext(0, pad_opts) + ext(6, pad_opts) + t, nh=60), ETHERTYPE_IPV6))  # HBH not first
    p.append(ether(ipv6(ext(60, pad_opts) * 5 + ext(6, pad_opts) + t, nh=60), ETHERTYPE_IPV6))  # six DSTOPTs
    p.append(ether(ipv6(ext(6, pad_opts)[:4], nh=60), ETHERTYPE_IPV6))                # [|dstopt]
    p.append(Record(ether(ipv6(frag_first + t, nh=44), ETHERTYPE_IPV6), caplen=14 + 40 + 5))  # [|frag6]
    p.append(ether(ipv6(bytes([6, 4]) + bytes(6), nh=0), ETHERTYPE_IPV6))             # HBH length beyond packet
    p.append(ether(ipv6(b"", nh=59), ETHERTYPE_IPV6))                                 # no next header
    p.append(ether(ipv6(t, plen=len(t) + 428), ETHERTYPE_IPV6))                       # truncated-ip6 - 428 bytes missing!
    p.append(ether(ipv6(t, plen=0), ETHERTYPE_IPV6))                                  # payload length 0
    p.append(Record(ether(ipv6(t), ETHERTYPE_IPV6), caplen=14 + 30))                  # cut inside IPv6 header
    p.append(ether(bytes([0x45]) + ipv6(t)[1:], ETHERTYPE_IPV6))  # version 4 on IPv6 ethertype
    p.append(ether(ipv6(b"\x00" * 13, nh=253), ETHERTYPE_IPV6))                       # unknown next header
    p.append(ether(ipv6(udp(42002, 6974, JSON, src=V6_A, dst=V6_B, v6=True), nh=17), ETHERTYPE_IPV6))
    # Address text forms: ::1, ::ffff:a.b.c.d, ::a.b.c.d, longest zero run, fe80::.
    for src, dst in [
        (LO6, LO6),
        (bytes(10) + b"\xff\xff" + bytes([192, 0, 2, 1]), bytes(12) + bytes([192, 0, 2, 2])),
        (bytes.fromhex("20010db8000000010000000000000001"), bytes.fromhex("20010db8000000000001000000000001")),
        (bytes.fromhex("fe80000000000000021122fffe334455"), bytes.fromhex("ff020000000000000000000000000001")),
        (bytes.fromhex("20010db8aaaabbbbccccddddeeeeffff"), bytes.fromhex("00000000000000000000000000000000")),
    ]:
        p.append(ether(ipv6(tcp(42003, 6970, 1, 0, SYN, src=src, dst=dst, v6=True), src=src, dst=dst), ETHERTYPE_IPV6))
    return p


def icmp_cases():
    def icmp(kind, code, rest, body=b""):
        m = struct.pack("!BBH", kind, code, 0) + rest + body
        return m[:2] + struct.pack("!H", csum(m)) + m[4:]
    def icmp6(kind, code, rest, body=b"", src=V6_A, dst=V6_B):
        m = struct.pack("!BBH", kind, code, 0) + rest + body
        c = csum(pseudo6(src, dst, 58, len(m)) + m)
        return m[:2] + struct.pack("!H", c) + m[4:]
    inner_udp = ipv4(udp(40005, 9, b"ping"), proto=17, src=V4_B, dst=V4_A)
    inner_tcp = ipv4(tcp(40006, 6969, 1, 0, SYN), src=V4_A, dst=V4_B)
    p = []
    p.append(ether(ipv4(icmp(8, 0, struct.pack("!HH", 4660, 1), b"A" * 48), proto=1)))
    p.append(ether(ipv4(icmp(0, 0, struct.pack("!HH", 4660, 1), b"A" * 48), proto=1, src=V4_B, dst=V4_A)))
    p.append(ether(ipv4(icmp(3, 3, bytes(4), inner_udp), proto=1)))           # port unreachable with inner UDP
    p.append(ether(ipv4(icmp(3, 1, bytes(4), inner_tcp[:28]), proto=1)))      # host unreachable, inner TCP cut
    p.append(ether(ipv4(icmp(3, 4, struct.pack("!HH", 0, 1400), inner_tcp[:28]), proto=1)))  # need to frag
    p.append(ether(ipv4(icmp(11, 0, bytes(4), inner_tcp[:28]), proto=1)))     # time exceeded
    p.append(ether(ipv4(icmp(5, 1, bytes([10, 0, 0, 254]), inner_tcp[:28]), proto=1)))  # redirect
    p.append(ether(ipv4(icmp(13, 0, struct.pack("!HHIII", 1, 2, 3, 4, 5)), proto=1)))    # timestamp request
    p.append(ether(ipv4(icmp(42, 0, bytes(4)), proto=1)))                     # unknown type
    p.append(ether(ipv4(icmp(8, 0, b"\x12")[:3], proto=1)))                   # truncated ICMP
    p.append(ether(ipv4(icmp(3, 3, bytes(4), inner_udp[:10]), proto=1)))      # inner IP truncated
    inner6 = ipv6(udp(42004, 9, b"ping", src=V6_B, dst=V6_A, v6=True), nh=17, src=V6_B, dst=V6_A)
    p.append(ether(ipv6(icmp6(128, 0, struct.pack("!HH", 4660, 1), b"hello"), nh=58), ETHERTYPE_IPV6))
    p.append(ether(ipv6(icmp6(129, 0, struct.pack("!HH", 4660, 1), b"hello", src=V6_B, dst=V6_A), nh=58, src=V6_B, dst=V6_A), ETHERTYPE_IPV6))
    p.append(ether(ipv6(icmp6(1, 4, bytes(4), inner6), nh=58), ETHERTYPE_IPV6))
    p.append(ether(ipv6(icmp6(2, 0, struct.pack("!I", 1280), inner6), nh=58), ETHERTYPE_IPV6))
    p.append(ether(ipv6(icmp6(3, 0, bytes(4), inner6), nh=58), ETHERTYPE_IPV6))
    p.append(ether(ipv6(icmp6(135, 0, bytes(4), V6_B + bytes([1, 1]) + MAC_A), nh=58), ETHERTYPE_IPV6))          # NS
    p.append(ether(ipv6(icmp6(136, 0, b"\x60\x00\x00\x00", V6_B + bytes([2, 1]) + MAC_B), nh=58), ETHERTYPE_IPV6))  # NA
    p.append(ether(ipv6(icmp6(133, 0, bytes(4)), nh=58), ETHERTYPE_IPV6))                                         # RS
    p.append(ether(ipv6(icmp6(134, 0, struct.pack("!BBHII", 64, 0, 1800, 0, 0)), nh=58), ETHERTYPE_IPV6))        # RA
    p.append(ether(ipv6(icmp6(200, 0, bytes(4)), nh=58), ETHERTYPE_IPV6))                                         # unknown type
    return p


def link_cases():
    p = []
    arp_req = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, MAC_A, V4_A, bytes(6), V4_B)
    arp_rep = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 2, MAC_B, V4_B, MAC_A, V4_A)
    p.append(ether(arp_req, ETHERTYPE_ARP, dst=b"\xff" * 6))
    p.append(ether(arp_rep, ETHERTYPE_ARP, dst=MAC_A, src=MAC_B))
    p.append(ether(arp_req + bytes(18), ETHERTYPE_ARP, dst=b"\xff" * 6))                  # padded to 60
    p.append(ether(arp_req[:20], ETHERTYPE_ARP))                                          # truncated ARP
    t = ipv4(tcp(40007, 6969, 1, 2, PSH | ACK, payload=JSON))
    p.append(ether(struct.pack("!HH", 100, ETHERTYPE_IP) + t, ETHERTYPE_VLAN))           # 802.1Q vlan 100
    p.append(ether(struct.pack("!HH", 0xA000 | 200, ETHERTYPE_IP) + t, ETHERTYPE_VLAN))  # priority 5, vlan 200
    p.append(ether(struct.pack("!HH", 10, ETHERTYPE_VLAN) + struct.pack("!HH", 20, ETHERTYPE_IP) + t, 0x88A8))  # QinQ
    p.append(ether(b"custom payload that nobody decodes" + bytes(2), 0x88B5))            # unknown ethertype
    p.append(ether(b"\x00" * 46, 0x0600))                                                # 802.3 length field (LLC)
    p.append(ether(b"", ETHERTYPE_IP))                                                   # empty IP
    return p


def with_link(linktype, ip_packets):
    """Wraps bare IP packets in the link header of `linktype`."""
    out = []
    for i, ip in enumerate(ip_packets):
        v6 = ip[0] >> 4 == 6
        if linktype == 0:      # NULL: host-order (here little-endian) AF value
            out.append(struct.pack("<I", 30 if v6 else 2) + ip)
        elif linktype == 108:  # LOOP: network-order AF value
            out.append(struct.pack("!I", 24 if v6 else 2) + ip)
        elif linktype == 101:  # RAW
            out.append(ip)
        elif linktype == 113:  # SLL: pkttype, hatype, halen, addr[8], protocol
            pkttype = [0, 4, 1, 2, 3][i % 5]
            out.append(struct.pack("!HHH8sH", pkttype, 772 if i % 2 == 0 else 1, 6, MAC_A + b"\0\0", ETHERTYPE_IPV6 if v6 else ETHERTYPE_IP) + ip)
        elif linktype == 276:  # SLL2: protocol, reserved, ifindex, hatype, pkttype, halen, addr[8]
            pkttype = [0, 4, 1, 2, 3, 7][i % 6]
            ifindex = 1 if i % 3 else 0x7FFF0001  # unknown ifindex prints "?"
            out.append(struct.pack("!HHIHBB8s", ETHERTYPE_IPV6 if v6 else ETHERTYPE_IP, 0, ifindex, 772, pkttype, 6, MAC_A + b"\0\0") + ip)
    return out


def link_type_ip_packets():
    return [
        ipv4(tcp(40008, 6969, 1, 0, SYN, options=MSS + SACKOK + ts(1, 0) + NOP + WS7)),
        ipv4(tcp(6969, 40008, 5, 2, SYN | ACK, src=V4_B, dst=V4_A), src=V4_B, dst=V4_A),
        ipv4(tcp(40008, 6969, 2, 6, PSH | ACK, payload=JSON)),
        ipv6(tcp(42005, 6970, 1, 0, SYN, v6=True)),
        ipv6(udp(42006, 6974, JSON, v6=True), nh=17),
        ipv4(udp(40009, 6975, b"hi"), proto=17),
    ]


def sll_unknown(linktype):
    if linktype == 113:
        return [struct.pack("!HHH8sH", 3, 1, 6, MAC_A + b"\0\0", 0x88B5) + b"abcdefg"]
    return [struct.pack("!HHIHBB8s", 0x88B5, 0, 1, 1, 3, 6, MAC_A + b"\0\0") + b"abcdefg"]


def records():
    """Record-level oddities: invalid headers, time conversion, bad fractions, big snaplen."""
    t = tcp4(40010, 6969, 1, 0, SYN)
    return [
        Record(t),
        Record(b"", caplen=0, length=0),                           # [Invalid header: caplen==0]
        Record(t, caplen=len(t), length=20),                       # len < caplen
        Record(t, sec=0x80000001),                                 # top bit: [Error converting time]
        Record(t, frac=2000000),                                   # usec >= 1e6
        Record(t, sec=0, frac=0),                                  # the epoch
        Record(t, caplen=len(t), length=len(t) + 1000),            # len > caplen (snaplen cut at the end)
        Record(t),
    ]


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "Tests", "Goldens")
    os.makedirs(out, exist_ok=True)
    files = {
        "crafted-tcp-options.pcap": (1, tcp_options()),
        "crafted-tcp-headers.pcap": (1, tcp_headers()),
        "crafted-ipv4.pcap": (1, ipv4_cases()),
        "crafted-ipv6.pcap": (1, ipv6_cases()),
        "crafted-icmp.pcap": (1, icmp_cases()),
        "crafted-link.pcap": (1, link_cases()),
        "crafted-null.pcap": (0, with_link(0, link_type_ip_packets())),
        "crafted-loop.pcap": (108, with_link(108, link_type_ip_packets())),
        "crafted-raw.pcap": (101, with_link(101, link_type_ip_packets()) + [ipv4(b"", ihl=4)[:8], b"\x00\x01"]),
        "crafted-sll.pcap": (113, with_link(113, link_type_ip_packets()) + sll_unknown(113)),
        "crafted-sll2.pcap": (276, with_link(276, link_type_ip_packets()) + sll_unknown(276)),
        "crafted-records.pcap": (1, records()),
    }
    # One module per application topic in crafted/: each has captures() -> {file: (linktype, packets)}.
    topics = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crafted")
    for module_name in sorted(os.listdir(topics)):
        if not module_name.endswith(".py"):
            continue
        spec = importlib.util.spec_from_file_location(module_name[:-3], os.path.join(topics, module_name))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name, value in module.captures().items():
            if name in files:
                raise SystemExit("make-crafted.py: %s is written twice (%s)" % (name, module_name))
            files[name] = value
    for name, (linktype, packets) in files.items():
        write_pcap(os.path.join(out, name), linktype, packets)
    # A 65535-byte IPv4 packet: with -XX the dump passes offset 0xffff (the 0x10000 line).
    big = ether(ipv4(tcp(40011, 6969, 1, 2, ACK, payload=bytes(i & 0xFF for i in range(65535 - 40)))))
    write_pcap(os.path.join(out, "crafted-big.pcap"), 1, [big])
    # Big-endian nanosecond file with the same TCP packets, and a file cut in the middle of a record.
    write_pcap(os.path.join(out, "crafted-be-nano.pcap"), 1, tcp_headers()[:8], nano=True, big_endian=True)
    path = os.path.join(out, "crafted-cut-file.pcap")
    write_pcap(path, 1, tcp_headers()[:4])
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:-30])
    print("wrote %d crafted captures to %s" % (len(files) + 3, out), file=sys.stderr)


if __name__ == "__main__":
    main()
