"""tshark's HTTP/2 header blocks, one line each in capture order, from `tshark -T json
--no-duplicate-keys` of the HTTP/2 packets (plaintext h2c, or TLS decrypted with a key log):

  headers SRCPORT STREAM<TAB>NAME: VALUE<TAB>NAME: VALUE...     (http2.header)

Used by scripts/captures/make-h2c-sessions.sh and scripts/tls-sessions/record.sh; the tests
compare sockctl's `capture -r --json` header items with these lines.

  python3 tshark-http2-headers.py TSHARK.json > NAME.tshark.txt
"""
import json
import sys


def each(value):
    return value if isinstance(value, list) else [value]


for packet in json.load(open(sys.argv[1])):
    layers = packet["_source"]["layers"]
    port = each(layers["tcp"]["tcp.srcport"])[0]
    for http2 in each(layers.get("http2", [])):
        for frame in each(http2.get("http2.stream", [])):
            if not isinstance(frame, dict):
                continue
            stream = each(frame.get("http2.streamid", ["?"]))[0]
            if "http2.header" in frame:
                fields = ["%s: %s" % (each(h["http2.header.name"])[0], each(h["http2.header.value"])[0]) for h in each(frame["http2.header"])]
                print("headers %s %s\t%s" % (port, stream, "\t".join(fields)))
