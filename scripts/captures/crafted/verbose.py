"""Crafted captures for tcpdump's -v, -vv and -vvv on the network and transport layers.

crafted-verbose-ip.pcap         IPv4 header group (ECN, flags, TTL 0, bad checksum), every IP option
                                and broken ones, options cut by the capture, nested IP; the IPv6
                                group (class, flow label), Hop-by-Hop and Destination options,
                                fragment and routing headers; ARP with -v.
crafted-verbose-transport.pcap  TCP and UDP checksums over IPv4 and IPv6 (correct, wrong, zero, not
                                all captured, in fragments, through source routes and routing
                                headers), -vv sequence numbers, resets with data.
crafted-verbose-icmp.pcap       ICMP checksums, error messages quoting their datagram (TCP, UDP,
                                ICMP, options, cut, broken), RFC 4884 extensions; ICMPv6
                                checksums, neighbour discovery with every option, MLD, RPL, node
                                information, router renumbering, mobile IPv6, cuts inside each.

Ports are never well-known (6969, 40000...) so no application printer runs.
"""
import struct

from craft import *  # noqa: F403

A1, A2, A3 = bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2]), bytes([192, 0, 2, 3])
R6 = bytes.fromhex("20010db8000000000000000000000099")
ARP_REQ = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1)


def _udp4(opts, payload=b"abcd", **kw):
    """UDP over IPv4 with IP options (checksum computed for the header's destination)."""
    return ether(ipv4(udp(40000, 6969, payload), proto=17, options=opts, **kw))


def _ip6(payload, nh, flow=0x60000000, **kw):
    header = ipv6(payload, nh=nh, **kw)
    return ether(struct.pack("!I", flow) + header[4:], ETHERTYPE_IPV6)


def _icmp(kind, code, rest, body=b"", good=True):
    m = struct.pack("!BBH", kind, code, 0) + rest + body
    c = csum(m) if good else 0x1234
    return m[:2] + struct.pack("!H", c) + m[4:]


def _icmp6(kind, code, rest, body=b"", src=V6_A, dst=V6_B, good=True):
    m = struct.pack("!BBH", kind, code, 0) + rest + body
    c = csum(pseudo6(src, dst, 58, len(m)) + m) if good else 0xBEEF
    return m[:2] + struct.pack("!H", c) + m[4:]


def _v6icmp(message, src=V6_A, dst=V6_B, hlim=255):
    header = ipv6(message, nh=58, src=src, dst=dst)
    header = header[:7] + bytes([hlim]) + header[8:]
    return ether(header, ETHERTYPE_IPV6)


def _ndopt(kind, body):
    """A neighbour-discovery option padded to 8-byte units."""
    data = bytes([kind, 0]) + body
    data += bytes((8 - len(data) % 8) % 8)
    return bytes([kind, len(data) // 8]) + data[2:]


def ip_cases():
    p = []
    # The (tos ...) group: ECN values, flags, TTL 0 (omitted), unknown protocol names.
    for tos in (0x00, 0x01, 0x02, 0x03, 0xB8):
        f = ipv4(udp(40000, 6969, b"ecn"), proto=17)
        p.append(ether(f[:1] + bytes([tos]) + f[2:10] + struct.pack("!H", csum(f[:1] + bytes([tos]) + f[2:10] + b"\0\0" + f[12:20])) + f[12:]))
    p.append(ether(ipv4(udp(40000, 6969, b"mf"), proto=17, frag=0x2000)))              # flags [+]
    p.append(ether(ipv4(udp(40000, 6969, b"df+mf"), proto=17, frag=0x6000)))           # flags [+, DF]
    p.append(ether(ipv4(b"rsvd", proto=17, frag=0xE005)))                               # all three, offset 40
    p.append(ether(ipv4(b"none", proto=17, frag=0x0000)))                               # flags [none]
    p.append(ether(ipv4(udp(40000, 6969, b"ttl0"), proto=17, ttl=0)))                   # no ttl
    for proto in (0, 2, 4, 8, 9, 41, 43, 44, 46, 47, 50, 51, 55, 62, 88, 89, 103, 108, 112, 113, 132, 135, 143, 253):
        p.append(ether(ipv4(b"\0" * 8, proto=proto, frag=0x0010)))                      # names (non-first fragment)
    bad = bytearray(ipv4(udp(40000, 6969, b"cksum"), proto=17))
    bad[10:12] = b"\x12\x34"
    p.append(ether(bytes(bad)))                                                         # bad cksum 1234 (->...)
    # IP options: every kind, pointers and lengths right and wrong.
    route = A1 + A2
    opts = [
        b"\x01\x01\x01\x00",                                    # NOP,NOP,NOP,EOL
        bytes([7, 11, 4]) + route + b"\x00",                    # RR, pointer at the first slot
        bytes([7, 11, 12]) + route + b"\x00",                   # RR, full
        bytes([7, 11, 0]) + route + b"\x00",                    # RR [bad ptr 0]
        bytes([7, 10, 5]) + route + b"\x00\x00",                # RR [bad length 10] [bad ptr 5]
        bytes([7, 2, 4]) + b"\x00",                             # RR [bad length 2]
        bytes([131, 11, 4]) + route + b"\x00",                  # LSRR
        bytes([137, 7, 8]) + A1 + b"\x01",                      # SSRR
        bytes([68, 12, 5, 0]) + struct.pack("!II", 1, 2),       # timestamp TSONLY
        bytes([68, 12, 13, 0]) + struct.pack("!II", 1, 2),      # TSONLY pointer at the end
        bytes([68, 12, 5, 1]) + A1 + struct.pack("!I", 3),      # TS+ADDR
        bytes([68, 12, 13, 0x31]) + A1 + struct.pack("!I", 4),  # TS+ADDR, 3 hops not recorded
        bytes([68, 12, 5, 3]) + A1 + struct.pack("!I", 5),      # PRESPEC
        bytes([68, 12, 5, 2]) + A1 + struct.pack("!I", 6),      # [bad ts type 2]
        bytes([68, 10, 6, 1]) + A1 + b"\0\0",                   # [bad length 10][bad ptr 6]
        bytes([68, 3, 5]) + b"\x00",                            # timestamp[bad length 3]
        bytes([148, 4, 0, 0]),                                  # RA
        bytes([148, 4, 0, 5]),                                  # RA value 5
        bytes([148, 3, 0]) + b"\x00",                           # RA [bad length 3]
        bytes([130, 4, 0, 0]),                                  # security
        bytes([82, 4, 0, 0]),                                   # traceroute
        bytes([99, 4, 0, 0]),                                   # unknown 99
        bytes([99, 1, 0, 0]),                                   # [bad length 1]
        bytes([99, 9, 0, 0]),                                   # length past the header
        bytes([0, 1, 1, 1]),                                    # EOL first
        b"\x01" * 40,                                           # 40 bytes of NOP
    ]
    for o in opts:
        p.append(_udp4(o))
    # Options cut by the capture: inside an address, at the option type, inside a timestamp.
    p.append(Record(_udp4(bytes([7, 11, 4]) + route + b"\x00"), caplen=14 + 20 + 6))
    p.append(Record(_udp4(bytes([7, 11, 4]) + route + b"\x00"), caplen=14 + 20 + 1))
    p.append(Record(_udp4(b"\x01\x01\x01\x01" + bytes([68, 12, 5, 1]) + A1 + struct.pack("!I", 1)), caplen=14 + 20 + 10))
    p.append(Record(_udp4(b"\x01\x01\x01\x00"), caplen=14 + 20 + 2))
    # Nested IPv4 in IPv4 and IPv6 in IPv4, each with its own -v header.
    p.append(ether(ipv4(ipv4(udp(40000, 6969, b"inner", src=A1, dst=A2), proto=17, src=A1, dst=A2, ttl=9), proto=4)))
    p.append(ether(ipv4(ipv6(udp(40000, 6969, b"inner6", src=V6_A, dst=V6_B, v6=True), nh=17), proto=41)))
    p.append(ether(ipv4(ipv4(b"", src=A1, dst=A2)[:12], proto=4)))                       # inner header cut
    # IPv6 header group: class, flow label, both, none.
    for flow in (0x60000000, 0x6B800000, 0x600ABCDE, 0x6FFFFFFF):
        p.append(_ip6(udp(40000, 6969, b"flow", src=V6_A, dst=V6_B, v6=True), 17, flow))
    # Hop-by-Hop and Destination options with -v.
    hbh_sets = [
        b"\x00\x00\x01\x02\x00\x00",                            # pad1, pad1, padn
        b"\x05\x02\x00\x00\x01\x00",                            # rtalert 0x0000, padn
        b"\x05\x02\x12\x34\x01\x00",                            # rtalert 0x1234
        b"\x3e\x04\xde\xad\xbe\xef",                            # unknown type 0x3e
        b"\xc2\x04\x00\x01\x00\x00",                            # jumbo with a payload length
        b"\x05\x03\x00\x00\x00\x00",                            # rtalert invalid len 3
        b"\x01\x07\x00\x00\x00\x00",                            # padn past the header
    ]
    for opts6 in hbh_sets:
        p.append(_ip6(bytes([17, 0]) + opts6 + udp(40000, 6969, b"hbh", src=V6_A, dst=V6_B, v6=True), 0))
    p.append(_ip6(bytes([17, 2]) + b"\xc9\x10" + V6_A + b"\x00\x01\x00\x01\x00\x01\x00\x00" + udp(40000, 6969, b"home", src=V6_A, dst=V6_B, v6=True), 60))  # homeaddr
    p.append(_ip6(bytes([17, 2]) + b"\xc9\x14" + V6_A + b"\x00\x01\x00\x44\x02\x11\x22" + udp(40000, 6969, b"subopt", src=V6_A, dst=V6_B, v6=True), 60))  # homeaddr sub-options
    p.append(_ip6(bytes([17, 0]) + b"\xc2\x04\x00\x01\x00\x00" + udp(40000, 6969, b"jd", src=V6_A, dst=V6_B, v6=True), 60))  # jumbo not hop-by-hop
    p.append(_ip6(bytes([17, 0]) + b"\x01\x04\x00\x00\x00\x00" + udp(40000, 6969, b"dst", src=V6_A, dst=V6_B, v6=True), 60))  # padn
    p.append(Record(_ip6(bytes([17, 1]) + b"\x01\x0c" + bytes(12) + udp(40000, 6969, b"cut", src=V6_A, dst=V6_B, v6=True), 60), caplen=14 + 40 + 10))
    # Fragment header: identification with -v; first and later fragments.
    p.append(_ip6(struct.pack("!BBHI", 17, 0, 0x0001, 0xCAFEF00D) + udp(40000, 6969, b"frag", src=V6_A, dst=V6_B, v6=True), 44))
    p.append(_ip6(struct.pack("!BBHI", 17, 0, 0x0100, 0x12345678) + b"later", 44))
    # Routing headers: type 0 (rsv=0x0 with -v), type 2, type 4 (flags=0x0), odd length, other types.
    p.append(_ip6(struct.pack("!BBBBI", 17, 2, 0, 1, 0) + R6 + udp(40000, 6969, b"rt0", dst=R6, src=V6_A, v6=True), 43))
    p.append(_ip6(struct.pack("!BBBBI", 17, 2, 2, 1, 0x5) + R6 + udp(40000, 6969, b"rt2", dst=R6, src=V6_A, v6=True), 43))
    p.append(_ip6(struct.pack("!BBBBBBH", 17, 4, 4, 1, 1, 0, 0x77) + R6 + V6_B + udp(40000, 6969, b"srh", dst=R6, src=V6_A, v6=True), 43))
    p.append(_ip6(struct.pack("!BBBBBBH", 17, 4, 4, 1, 0, 0x80, 0) + R6 + V6_B + udp(40000, 6969, b"srh2", dst=R6, src=V6_A, v6=True), 43))
    p.append(_ip6(struct.pack("!BBBBI", 17, 3, 0, 1, 0) + R6 + bytes(8) + udp(40000, 6969, b"odd", src=V6_A, dst=V6_B, v6=True), 43))
    p.append(_ip6(struct.pack("!BBBBI", 17, 0, 3, 0, 0) + udp(40000, 6969, b"type3", src=V6_A, dst=V6_B, v6=True), 43))
    # Mobility header (the last header ip6_print decodes), every message type, options with -v.
    def mh(kind, body, nh=59, length=None):
        data = bytes([nh, 0, kind, 0, 0, 0]) + body
        data += bytes((8 - len(data) % 8) % 8)
        return bytes([nh, (len(data) // 8 - 1) if length is None else length]) + data[2:]
    mobility = [
        mh(0, b"\x00\x00\x01\x00"),                                                  # BRR, padn
        mh(1, b"\x00\x00" + struct.pack("!II", 0x11223344, 0x55667788)),               # HoTI
        mh(2, b"\x00\x00" + struct.pack("!II", 1, 2)),                                 # CoTI
        mh(3, b"\x12\x34" + struct.pack("!IIII", 1, 2, 3, 4)),                         # HoT
        mh(4, b"\x00\x05" + struct.pack("!IIII", 5, 6, 7, 8)),                         # CoT
        mh(5, b"\x00\x07\xf0\x00\x00\x10" + b"\x00" + b"\x02\x02\x00\x01" + b"\x03\x10" + R6 + b"\x04\x04\x00\x01\x00\x02"
           + b"\x05\x0a" + bytes(10) + b"\x07\x00" + b"\x01\x00"),                         # BU with every option
        mh(6, b"\x01\x80" + struct.pack("!HH", 9, 100)),                               # BA with K
        mh(7, b"\x02\x00" + V6_A),                                                    # BE
        mh(9, b"\x00\x00"),                                                           # unknown type
        mh(5, b"\x00\x07", length=0) + bytes(8),                                      # too small for BU
        mh(5, b"\x00\x08\x00\x00\x00\x10\x02\x04\x00"),                              # refresh cut: (refresh: trunc)
    ]
    for message in mobility:
        p.append(_ip6(message, 135))
        p.append(_ip6(message + b"more", 135))                                         # tcpdump looks past the last option
    p.append(_ip6(mh(6, b"\x01\x00" + struct.pack("!HH", 9, 100)), 62))                 # old protocol number
    p.append(Record(_ip6(mh(5, b"\x00\x07\x80\x00\x00\x10"), 135), caplen=14 + 40 + 9))   # cut in the flags
    # ARP with -v: hardware and protocol types always, addresses of other sizes.
    p.append(ether(ARP_REQ + MAC_A + V4_A + bytes(6) + V4_B, ETHERTYPE_ARP, dst=b"\xff" * 6))
    p.append(ether(struct.pack("!HHBBH", 1, 0x0800, 6, 4, 2) + MAC_B + V4_B + MAC_A + V4_A, ETHERTYPE_ARP))
    p.append(ether(struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + MAC_A + V4_A + MAC_B + V4_B, ETHERTYPE_ARP))  # who-has (MAC)
    p.append(ether(struct.pack("!HHBBH", 1, 0x86DD, 6, 16, 1) + MAC_A + V6_A + bytes(6) + V6_B, ETHERTYPE_ARP))  # <wrong proto type>
    p.append(ether(struct.pack("!HHBBH", 1, 0x0800, 6, 6, 2) + MAC_A + bytes(6) + MAC_B + bytes(6), ETHERTYPE_ARP))  # <wrong len>
    p.append(ether(struct.pack("!HHBBH", 6, 0x0800, 0, 4, 3) + V4_A + V4_B, ETHERTYPE_ARP))  # no hardware address: <empty>
    p.append(ether(struct.pack("!HHBBH", 1, 0x0800, 6, 4, 8) + MAC_A + V4_A + MAC_B + V4_B, ETHERTYPE_ARP))  # inverse request
    p.append(ether(struct.pack("!HHBBH", 1, 0x0800, 6, 4, 4) + MAC_A + V4_A + MAC_B + V4_B, ETHERTYPE_ARP))  # reverse reply
    atm = struct.pack("!HHBBHBBBB", 19, 0x0800, 6, 0, 2, 4, 6, 0, 4) + MAC_A + V4_A + MAC_B + V4_B
    p.append(ether(atm, ETHERTYPE_ARP))                                                  # ATM ARP reply
    p.append(ether(struct.pack("!HHBBHBBBB", 19, 0x0800, 6, 0, 1, 4, 0, 0, 4) + MAC_A + V4_A + V4_B, ETHERTYPE_ARP))  # ATM request
    return p


def transport_cases():
    p = []
    # TCP checksums over IPv4: correct, wrong, not all captured, fragments, LSRR final destination.
    p.append(tcp4(40000, 6969, 1000, 0, SYN, options=MSS + SACKOK + ts(1, 0) + NOP + WS7))
    p.append(tcp4(6969, 40000, 5000, 1001, SYN | ACK, src=V4_B, dst=V4_A))
    p.append(tcp4(40000, 6969, 1001, 5001, ACK))                                          # -vv: seq on a pure ACK
    p.append(tcp4(40000, 6969, 1001, 5001, PSH | ACK, payload=JSON))
    wrong = bytearray(tcp4(40000, 6969, 1001 + len(JSON), 5001, PSH | ACK, payload=b"odd"))
    wrong[14 + 20 + 16:14 + 20 + 18] = b"\xde\xad"
    p.append(bytes(wrong))                                                                # incorrect -> 0x....
    p.append(Record(tcp4(40000, 6969, 1100, 5001, PSH | ACK, payload=JSON), caplen=14 + 20 + 20 + 10))  # not all captured
    p.append(ether(ipv4(tcp(40000, 6969, 1200, 5001, ACK, payload=b"frag"), frag=0x2000)))  # more fragments: no cksum
    p.append(ether(ipv4(tcp(40000, 6969, 1300, 5001, ACK, payload=b"lsrr", dst=A3), options=bytes([131, 7, 4]) + A3 + b"\x00")))
    p.append(ether(ipv4(tcp(40000, 6969, 1400, 5001, ACK, payload=b"ssrr", dst=A3), options=bytes([137, 11, 4]) + A1 + A3 + b"\x00")))
    p.append(ether(ipv4(tcp(40000, 6969, 1500, 5001, ACK, payload=b"rr"), options=bytes([7, 7, 4]) + A3 + b"\x00")))
    p.append(tcp4(40000, 6969, 1600, 5001, RST | ACK, payload=b"connection reset by peer because of a very long reason"))
    p.append(tcp4(40000, 6969, 1700, 0, RST, payload=b"short\x01\xff"))
    p.append(Record(tcp4(40000, 6969, 1800, 5001, RST | ACK, payload=b"cut reset data here"), caplen=14 + 40 + 5))
    p.append(tcp4(40000, 6969, 1900, 5001, FIN | ACK))
    p.append(tcp4(40000, 6969, 2000, 5001, URG | ACK, urg=3, payload=b"urg"))
    # TCP over IPv6: correct, wrong, extension headers, routing header final destination.
    p.append(tcp6(40000, 6969, 3000, 0, SYN))
    p.append(tcp6(6969, 40000, 7000, 3001, SYN | ACK, src=V6_B, dst=V6_A))
    p.append(tcp6(40000, 6969, 3001, 7001, PSH | ACK, payload=JSON))
    wrong6 = bytearray(tcp6(40000, 6969, 3001 + len(JSON), 7001, ACK, payload=b"x"))
    wrong6[14 + 40 + 16:14 + 40 + 18] = b"\x00\x01"
    p.append(bytes(wrong6))
    seg = tcp(40000, 6969, 3100, 7001, ACK, payload=b"hbh", src=V6_A, dst=V6_B, v6=True)
    p.append(ether(ipv6(bytes([6, 0, 1, 4, 0, 0, 0, 0]) + seg, nh=0), ETHERTYPE_IPV6))
    seg = tcp(40000, 6969, 3200, 7001, ACK, payload=b"rt", src=V6_A, dst=R6, v6=True)
    p.append(ether(ipv6(struct.pack("!BBBBI", 6, 2, 0, 1, 0) + R6 + seg, nh=43), ETHERTYPE_IPV6))
    seg = tcp(40000, 6969, 3300, 7001, ACK, payload=b"frag", src=V6_A, dst=V6_B, v6=True)
    p.append(ether(ipv6(struct.pack("!BBHI", 6, 0, 0, 7) + seg, nh=44), ETHERTYPE_IPV6))  # fragment header: no cksum
    p.append(Record(tcp6(40000, 6969, 3400, 7001, ACK, payload=JSON), caplen=14 + 40 + 24))
    # UDP over IPv4 (checksum only with -vv): ok, bad, zero, not all captured, fragment, LSRR.
    p.append(ether(ipv4(udp(40000, 6969, b"udp ok"), proto=17)))
    bad = bytearray(ether(ipv4(udp(40000, 6969, b"udp bad"), proto=17)))
    bad[14 + 20 + 6:14 + 20 + 8] = b"\x12\x34"
    p.append(bytes(bad))
    zero = bytearray(ether(ipv4(udp(40000, 6969, b"no cksum"), proto=17)))
    zero[14 + 20 + 6:14 + 20 + 8] = b"\x00\x00"
    p.append(bytes(zero))
    p.append(Record(ether(ipv4(udp(40000, 6969, b"cut payload"), proto=17)), caplen=14 + 20 + 8 + 3))
    p.append(ether(ipv4(udp(40000, 6969, b"fragment"), proto=17, frag=0x2000)))
    p.append(ether(ipv4(udp(40000, 6969, b"lsrr", dst=A3), proto=17, options=bytes([131, 7, 4]) + A3 + b"\x00")))
    p.append(ether(ipv4(udp(40000, 6969, b"long", length=20), proto=17)))               # UDP length past the IP payload
    p.append(ether(ipv4(udp(40000, 6969, b"short!!!", length=10), proto=17)))           # UDP length inside the payload
    # UDP over IPv6 (checksum with -v): ok, bad, zero, cut, through a Hop-by-Hop header and a routing header.
    p.append(ether(ipv6(udp(40000, 6969, b"udp6 ok", src=V6_A, dst=V6_B, v6=True), nh=17), ETHERTYPE_IPV6))
    bad6 = bytearray(ether(ipv6(udp(40000, 6969, b"udp6 bad", src=V6_A, dst=V6_B, v6=True), nh=17), ETHERTYPE_IPV6))
    bad6[14 + 40 + 6:14 + 40 + 8] = b"\xab\xcd"
    p.append(bytes(bad6))
    zero6 = bytearray(ether(ipv6(udp(40000, 6969, b"udp6 zero", src=V6_A, dst=V6_B, v6=True), nh=17), ETHERTYPE_IPV6))
    zero6[14 + 40 + 6:14 + 40 + 8] = b"\x00\x00"
    p.append(bytes(zero6))
    p.append(Record(ether(ipv6(udp(40000, 6969, b"udp6 cut", src=V6_A, dst=V6_B, v6=True), nh=17), ETHERTYPE_IPV6), caplen=14 + 40 + 10))
    p.append(ether(ipv6(bytes([17, 0, 1, 4, 0, 0, 0, 0]) + udp(40000, 6969, b"hbh", src=V6_A, dst=V6_B, v6=True), nh=0), ETHERTYPE_IPV6))
    p.append(ether(ipv6(struct.pack("!BBBBI", 17, 2, 0, 1, 0) + R6 + udp(40000, 6969, b"rt", dst=R6, src=V6_A, v6=True), nh=43), ETHERTYPE_IPV6))
    p.append(ether(ipv6(struct.pack("!BBBBBBH", 17, 2, 4, 0, 0, 0, 0) + R6 + udp(40000, 6969, b"srh", dst=R6, src=V6_A, v6=True), nh=43), ETHERTYPE_IPV6))
    # Odd payload lengths (the checksum pads the last byte).
    p.append(ether(ipv4(udp(40000, 6969, b"odd"), proto=17)))
    p.append(ether(ipv6(udp(40000, 6969, b"odd", src=V6_A, dst=V6_B, v6=True), nh=17), ETHERTYPE_IPV6))
    return p


def icmp_cases():
    p = []
    inner_udp = ipv4(udp(40005, 6969, b"ping", src=V4_B, dst=V4_A), proto=17, src=V4_B, dst=V4_A)
    inner_tcp = ipv4(tcp(40006, 6969, 1, 0, SYN), src=V4_A, dst=V4_B)
    inner_icmp = ipv4(_icmp(8, 0, struct.pack("!HH", 1, 1), b"x" * 8), proto=1, src=V4_A, dst=V4_B)
    inner_opts = ipv4(udp(40007, 6969, b"ro"), proto=17, options=bytes([148, 4, 0, 0]))
    echo = _icmp(8, 0, struct.pack("!HH", 7, 1), b"A" * 32)
    p.append(ether(ipv4(echo, proto=1)))
    p.append(ether(ipv4(_icmp(8, 0, struct.pack("!HH", 7, 2), b"A" * 32, good=False), proto=1)))  # wrong icmp cksum
    p.append(Record(ether(ipv4(echo, proto=1)), caplen=14 + 20 + 12))                    # not all captured: no verdict
    p.append(ether(ipv4(echo, proto=1, frag=0x2000)))                                    # fragment: no verdict
    # Error messages quote their datagram on a line of its own.
    p.append(ether(ipv4(_icmp(3, 3, bytes(4), inner_udp), proto=1)))                     # whole UDP datagram
    p.append(ether(ipv4(_icmp(3, 3, bytes(4), inner_udp[:28]), proto=1)))                # first 8 bytes of UDP
    p.append(ether(ipv4(_icmp(3, 1, bytes(4), inner_tcp[:28]), proto=1)))                # TCP cut: [|tcp]
    p.append(ether(ipv4(_icmp(3, 1, bytes(4), inner_tcp), proto=1)))                     # whole TCP segment: cksum
    p.append(ether(ipv4(_icmp(11, 0, bytes(4), inner_icmp), proto=1)))                   # ICMP in ICMP
    p.append(ether(ipv4(_icmp(12, 0, bytes([20, 0, 0, 0]), inner_opts[:40]), proto=1)))  # inner with an option
    p.append(ether(ipv4(_icmp(5, 1, A1, inner_udp[:28]), proto=1)))                      # redirect
    p.append(ether(ipv4(_icmp(4, 0, bytes(4), inner_udp[:28]), proto=1)))                # source quench
    p.append(ether(ipv4(_icmp(3, 3, bytes(4), inner_udp[:10]), proto=1)))                # inner header cut
    p.append(ether(ipv4(_icmp(3, 3, bytes(4), inner_udp[:2] + b"\x00\x10" + inner_udp[4:28]), proto=1)))  # inner length 16
    p.append(ether(ipv4(_icmp(3, 3, bytes(4), b"\x60" + inner_udp[1:28]), proto=1)))     # inner version 6
    p.append(ether(ipv4(_icmp(3, 3, bytes(4), inner_udp[:2] + b"\x01\x00" + inner_udp[4:28]), proto=1)))  # inner longer than quoted
    p.append(ether(ipv4(_icmp(3, 3, bytes(4)), proto=1)))                                # nothing quoted
    # RFC 4884 extensions after 128 bytes of quoted datagram.
    quoted = (inner_udp + bytes(128))[:128]
    mpls = struct.pack("!HBB", 8, 1, 1) + struct.pack("!I", (16 << 12) | (5 << 9) | (1 << 8) | 64)
    ifid = struct.pack("!HBB", 12, 2, 14) + bytes(range(8))
    for objects in (mpls, mpls + ifid, struct.pack("!HBB", 8, 1, 2) + b"\x01\x02\x03\x04", struct.pack("!HBB", 2, 5, 1)):
        ext = b"\x20\x00\x00\x00" + objects
        ext = ext[:2] + struct.pack("!H", csum(ext)) + ext[4:]
        p.append(ether(ipv4(_icmp(11, 0, bytes([0, 32, 0, 0]), quoted + ext), proto=1)))
    ext = b"\x20\x00\xff\xff" + mpls                                                     # wrong extension checksum
    p.append(ether(ipv4(_icmp(3, 1, bytes([0, 32, 0, 0]), quoted + ext), proto=1)))
    p.append(ether(ipv4(_icmp(3, 1, bytes(4), quoted + ext), proto=1)))                  # zero length field, wrong: none
    p.append(ether(ipv4(_icmp(12, 0, bytes([0, 32, 0, 0]), quoted + b"\x10\x00\x00\x00" + mpls), proto=1)))  # version 1
    p.append(Record(ether(ipv4(_icmp(11, 0, bytes([0, 32, 0, 0]), quoted + b"\x20\x00\x00\x00" + mpls), proto=1)), caplen=14 + 20 + 138))
    # ICMPv6: checksum verdicts.
    p.append(_v6icmp(_icmp6(128, 0, struct.pack("!HH", 9, 1), b"hello")))
    p.append(_v6icmp(_icmp6(128, 0, struct.pack("!HH", 9, 2), b"hello", good=False)))
    p.append(Record(_v6icmp(_icmp6(128, 0, struct.pack("!HH", 9, 3), b"hello")), caplen=14 + 40 + 6))
    inner6 = ipv6(udp(42004, 6969, b"ping", src=V6_B, dst=V6_A, v6=True), nh=17, src=V6_B, dst=V6_A)
    p.append(_v6icmp(_icmp6(1, 4, bytes(4), inner6)))
    p.append(_v6icmp(_icmp6(1, 9, bytes(4), inner6)))                                    # unknown code: hex with -v, not -vv
    p.append(_v6icmp(_icmp6(99, 0, bytes(4), b"data")))                                  # unknown type
    # Neighbour discovery with every option.
    lla = _ndopt(1, MAC_A)
    tla = _ndopt(2, MAC_B)
    prefix = bytes([3, 4, 64, 0xC0]) + struct.pack("!III", 2592000, 0xFFFFFFFF, 0) + bytes.fromhex("20010db8000100000000000000000000")
    mtu = bytes([5, 1, 0, 0]) + struct.pack("!I", 1500)
    rdnss = bytes([25, 5, 0, 0]) + struct.pack("!I", 600) + V6_A + V6_B
    names = b"\x07example\x03com\x00\x03lab\xc0\x08\x00"                                 # second name points back
    dnssl = _ndopt(31, b"\0\0" + struct.pack("!I", 300) + names)
    advint = bytes([7, 1, 0, 0]) + struct.pack("!I", 5000)
    hainfo = bytes([8, 1, 0, 0]) + struct.pack("!HH", 10, 1800)
    route1 = bytes([24, 1, 0, 0x08]) + struct.pack("!I", 0xFFFFFFFF)
    route2 = bytes([24, 2, 48, 0x18]) + struct.pack("!I", 60) + bytes.fromhex("20010db800020000")
    route3 = bytes([24, 3, 64, 0x10]) + struct.pack("!I", 60) + bytes.fromhex("20010db8000300000000000000000000")
    unknown = _ndopt(42, b"\xaa\xbb\xcc")
    redirected = _ndopt(4, bytes(6) + inner6[:16])
    ra = struct.pack("!BBHII", 64, 0xC8, 1800, 30000, 1000)
    p.append(_v6icmp(_icmp6(133, 0, bytes(4), lla), dst=bytes.fromhex("ff020000000000000000000000000002")))
    p.append(_v6icmp(_icmp6(134, 0, ra[:4], ra[4:] + lla + mtu + prefix + rdnss + dnssl + advint + hainfo + route1 + route2 + route3, src=V6_A, dst=V6_B)))
    p.append(_v6icmp(_icmp6(134, 0, struct.pack("!BBH", 0, 0, 0), bytes(8))))            # no flags, no options
    p.append(_v6icmp(_icmp6(135, 0, bytes(4), V6_B + lla)))
    p.append(_v6icmp(_icmp6(136, 0, b"\xe0\x00\x00\x00", V6_B + tla)))                   # router, solicited, override
    p.append(_v6icmp(_icmp6(136, 0, bytes(4), V6_B)))                                    # Flags [none]
    p.append(_v6icmp(_icmp6(137, 0, bytes(4), V6_B + R6 + tla + redirected)))
    p.append(_v6icmp(_icmp6(135, 0, bytes(4), V6_B + unknown + lla)))                    # unknown option: -v stops there
    p.append(_v6icmp(_icmp6(135, 0, bytes(4), V6_B + b"\x01\x00" + bytes(6))))            # zero option length
    p.append(_v6icmp(_icmp6(135, 0, bytes(4), V6_B + b"\x01\x04" + bytes(6))))            # option past the message
    p.append(_v6icmp(_icmp6(135, 0, bytes(4), V6_B + bytes([24, 4, 0, 0]) + bytes(28))))  # route info with bad length
    p.append(_v6icmp(_icmp6(135, 0, bytes(4), V6_B + _ndopt(31, b"\0\0" + struct.pack("!I", 1) + b"\x03bad\xc0\x20\x00"))))  # <BAD PTR>
    p.append(_v6icmp(_icmp6(135, 0, bytes(4), V6_B + _ndopt(31, b"\0\0" + struct.pack("!I", 1) + b"\x81x\x00"))))  # bad label type
    p.append(_v6icmp(_icmp6(135, 0, bytes(4), V6_B + _ndopt(31, b"\0\0" + struct.pack("!I", 1) + b"\x41\x0c\xab\xcd\x00"))))  # bit label
    p.append(_v6icmp(_icmp6(135, 0, bytes(4), V6_B + bytes([3, 1, 64, 0x20]) + bytes(4))))  # prefix info badlen
    p.append(_v6icmp(_icmp6(135, 0, bytes(4), V6_B + bytes([5, 2, 0, 0]) + struct.pack("!I", 9000) + bytes(8))))  # mtu bad option length
    p.append(Record(_v6icmp(_icmp6(134, 0, ra[:4], ra[4:] + lla + prefix)), caplen=14 + 40 + 16 + 8 + 10))
    # MLD: v1, v2 query (sources, flags, exponential codes), v2 report.
    group = bytes.fromhex("ff0e0000000000000000000000000101")
    p.append(_v6icmp(_icmp6(130, 0, struct.pack("!HH", 1000, 0), group), hlim=1))
    p.append(_v6icmp(_icmp6(131, 0, struct.pack("!HH", 0, 0), group), hlim=1))
    p.append(_v6icmp(_icmp6(130, 0, struct.pack("!HH", 0x8123, 0), group + struct.pack("!BBH", 0x0A, 0x9C, 2) + V6_A + V6_B), hlim=1))
    p.append(_v6icmp(_icmp6(130, 0, struct.pack("!HH", 100, 0), group + struct.pack("!BBH", 0x02, 125, 0)), hlim=1))
    p.append(_v6icmp(_icmp6(130, 0, struct.pack("!HH", 100, 0), group + struct.pack("!BBH", 0, 0, 5) + V6_A), hlim=1))  # too many sources
    records = struct.pack("!BBH", 4, 0, 0) + group + struct.pack("!BBH", 1, 0, 2) + group + V6_A + V6_B + struct.pack("!BBH", 9, 0, 0) + group
    p.append(_v6icmp(_icmp6(143, 0, struct.pack("!HH", 0, 3), records), hlim=1))
    p.append(_v6icmp(_icmp6(143, 0, struct.pack("!HH", 0, 2), records[:20]), hlim=1))     # fewer records than counted
    p.append(_v6icmp(_icmp6(143, 0, struct.pack("!HH", 0, 1), struct.pack("!BBH", 1, 0, 9) + group), hlim=1))  # too many sources
    # Mobile IPv6 and home agent discovery.
    p.append(_v6icmp(_icmp6(145, 0, struct.pack("!HH", 0x1234, 0), V6_A + V6_B)))
    p.append(_v6icmp(_icmp6(147, 0, struct.pack("!HH", 0x4321, 0xC000), prefix)))
    p.append(_v6icmp(_icmp6(146, 0, struct.pack("!HH", 0x0042, 0))))
    # RPL: DIO with options, DAO with and without DODAG id, DAO-ACK, secured, too short.
    dio = struct.pack("!BBHBBBB", 1, 0, 256, 0x88 | (1 << 3) | 2, 7, 0, 0) + group + b"\x00\x02\x03\x01\x02\x03"
    p.append(_v6icmp(_icmp6(155, 1, dio[:4], dio[4:])))
    dao = struct.pack("!BBBB", 42, 0xC0, 0, 3) + group + b"\x05\x02\xaa\xbb"
    p.append(_v6icmp(_icmp6(155, 2, dao[:4], dao[4:])))
    dao0 = struct.pack("!BBBB", 42, 0x00, 0, 4) + bytes(16)
    p.append(_v6icmp(_icmp6(155, 2, dao0[:4], dao0[4:])))
    ack = struct.pack("!BBBB", 43, 0x80, 11, 0) + group
    p.append(_v6icmp(_icmp6(155, 3, ack[:4], ack[4:])))
    p.append(_v6icmp(_icmp6(155, 1, bytes(4), bytes(8))))                                 # DIO too short
    p.append(_v6icmp(_icmp6(155, 0x81, bytes(4))))                                       # secured
    p.append(_v6icmp(_icmp6(155, 2, struct.pack("!BBBB", 42, 0x40, 0, 5), bytes(4))))     # DAO cut
    # Node information and router renumbering.
    p.append(_v6icmp(_icmp6(139, 0, struct.pack("!HH", 3, 0x003E), bytes(8) + V6_B)))
    p.append(_v6icmp(_icmp6(139, 0, struct.pack("!HH", 0, 0), bytes(8) + b"\0\0\0\0")))  # noop, invalid len
    p.append(_v6icmp(_icmp6(139, 0, struct.pack("!HH", 2, 0), bytes(8) + V6_B + b"xx")))  # invalid subject len
    p.append(_v6icmp(_icmp6(139, 1, struct.pack("!HH", 2, 0), bytes(8) + b"\x04host")))   # 03 draft name
    p.append(_v6icmp(_icmp6(140, 0, struct.pack("!HH", 3, 0x0002), bytes(8) + struct.pack("!I", 60) + V6_A)))
    p.append(_v6icmp(_icmp6(140, 0, struct.pack("!HH", 0, 0), bytes(8) + b"pad!")))      # noop, invalid length
    p.append(_v6icmp(_icmp6(140, 1, struct.pack("!HH", 0, 0), bytes(8) + b"pad!")))      # refused, invalid length
    use = struct.pack("!BBBBIIB3x", 64, 64, 0x80, 0x40, 0xFFFFFFFF, 3600, 0xC0) + bytes.fromhex("20010db8000400000000000000000000")
    match = struct.pack("!BBBBBBH", 1, 3 + 4, 1, 48, 32, 64, 0) + bytes.fromhex("20010db8000500000000000000000000")
    p.append(_v6icmp(_icmp6(138, 0, struct.pack("!I", 77), struct.pack("!BBHI", 1, 0xF8, 500, 0) + match + use)))
    p.append(_v6icmp(_icmp6(138, 1, struct.pack("!I", 78), struct.pack("!BBHI", 0, 0, 0, 9))))
    return p


def captures():
    return {
        "crafted-verbose-ip.pcap": (1, ip_cases()),
        "crafted-verbose-transport.pcap": (1, transport_cases()),
        "crafted-verbose-icmp.pcap": (1, icmp_cases()),
    }
