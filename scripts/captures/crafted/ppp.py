"""PPP control protocols inside PPPoE sessions with their options, as tcpdump 4.99.3's
print-ppp.c prints them (the options only with -v, their bytes again with -vv): LCP
Configure-Request/Ack/Nak/Reject with every option tcpdump decodes (Vend-Ext, MRU, ACCM,
Auth-Prot with PAP, CHAP and its algorithms, EAP and an unknown protocol, Qual-Prot, Magic-Num,
PFC, ACFC, Call-Back, MRRU, End-Disc of each class, Link-Disc), options it dumps (FCS-Alt,
beyond its table) and bogus lengths; IPCP (IP-Addrs, IP-Comp with VJ and RFC 3544 header
compression and its suboptions, IP-Addr, Home-Addr, DNS and NBNS servers, unknown, bogus);
IP6CP (Interface-ID, bogus, unknown); CCP (BSD-Comp, MVRCA, Deflate, Pred-1); BACP
(Favored-Peer); PAP (Auth-Req, Auth-ACK, Auth-NACK, short, longer than the packet) and CHAP
(Challenge, Response, Success, Fail, an unknown code, short). Also options cut by the capture.
"""
import struct

from craft import *

SESSION = 0x8864


def session(payload):
    return ether(struct.pack("!BBHH", 0x11, 0, 0x0011, len(payload)) + payload, SESSION)


def cp(proto, code, ident, options):
    return session(struct.pack("!HBBH", proto, code, ident, 4 + len(options)) + options)


def opt(kind, value=b""):
    return struct.pack("!BB", kind, 2 + len(value)) + value


def auth(proto, code, ident, body, length=None):
    return session(struct.pack("!HBBH", proto, code, ident, 4 + len(body) if length is None else length) + body)


LCP, IPCP, IP6CP, CCP, BACP, PAP, CHAP = 0xC021, 0x8021, 0x8057, 0x80FD, 0xC02B, 0xC023, 0xC223


def captures():
    lcp_all = (opt(0, bytes.fromhex("00000c01")) + opt(1, b"\x05\xd4") + opt(2, bytes.fromhex("000a0000"))
               + opt(3, b"\xc0\x23") + opt(4, b"\xc0\x25\x00\x00\x00\x64") + opt(5, bytes.fromhex("a1b2c3d4"))
               + opt(7) + opt(8) + opt(13, b"\x06") + opt(17, b"\x05\xdc") + opt(23, b"\x00\x2a"))
    end_disc = (opt(19, b"\x00") + opt(19, b"\x01\x01\x02") + opt(19, b"\x02\xc0\x00\x02\x01")
                + opt(19, b"\x03\x02\x00\x00\x00\x00\x0a") + opt(19, b"\x04\x01\x02\x03\x04") + opt(19, b"\x05\x31\x32") + opt(19, b"\x09"))
    packets = [
        cp(LCP, 1, 1, lcp_all),
        cp(LCP, 2, 1, lcp_all),
        cp(LCP, 1, 2, opt(3, b"\xc2\x23\x05") + opt(3, b"\xc2\x23\x80") + opt(3, b"\xc2\x23\x81") + opt(3, b"\xc2\x23\x07")
           + opt(3, b"\xc2\x27") + opt(3, b"\xc0\x27") + opt(3, b"\xc1\x23") + opt(3, b"\x12\x34\x56")),
        cp(LCP, 3, 2, opt(3, b"\xc0\x23") + opt(4, b"\x12\x34") + opt(13, b"\x05") + end_disc),
        cp(LCP, 4, 3, opt(9, b"\x01") + opt(40, b"\x01\x02") + opt(30, b"") + opt(12, b"\x00\x01")),
        # Bogus lengths: MRU of 3, ACCM of 4, Magic-Num of 4 (stops the list), Vend-Ext short.
        cp(LCP, 1, 4, opt(1, b"\x05") + opt(2, b"\x00\x00") + opt(0, b"\x00") + opt(5, b"\x00\x00") + opt(7)),
        cp(LCP, 1, 5, b"\x01\x01" + opt(7)),
        cp(LCP, 1, 6, opt(1, b"\x05\xd4") + b"\x05\x10\x00"),
        cp(LCP, 1, 7, opt(4, b"\xc0")),
        cp(LCP, 1, 8, opt(19, b"\x02\xc0\x00") + opt(19, b"\x03\x00")),
        cp(LCP, 1, 9, opt(23, b"\x00") + opt(17, b"\x00") + opt(13)),
        cp(LCP, 1, 10, b""),
        # IPCP.
        cp(IPCP, 1, 1, opt(1, bytes.fromhex("c0000201c0000202")) + opt(2, b"\x00\x2d\x0f\x01") + opt(3, bytes.fromhex("c0000201"))
           + opt(4, bytes.fromhex("c6336401")) + opt(129, bytes.fromhex("08080808")) + opt(130, bytes.fromhex("0a000001"))
           + opt(131, bytes.fromhex("08080404")) + opt(132, bytes.fromhex("0a000002"))),
        cp(IPCP, 3, 1, opt(2, b"\x00\x61" + bytes.fromhex("000f0010000a00ff0028") + b"\x01\x02" + b"\x02\x04\x00\x00") + opt(2, b"\x12\x34")),
        cp(IPCP, 4, 2, opt(2, b"\x00\x61\x00\x01") + opt(2, b"\x00\x61" + bytes(10) + b"\x01\x05\x00") + opt(80, b"\xab\xcd")),
        cp(IPCP, 1, 3, opt(1, b"\x00\x00") + opt(3, b"\x00") + opt(2, b"\x00")),
        cp(IPCP, 1, 4, opt(2, b"\x00\x61" + bytes(10) + b"\x00\x02")),
        # IP6CP.
        cp(IP6CP, 1, 1, opt(1, bytes.fromhex("0211223344556677")) + opt(2, b"\x00\x2d")),
        cp(IP6CP, 2, 1, opt(1, bytes.fromhex("0211")) + opt(1, bytes.fromhex("0211223344556677"))),
        # CCP and BACP.
        cp(CCP, 1, 1, opt(21, b"\x2f") + opt(24, b"\xe5\x03") + opt(26, b"\x78\x05") + opt(1, b"\x00") + opt(21) + opt(26, b"\x01")),
        cp(BACP, 1, 1, opt(1, bytes.fromhex("01020304")) + opt(1, b"\x01") + opt(2, b"\x09")),
        # PAP.
        auth(PAP, 1, 1, b"\x05alice\x06s3cret"),
        auth(PAP, 2, 1, b"\x07welcome"),
        auth(PAP, 3, 2, b"\x0bbad\x01password"),
        auth(PAP, 1, 3, b"\x01"),
        auth(PAP, 2, 4, b""),
        auth(PAP, 1, 5, b"\x05alice\x06s3cret", length=40),
        auth(PAP, 9, 6, b"\x00"),
        auth(PAP, 1, 7, b"\x09alice\x06s3cret"),
        session(struct.pack("!HB", PAP, 1)),
        # CHAP.
        auth(CHAP, 1, 1, b"\x10" + bytes(range(16)) + b"bras-1"),
        auth(CHAP, 2, 1, b"\x10" + bytes(range(16, 32)) + b"alice\x01"),
        auth(CHAP, 3, 1, b"Welcome in."),
        auth(CHAP, 4, 2, b"E=691 R=0"),
        auth(CHAP, 9, 3, b"xyz"),
        auth(CHAP, 1, 4, b"\x20" + bytes(4)),
        session(struct.pack("!HBB", CHAP, 1, 1)),
        session(struct.pack("!H", CHAP)),
    ]
    # Cut by the capture: inside an LCP option list, an IPCP address, a CHAP value.
    lcp = cp(LCP, 1, 11, lcp_all)
    ipcp = cp(IPCP, 1, 12, opt(3, bytes.fromhex("c0000201")) + opt(129, bytes.fromhex("08080808")))
    chap = auth(CHAP, 1, 13, b"\x10" + bytes(range(16)) + b"bras-1")
    cut = [Record(lcp, caplen=n) for n in (14 + 6 + 2 + 4 + 1, 14 + 6 + 2 + 4 + 7, 14 + 6 + 2 + 4 + 20)]
    cut += [Record(ipcp, caplen=n) for n in (14 + 6 + 2 + 4 + 4, 14 + 6 + 2 + 4 + 9)]
    cut += [Record(chap, caplen=n) for n in (14 + 6 + 2 + 4 + 8, 14 + 6 + 2 + 4 + 19)]
    return {"crafted-ppp.pcap": (1, packets + cut)}
