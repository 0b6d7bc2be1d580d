#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, from capture files.

Usage: fuzz/seeds.py FRAMES_DIR FILES_DIR REASSEMBLY_DIR CAPTURE...

FRAMES_DIR gets one seed per distinct packet in the input (classic pcap or pcapng, either byte
order): byte 0 is the link type's index in FrameFuzzer.linkTypes (fuzz/FuzzFrames.swift, same
order as LINK_INDEX below) plus 16 × a second option set (cycling 0-7), byte 1 is 0 (record
length = captured length), then the frame. The
IPv4/IPv6 payload of the first Ethernet frames is also rewrapped as NULL, LOOP, raw IP, IPv4,
IPv6, Linux SLL and SLL2 frames so every link type has seeds.
FILES_DIR gets each input (its first 16 KiB), plus its first 8 records rewritten as a
big-endian nanosecond pcap and as a pcapng file. Seeds are named by their SHA-1 (duplicates
collapse).
REASSEMBLY_DIR gets a few segment scripts for fuzz/FuzzReassembly.swift (its header describes
the 8 + 6n byte layout): a clean exchange, one with loss, reordering and retransmission, and
one that wraps around 2^32. Python 3 stdlib only.
"""
import hashlib
import os
import struct
import sys

LINK_INDEX = {0: 0, 1: 1, 101: 2, 108: 3, 113: 4, 228: 5, 229: 6, 276: 7}
UNKNOWN_INDEX = 8
MAX_FRAME = 4096
MAX_FILE_RECORDS = 8
REWRAP_PER_FILE = 24
MAX_FILE_BYTES = 16384


def read_capture(data):
    """[(linktype, seconds, fraction, caplen, len, frame)] from a pcap or pcapng; [] if neither."""
    if len(data) < 24:
        return []
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = "<" if magic[0] in (0xD4, 0x4D) else ">"
        link = struct.unpack(e + "I", data[20:24])[0] & 0x03FFFFFF
        out, pos = [], 24
        while pos + 16 <= len(data):
            sec, frac, caplen, length = struct.unpack(e + "IIII", data[pos:pos + 16])
            frame = data[pos + 16:pos + 16 + caplen]
            if caplen > 262144 or len(frame) < caplen:
                break
            out.append((link, sec, frac, caplen, length, frame))
            pos += 16 + caplen
        return out
    if magic == b"\x0a\x0d\x0d\x0a":
        out, links, pos, e = [], [], 0, "<"
        while pos + 12 <= len(data):
            btype = struct.unpack(e + "I", data[pos:pos + 4])[0]
            if btype == 0x0A0D0D0A:
                e = "<" if data[pos + 8:pos + 12] == b"\x4d\x3c\x2b\x1a" else ">"
                links = []
            blen = struct.unpack(e + "I", data[pos + 4:pos + 8])[0]
            if blen < 12 or pos + blen > len(data):
                break
            body = data[pos + 8:pos + blen - 4]
            if btype == 1 and len(body) >= 8:
                links.append(struct.unpack(e + "H", body[:2])[0])
            elif btype == 6 and len(body) >= 20:
                iface, hi, lo, caplen, length = struct.unpack(e + "IIIII", body[:20])
                if iface < len(links) and 20 + caplen <= len(body):
                    ts = hi << 32 | lo
                    out.append((links[iface], ts // 1000000, ts % 1000000, caplen, length, body[20:20 + caplen]))
            elif btype == 3 and len(body) >= 4 and links:
                length = struct.unpack(e + "I", body[:4])[0]
                frame = body[4:4 + length]
                out.append((links[0], 0, 0, len(frame), length, frame))
            pos += blen
        return out
    return []


def rewrap(frame):
    """The IP datagram inside an Ethernet frame under other link types: [(linktype, frame)]."""
    if len(frame) < 15:
        return []
    ethertype = frame[12:14]
    ip = frame[14:]
    if ethertype == b"\x08\x00":
        family, raw_only = 2, 228
    elif ethertype == b"\x86\xdd":
        family, raw_only = 10, 229
    else:
        return []
    bsd_family = 2 if family == 2 else 24
    sll = struct.pack("!HHH8s", 0, 772, 6, b"\0" * 8) + ethertype
    sll2 = ethertype + b"\0\0" + struct.pack("!IHBB8s", 1, 772, 0, 6, b"\0" * 8)
    return [
        (0, struct.pack("<I", bsd_family) + ip),
        (108, struct.pack(">I", bsd_family) + ip),
        (101, ip),
        (raw_only, ip),
        (113, sll + ip),
        (276, sll2 + ip),
    ]


def write_seed(directory, blob):
    name = hashlib.sha1(blob).hexdigest()
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(blob)


SEEDS_WRITTEN = [0]


def frame_seed(link, frame):
    SEEDS_WRITTEN[0] += 1
    options = SEEDS_WRITTEN[0] % 8
    return bytes((options << 4 | LINK_INDEX.get(link, UNKNOWN_INDEX), 0)) + frame[:MAX_FRAME]


def pcap_bytes(records, link, big_endian_nano):
    e = ">" if big_endian_nano else "<"
    parts = [struct.pack(e + "IHHiIII", 0xA1B23C4D if big_endian_nano else 0xA1B2C3D4, 2, 4, 0, 0, 262144, link)]
    for _, sec, frac, caplen, length, frame in records:
        fraction = frac * 1000 if big_endian_nano else frac
        parts.append(struct.pack(e + "IIII", sec & 0xFFFFFFFF, fraction & 0xFFFFFFFF, caplen, length))
        parts.append(frame)
    return b"".join(parts)


def pcapng_bytes(records, link):
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)
    parts = [block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)),
             block(1, struct.pack("<HHI", link, 0, 262144))]
    for _, sec, frac, caplen, length, frame in records:
        ts = sec * 1000000 + frac
        parts.append(block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, caplen, length) + frame))
    return b"".join(parts)


SYN, FIN, ACK, PSH, RST = 0x02, 0x01, 0x10, 0x08, 0x04


def segment(conn, from_server, flags, seq_offset, length, ack_offset=0, big=False, far=False, cut=0):
    b0 = conn | (4 if from_server else 0) | (8 if far else 0) | (0x10 if big else 0) | (0x20 if cut else 0)
    return struct.pack(">BBHBB", b0, flags, seq_offset, length, cut if cut else ack_offset)


def reassembly_seeds(directory):
    clean = [segment(0, False, SYN, 0, 0), segment(0, True, SYN | ACK, 0, 0, 0),
             segment(0, False, ACK, 1, 0)]
    seq_c, seq_s = 1, 1
    for _ in range(4):
        clean.append(segment(0, False, PSH | ACK, seq_c, 100))
        seq_c += 100
        clean.append(segment(0, True, PSH | ACK, seq_s, 40))
        seq_s += 40
    clean += [segment(0, False, FIN | ACK, seq_c, 0), segment(0, True, FIN | ACK, seq_s, 0),
              segment(0, False, ACK, seq_c + 1, 0)]
    messy = [segment(1, False, PSH | ACK, 1, 50), segment(1, False, PSH | ACK, 101, 50),
             segment(1, False, PSH | ACK, 51, 50), segment(1, False, PSH | ACK, 51, 50),
             segment(1, False, PSH | ACK, 201, 4, big=True), segment(1, True, ACK, 1, 0, ack_offset=2),
             segment(2, False, PSH | ACK, 1, 30, cut=20), segment(3, True, PSH | ACK, 5, 60),
             segment(2, False, RST, 31, 0), segment(1, False, PSH | ACK, 9, 9, far=True)]
    scripts = [
        struct.pack(">II", 1000, 5000) + b"".join(clean),
        struct.pack(">II", 77, 99) + b"".join(messy),
        struct.pack(">II", 0xFFFFFF00, 0xFFFFFFF0) + b"".join(clean + messy),
    ]
    for blob in scripts:
        write_seed(directory, blob)


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: seeds.py FRAMES_DIR FILES_DIR REASSEMBLY_DIR CAPTURE...")
    frames_dir, files_dir, reassembly_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    for directory in (frames_dir, files_dir, reassembly_dir):
        os.makedirs(directory, exist_ok=True)
    reassembly_seeds(reassembly_dir)
    for path in sys.argv[4:]:
        with open(path, "rb") as f:
            data = f.read()
        records = read_capture(data)
        write_seed(files_dir, data[:MAX_FILE_BYTES])
        rewrapped = 0
        for link, _, _, _, _, frame in records:
            write_seed(frames_dir, frame_seed(link, frame))
            if link == 1 and rewrapped < REWRAP_PER_FILE:
                rewrapped += 1
                for other, wrapped in rewrap(frame):
                    write_seed(frames_dir, frame_seed(other, wrapped))
        if records:
            head = records[:MAX_FILE_RECORDS]
            links = {r[0] for r in head}
            if len(links) == 1:
                link = head[0][0]
                write_seed(files_dir, pcap_bytes(head, link, False))
                write_seed(files_dir, pcap_bytes(head, link, True))
                write_seed(files_dir, pcapng_bytes(head, link))


if __name__ == "__main__":
    main()
