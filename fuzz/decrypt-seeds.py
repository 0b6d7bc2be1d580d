#!/usr/bin/env python3
"""Seeds for the decrypt fuzz target (fuzz/FuzzDecrypt.swift) from recorded TLS sessions:
for each PCAP with its KEYLOG beside it (NAME.pcap, NAME.keylog), the key log and every TCP
payload in capture order as a chunk (side 0 for the connection's SYN sender).
Usage: fuzz/decrypt-seeds.py OUTDIR FILE.pcap..."""
import os
import struct
import sys


def payloads(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    offset, client = 24, None
    while offset + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(endian + "IIII", data[offset:offset + 16])
        frame = data[offset + 16:offset + 16 + caplen]
        offset += 16 + caplen
        if len(frame) < 14 + 20 or frame[12:14] != b"\x08\x00":
            continue
        ip = frame[14:]
        header = (ip[0] & 15) * 4
        if ip[9] != 6:
            continue
        total = struct.unpack(">H", ip[2:4])[0]
        tcp = ip[header:total]
        if len(tcp) < 20:
            continue
        ports = tcp[0:4]
        flags = tcp[13]
        if flags & 0x02 and not flags & 0x10:
            client = ports
        payload = tcp[(tcp[12] >> 4) * 4:]
        if payload:
            yield (0 if ports == client else 1), payload


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        keylog_path = path[:-5] + ".keylog"
        keylog = open(keylog_path, "rb").read() if os.path.exists(keylog_path) else b""
        seed = struct.pack(">H", len(keylog)) + keylog
        for side, payload in payloads(path):
            for start in range(0, len(payload), 65535):
                piece = payload[start:start + 65535]
                seed += bytes([side]) + struct.pack(">H", len(piece)) + piece
        name = os.path.basename(path)[:-5]
        open(os.path.join(out, name), "wb").write(seed)


main()
