"""DNS and mDNS: tcpdump 4.99.3's domain printer (print-domain.c) over UDP 53, UDP 5353 and TCP 53.

crafted-dns.pcap        every record type tcpdump decodes or names, flags, opcodes, rcodes
                        (extended through OPT), counts, EDNS options, TTLs for -vvv
crafted-dns-names.pcap  compression pointers (backward, forward, to themselves, loops, chains,
                        into the header), bad label types, bit-string labels, long names
crafted-dns-cut.pcap    one response and one query cut at every byte
crafted-dns-tcp.pcap    DNS over TCP: the length prefix whole, wrong, split and cut
crafted-mdns.pcap       mDNS: QU/QM questions, cache-flush answers, known answers, IPv6
"""
import struct

from craft import *  # noqa: F401,F403

MDNS_V4 = bytes([224, 0, 0, 251])
MDNS_V6 = bytes.fromhex("ff0200000000000000000000000000fb")
MDNS_MAC4 = bytes.fromhex("01005e0000fb")
MDNS_MAC6 = bytes.fromhex("3333000000fb")

A, NS, CNAME, SOA, PTR, HINFO, MX, TXT, AAAA, SRV, NAPTR, A6, DNAME, OPT = 1, 2, 5, 6, 12, 13, 15, 16, 28, 33, 35, 38, 39, 41
DS, RRSIG, NSEC, DNSKEY, NSEC3, UNSPECA, TSIG, ANY, URI = 43, 46, 47, 48, 50, 104, 250, 255, 256
QR, AA, TC, RD, RA, AD, CD = 0x8000, 0x0400, 0x0200, 0x0100, 0x0080, 0x0020, 0x0010


# ---------------------------------------------------------------- message building

def name(text):
    """Uncompressed wire name; '.' is the root."""
    if text in ("", "."):
        return b"\0"
    out = b""
    for label in text.rstrip(".").split("."):
        raw = label.encode("latin-1")
        out += bytes([len(raw)]) + raw
    return out + b"\0"


def lab(text):
    """Labels without the terminating root: to be followed by a compression pointer."""
    return name(text)[:-1]


def ptr(offset):
    return struct.pack("!H", 0xC000 | offset)


def header(ident, flags, qd=1, an=0, ns=0, ar=0):
    return struct.pack("!HHHHHH", ident, flags, qd, an, ns, ar)


def question(owner, qtype, qclass=1):
    return owner + struct.pack("!HH", qtype, qclass)


def rr(owner, rtype, rdata, rclass=1, ttl=300, rdlength=None):
    return owner + struct.pack("!HHIH", rtype, rclass, ttl, len(rdata) if rdlength is None else rdlength) + rdata


def opt_rr(size=4096, ext_rcode=0, do=False, options=b"", version=0):
    flags = 0x8000 if do else 0
    return b"\0" + struct.pack("!HHBBHH", OPT, size, ext_rcode, version, flags, len(options)) + options


def eopt(code, data=b""):
    return struct.pack("!HH", code, len(data)) + data


def cstr(text):
    raw = text if isinstance(text, bytes) else text.encode("latin-1")
    return bytes([len(raw)]) + raw


def message(ident, flags, questions=(), answers=(), authority=(), additional=(), counts=None):
    qd, an, ns, ar = counts if counts else (len(questions), len(answers), len(authority), len(additional))
    return header(ident, flags, qd, an, ns, ar) + b"".join(questions) + b"".join(answers) + b"".join(authority) + b"".join(additional)


def v4(i):
    return bytes([192, 0, 2, i])


def v6(i):
    return bytes.fromhex("20010db8000000000000000000000000")[:15] + bytes([i])


# ---------------------------------------------------------------- frames

def udp4(payload, sport=40000, dport=53, src=V4_A, dst=V4_B, mac=MAC_B, udp_length=None):
    return ether(ipv4(udp(sport, dport, payload, length=udp_length, src=src, dst=dst), proto=17, src=src, dst=dst), dst=mac)


def reply4(payload, dport=40000, **kw):
    return udp4(payload, sport=53, dport=dport, src=V4_B, dst=V4_A, mac=MAC_A, **kw)


def udp6(payload, sport=40000, dport=53, src=V6_A, dst=V6_B, mac=MAC_B):
    return ether(ipv6(udp(sport, dport, payload, src=src, dst=dst, v6=True), nh=17, src=src, dst=dst), ETHERTYPE_IPV6, dst=mac)


def tcp53(payload, seq=1, sport=40001, dport=53, src=V4_A, dst=V4_B, prefix=True):
    data = struct.pack("!H", len(payload)) + payload if prefix else payload
    return tcp4(sport, dport, seq, 1, PSH | ACK, src=src, dst=dst, payload=data)


def mdns4(payload, sport=5353, dport=5353):
    return udp4(payload, sport=sport, dport=dport, src=V4_A, dst=MDNS_V4, mac=MDNS_MAC4)


def mdns6(payload):
    return udp6(payload, sport=5353, dport=5353, src=bytes.fromhex("fe800000000000000000000000000010"), dst=MDNS_V6, mac=MDNS_MAC6)


WWW = name("www.example.com")
AT_WWW = ptr(12)          # the first question's name
EXAMPLE = ptr(16)         # "example.com" inside "www.example.com" at offset 12


def common_types():
    """Queries and answers of every type tcpdump decodes, and some it only names."""
    q = question(WWW, A)
    f = QR | RD | RA
    rsig = struct.pack("!HBBIIIH", A, 13, 3, 300, 1700003600, 1700000000, 4242) + name("example.com") + bytes(16)
    return [
        udp4(message(0x1234, RD, [q])),
        reply4(message(0x1234, f, [q], [rr(AT_WWW, A, v4(1)), rr(AT_WWW, A, v4(2))])),
        udp6(message(2, RD, [question(WWW, AAAA)])),
        udp6(message(2, f, [question(WWW, AAAA)], [rr(AT_WWW, AAAA, v6(1)), rr(AT_WWW, AAAA, bytes(16)),
                                                   rr(AT_WWW, AAAA, bytes(10) + b"\xff\xff" + v4(7))]), sport=53, dport=40000,
             src=V6_B, dst=V6_A, mac=MAC_A),
        reply4(message(3, f, [q], [rr(AT_WWW, CNAME, lab("web") + EXAMPLE), rr(ptr(45), A, v4(3))])),
        reply4(message(4, f | AA, [question(name("example.com"), NS)],
                       [rr(AT_WWW, NS, lab("ns1") + AT_WWW), rr(AT_WWW, NS, lab("ns2") + AT_WWW)],
                       [], [rr(ptr(41), A, v4(53)), rr(ptr(59), AAAA, v6(53))])),
        udp4(message(5, RD, [question(name("10.2.0.192.in-addr.arpa"), PTR)])),
        reply4(message(5, f, [question(name("10.2.0.192.in-addr.arpa"), PTR)], [rr(AT_WWW, PTR, name("host.example.net"))])),
        reply4(message(6, f, [question(name("example.com"), MX)],
                       [rr(AT_WWW, MX, struct.pack("!H", 10) + lab("mx1") + AT_WWW), rr(AT_WWW, MX, struct.pack("!H", 20) + name("mail.example.org"))])),
        reply4(message(7, f, [question(WWW, TXT)],
                       [rr(AT_WWW, TXT, cstr("v=spf1 -all") + cstr("") + cstr(b'quote " back\\ \x00\x07\x7f\x80\xff\n')),
                        rr(AT_WWW, TXT, cstr("runs past rdlength"), rdlength=5)])),
        reply4(message(8, QR | AA | RA | 3, [question(name("nx.example.com"), A)], [],
                       [rr(ptr(15), SOA, lab("ns1") + ptr(15) + lab("hostmaster") + ptr(15) + struct.pack("!IIIII", 2023111401, 7200, 3600, 1209600, 300))])),
        reply4(message(9, f, [question(name("_sip._tcp.example.com"), SRV)],
                       [rr(ptr(12), SRV, struct.pack("!HHH", 10, 60, 5060) + lab("sip") + ptr(22)),
                        rr(ptr(12), SRV, struct.pack("!HHH", 0, 0, 1) + b"\0")])),
        reply4(message(10, f, [question(name("example.com"), NAPTR)],
                       [rr(ptr(12), NAPTR, struct.pack("!HH", 100, 10) + cstr("u") + cstr("E2U+sip") + cstr("!^.*$!sip:info@example.com!") + b"\0")])),
        reply4(message(11, f | AD, [question(name("example.com"), DNSKEY)],
                       [rr(ptr(12), DNSKEY, struct.pack("!HBB", 257, 3, 13) + bytes(32)), rr(ptr(12), RRSIG, rsig),
                        rr(ptr(12), DS, struct.pack("!HBB", 4242, 13, 2) + bytes(32)), rr(ptr(12), NSEC, name("a.example.com") + b"\x00\x01\x40"),
                        rr(ptr(12), NSEC3, bytes(8)), rr(ptr(12), 51, bytes(5)), rr(ptr(12), 65280, b"private")])),
        reply4(message(12, f, [question(name("_http._tcp.example.com"), URI)],
                       [rr(ptr(12), URI, struct.pack("!HH", 10, 1) + b"http://www.example.com/"),
                        rr(ptr(12), URI, struct.pack("!HH", 1, 1))])),
        reply4(message(21, f, [question(name("_http._tcp.example.com"), URI)],
                       [rr(ptr(12), URI, struct.pack("!H", 7))])),                # URI shorter than its fixed fields, at the end
        reply4(message(13, f, [question(name("version.bind"), TXT, 3)], [rr(ptr(12), TXT, cstr("9.18"), rclass=3)])),
        udp4(message(14, 0, [question(WWW, ANY, 4), question(WWW, HINFO, 255), question(WWW, 99, 254)])),
        reply4(message(15, f, [question(name("a6.example.com"), A6)],
                       [rr(ptr(12), A6, b"\x00" + v6(6)), rr(ptr(12), A6, b"\x40" + bytes.fromhex("0000000000000042") + lab("prefix") + ptr(15)),
                        rr(ptr(12), A6, b"\x80" + name("all.prefix")), rr(ptr(12), A6, b"\xc8"), rr(ptr(12), A6, b"\x44" + bytes(8) + b"\0")])),
        reply4(message(16, f, [question(name("d.example.com"), DNAME)],
                       [rr(ptr(12), DNAME, name("example.net")), rr(ptr(12), A, b"\x01\x02", rdlength=2),
                        rr(ptr(12), UNSPECA, b"one long\x01string"), rr(ptr(12), A, b"\x01\x02", rdlength=2)])),
        reply4(message(17, f, [q], [rr(AT_WWW, A, v4(17))], [], [
            rr(name("key.example"), TSIG, name("hmac-sha256") + struct.pack("!HIH", 0, 1700000000, 300) + struct.pack("!H", 4) + b"MAC!" + struct.pack("!HHH", 17, 0, 0), rclass=255, ttl=0)])),
        reply4(message(18, f, [q], [rr(AT_WWW, A, v4(i)) for i in range(20, 44)])),
        reply4(message(19, f, [q], [rr(AT_WWW, A, v4(1), ttl=t) for t in (0, 59, 3600, 93784, 63072000 + 694861, 0xFFFFFFFF)])),
        reply4(message(20, f, [q], [], [], [rr(AT_WWW, 99, cstr("spf"), rclass=0x8001)])),
    ]


def flags_and_counts():
    """Opcodes, rcodes (with the OPT extended bits), header flags and odd section counts."""
    q = question(WWW, A)
    packets = [reply4(message(100 + rcode, QR | RA | rcode, [q])) for rcode in range(16)]
    packets += [
        reply4(message(129, QR | RA, [q], [], [], [opt_rr(1232, ext_rcode=1)])),          # 16: BadVers
        reply4(message(130, QR | RA | 0x1, [q], [], [], [opt_rr(1232, ext_rcode=1)])),      # 17: Resp17
        reply4(message(131, QR | RA | 0x5, [q], [], [], [opt_rr(1232, ext_rcode=1)])),      # 21: Resp21
        reply4(message(132, QR | RA | 0x7, [q], [], [], [opt_rr(1232, ext_rcode=1)])),      # 23: BadCookie
        reply4(message(133, QR | RA | 0xF, [q], [], [], [opt_rr(1232, ext_rcode=0xFF)])),   # Resp4095
        reply4(message(134, QR | RA, [q], [rr(AT_WWW, A, v4(1))], [rr(AT_WWW, NS, lab("ns") + AT_WWW)], [rr(AT_WWW, A, v4(2)), opt_rr(512, ext_rcode=2)])),
    ]
    for opcode in (1, 2, 3, 4, 5, 6, 9, 14, 15):
        packets.append(udp4(message(140 + opcode, opcode << 11 | RD, [q], counts=(1, 0, 0, 0))))
    packets += [
        udp4(message(160, 1 << 11, [], [rr(WWW, A, v4(9))], counts=(0, 1, 0, 0))),            # inverse query, one answer
        udp4(message(161, 1 << 11, [q], [], counts=(1, 0, 0, 0))),                              # inverse query, [1q] [0a]
        udp4(message(162, RD | CD | 0x0040, [q])),                                              # Z bit: [b2&3=...]
        udp4(message(163, 0x7FFF & ~0x7800, [q])),                                              # every query flag
        udp4(message(164, 0, [], counts=(0, 0, 0, 0))),                                         # no question
        udp4(message(165, RD, [q, question(name("mail.example.com"), MX)])),                    # two questions
        udp4(message(166, RD, [q], [rr(AT_WWW, A, v4(1))], [rr(AT_WWW, NS, lab("ns") + AT_WWW)], [rr(AT_WWW, A, v4(2))])),
        reply4(message(167, QR | AA | TC | AD, [q])),
        reply4(message(168, QR | RA, [], [rr(name("www.example.com"), A, v4(1))], counts=(0, 1, 0, 0))),
        reply4(message(169, QR | RA, [q, question(name("two.example"), AAAA)], [rr(AT_WWW, A, v4(1))])),
        udp4(message(170, RD, [question(WWW, A)], [], [], [opt_rr(4096, do=True)])),
        udp4(b"\x12\x34\x01\x00\x00"),                                                          # shorter than a header
        udp4(message(171, RD, [q]) + b"trailing", udp_length=8 + 12 + len(q)),                 # UDP length shorter than IP's
        reply4(message(172, QR | RA, [q], [rr(AT_WWW, A, v4(1))], counts=(1, 3, 0, 0))),        # more answers claimed
        reply4(message(173, QR | RA, [q], [], [], [rr(AT_WWW, A, v4(1))], counts=(1, 0, 2, 1))),
    ]
    return packets


def edns_options():
    """Every EDNS option tcpdump knows, valid and invalid."""
    q = question(WWW, A)
    sets = [
        [eopt(8, struct.pack("!HBB", 1, 24, 0) + v4(0)[:3])],                                    # ECS v4
        [eopt(8, struct.pack("!HBB", 2, 56, 48) + v6(0)[:7])],                                   # ECS v6
        [eopt(8, struct.pack("!HBB", 1, 0, 0))],                                                 # ECS 0.0.0.0/0/0
        [eopt(8, b"\x00\x01\x18"), eopt(8, struct.pack("!HBB", 3, 24, 0) + b"\0\0\0"),           # ECS invalid: short, family,
         eopt(8, struct.pack("!HBB", 1, 33, 0) + b"\0\0\0\0\0"), eopt(8, struct.pack("!HBB", 1, 24, 0) + b"\0\0")],  # too long, bad prefix
        [eopt(10, bytes(range(1, 9)))], [eopt(10, bytes(range(1, 25)))],                         # COOKIE client, client+server
        [eopt(10, bytes(7)), eopt(10, bytes(12)), eopt(10, bytes(41))],                          # COOKIE invalid lengths
        [eopt(11, struct.pack("!H", 1205)), eopt(11, struct.pack("!H", 0)), eopt(11, b"\x01")],  # KEEPALIVE
        [eopt(9, struct.pack("!I", 86400)), eopt(9, b"\0\0")],                                   # EXPIRE
        [eopt(12, bytes(37)), eopt(12)],                                                         # PADDING, empty option
        [eopt(14, struct.pack("!HHH", 20326, 19036, 1)), eopt(14, b"\x01\x02\x03")],            # KEY-TAG
        [eopt(5, bytes([8, 13, 15, 200])), eopt(6, bytes([1, 2, 4, 9])), eopt(7, bytes([1, 2]))],  # DAU DHU N3U
        [eopt(13, name("example.com"))], [eopt(13, b"\x03abc\xc0\x00")],                         # CHAIN, CHAIN with a pointer
        [eopt(3, b"ns1.example"), eopt(1, bytes(18)), eopt(2, struct.pack("!I", 7200))],         # NSID LLQ UL
        [eopt(16, b"\x00\x05"), eopt(17, b"\x00\x06"), eopt(65001, b"\xde\xad"), eopt(4)],      # CLIENT-TAG SERVER-TAG Opt N
    ]
    packets = [udp4(message(200 + i, RD | 0x0010, [q], [], [], [opt_rr(1232, do=i % 2 == 0, options=b"".join(s))]))
               for i, s in enumerate(sets)]
    packets += [
        reply4(message(230, QR | RA, [q], [rr(AT_WWW, A, v4(1))], [], [opt_rr(4096, options=eopt(10, bytes(range(16))))])),
        udp4(message(231, RD, [q], [], [], [opt_rr(512, options=eopt(10, bytes(8)) + b"\x00")])),   # option cut by rdlength
        udp4(message(232, RD, [q], [], [], [opt_rr(512, options=eopt(12, bytes(4)), version=1), opt_rr(1400)])),
    ]
    return packets


def names():
    """Compression pointers and label types, in answers (printed with -v) and questions."""
    f = QR | RA
    q = question(WWW, A)

    def answer(owner, rdata=v4(1), ident=300, rtype=A):
        return reply4(message(ident, f, [q], [rr(owner, rtype, rdata)]))

    long_label = "x" * 63
    return [
        answer(ptr(12), ident=300),                                            # plain backward pointer
        answer(ptr(16), ident=301),                                            # into the middle of a name
        answer(ptr(40), ident=302),                                            # forward pointer (past itself)
        answer(ptr(33), ident=303),                                            # points at itself
        answer(lab("a") + ptr(33), ident=304),                                # a.<itself>
        answer(b"\x01a" + ptr(12), rdata=v4(2), ident=305),         # label then pointer
        answer(ptr(0x3FFF), ident=306),                                        # far out of range
        answer(ptr(2), ident=307),                                             # into the header: the flags
        answer(ptr(5), ident=327),                                             # into the header: the counts
        reply4(message(308, f, [q], [rr(lab("b") + ptr(12), A, v4(1)), rr(lab("c") + ptr(33), A, v4(2)),
                                     rr(lab("d") + ptr(51), A, v4(3))])),     # pointer chain d -> c -> b -> www
        reply4(message(309, f, [q], [rr(ptr(33 + 16), A, v4(1)), rr(ptr(33), A, v4(2))])),  # loop: each points at the other
        reply4(message(310, f, [q], [rr(AT_WWW, CNAME, ptr(45)), rr(AT_WWW, MX, b"\x00\x01" + ptr(12))])),
        answer(b"\x05a\x00b.c" + name("d\x7fe\x80\xff"), ident=311),  # odd characters in labels
        answer(name(".".join([long_label] * 5)), ident=312),                   # over 255 characters
        answer(name(".".join([long_label] * 3 + ["y" * 62])), ident=313),      # exactly 255
        answer(b"\x80abc\x00", ident=314),                                     # reserved label type
        answer(b"\x42\x00", ident=315),                                        # extended label type 2
        answer(b"\x41\x08\xab\x00", ident=316),                                # bit-string label, 8 bits
        answer(b"\x41\x0c\xab\xcd\x00", ident=317),                            # 12 bits
        answer(b"\x41\x03\xe0\x00", ident=318),                                # 3 bits
        answer(b"\x41\x06\xfc" + name("example"), ident=319),                  # 6 bits then a label
        answer(b"\x41\x00" + bytes(range(32)) + b"\x00", ident=320),           # 0 = 256 bits
        udp4(message(321, RD, [question(b"\x80bad\x00", A)])),                 # bad label in a query's question
        udp4(message(322, RD, [question(b"\x41\x04\xf0\x00", A)])),            # bit-string label in a question
        udp4(message(323, RD, [question(ptr(12), A)])),                        # question pointing at itself
        reply4(message(324, f, [q], [rr(b"\x00", NS, b"\x00"), rr(b"\x00", PTR, ptr(12))])),
        reply4(message(325, f, [question(b"\xc0\x0c", A)], [rr(AT_WWW, A, v4(1))])),  # the question's own pointer
        reply4(message(326, f, [question(name("a.b"), A, 1)], [rr(ptr(12), A, v4(1))]) + b"\x03end"),
    ]


def cut_every_byte():
    """One response (question, answers, authority, OPT additional) and one query, cut at every byte."""
    response = message(400, QR | RA, [question(WWW, A)],
                       [rr(AT_WWW, CNAME, lab("w") + EXAMPLE), rr(ptr(33), A, v4(1))],
                       [rr(EXAMPLE, NS, lab("ns") + EXAMPLE)],
                       [opt_rr(1232, options=eopt(10, bytes(range(8))))])
    query = message(401, RD, [question(WWW, MX)], [], [], [opt_rr(1232, do=True)])
    packets = []
    frame = reply4(response)
    for cut in range(42, len(frame) + 1):
        packets.append(Record(frame, caplen=cut))
    frame = udp4(query)
    for cut in range(42, len(frame) + 1, 2):
        packets.append(Record(frame, caplen=cut))
    return packets


def over_tcp():
    """DNS over TCP 53: the 2-byte prefix must equal the segment's payload length."""
    q = message(500, RD, [question(WWW, A)], [], [], [opt_rr(1232, options=eopt(10, bytes(8)))])
    r = message(500, QR | RA, [question(WWW, A)], [rr(AT_WWW, A, v4(1)), rr(AT_WWW, A, v4(2))], [rr(EXAMPLE, NS, lab("ns") + EXAMPLE)], [opt_rr(1232)])
    big = message(501, QR | RA, [question(WWW, A)], [rr(AT_WWW, A, v4(i)) for i in range(40)])
    whole = struct.pack("!H", len(big)) + big
    return [
        tcp53(q),
        tcp4(53, 40001, 1, 1 + len(q) + 2, PSH | ACK, src=V4_B, dst=V4_A, payload=struct.pack("!H", len(r)) + r),
        tcp53(whole[:200], prefix=False, seq=100),                             # first part of a split message
        tcp53(whole[200:], prefix=False, seq=300),                             # its rest
        tcp53(q + struct.pack("!H", len(q)) + q, seq=500),                     # two messages in one segment
        tcp53(b"\x00", prefix=False, seq=700),                                 # one byte
        tcp53(b"\x00\x04\x00\x01\x00\x00", prefix=False, seq=701),             # a message shorter than a header
        Record(tcp53(q, seq=800), caplen=54 + 1),                              # cut inside the prefix
        Record(tcp53(q, seq=801), caplen=54 + 2 + 6),                          # cut inside the header
        Record(tcp53(r, seq=802), caplen=54 + 2 + 40),                         # cut inside the answers
        tcp6(40002, 53, 1, 1, PSH | ACK, payload=struct.pack("!H", len(q)) + q),
        tcp53(message(502, RD, [question(ptr(12), A)]), seq=900),              # pointer relative to after the prefix
    ]


def multicast():
    """mDNS on 5353: the class's top bit is QU in questions and cache-flush in records."""
    services = name("_services._dns-sd._udp.local")
    printer = name("Office Printer._ipp._tcp.local")
    host = name("printer.local")
    packets = [
        mdns4(message(0, 0, [question(services, PTR)])),
        mdns4(message(0, 0, [question(name("_ipp._tcp.local"), PTR, 0x8001), question(host, A, 0x8001), question(host, AAAA, 1)])),
        mdns4(message(0, 0, [question(name("_ipp._tcp.local"), PTR)], [rr(ptr(12), PTR, lab("Old Printer") + ptr(12), ttl=4500)])),
        mdns4(message(0, QR | AA, [], [
            rr(name("_ipp._tcp.local"), PTR, lab("Office Printer") + ptr(12), ttl=4500),
            rr(ptr(39), SRV, struct.pack("!HHH", 0, 0, 631) + host, rclass=0x8001, ttl=120),
            rr(ptr(39), TXT, cstr("txtvers=1") + cstr("pdl=application/pdf"), rclass=0x8001, ttl=4500),
            rr(ptr(74), A, v4(50), rclass=0x8001, ttl=120),
            rr(ptr(74), AAAA, v6(50), rclass=0x8001, ttl=120)], counts=(0, 5, 0, 0))),
        mdns4(message(0, QR | AA, [], [rr(printer, NSEC, ptr(12) + b"\x00\x05\x00\x00\x80\x00\x40", rclass=0x8001)], [], [
            opt_rr(0x8000 | 1440, options=eopt(4, bytes(14)))], counts=(0, 1, 0, 1))),
        mdns4(message(0, 0, [question(host, ANY, 0x8003)], [], [rr(ptr(12), A, v4(50), rclass=0x8003)])),   # probe: CHAOS with QU
        mdns4(message(0, 0, [question(host, A)]), sport=40005),               # one-shot query from another port
        mdns4(message(9, QR, [question(host, A, 0x8001)], [rr(ptr(12), A, v4(50), rclass=0x8001)]), sport=5353, dport=40005),
        udp4(message(10, RD, [question(host, A, 0x8001)]), sport=5353, dport=53),  # port 53 wins: no QU/QM
        mdns6(message(0, 0, [question(services, PTR, 0x8001)])),
        mdns6(message(0, QR | AA, [], [rr(host, AAAA, v6(50), rclass=0x8001, ttl=120)], counts=(0, 1, 0, 0))),
        Record(mdns4(message(0, QR | AA, [], [rr(host, A, v4(50), rclass=0x8001)], counts=(0, 1, 0, 0))), caplen=42 + 12 + 10),
    ]
    return packets


def captures():
    return {
        "crafted-dns.pcap": (1, common_types() + flags_and_counts() + edns_options()),
        "crafted-dns-names.pcap": (1, names()),
        "crafted-dns-cut.pcap": (1, cut_every_byte()),
        "crafted-dns-tcp.pcap": (1, over_tcp()),
        "crafted-mdns.pcap": (1, multicast()),
    }
