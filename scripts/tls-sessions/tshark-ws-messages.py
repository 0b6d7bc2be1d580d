"""tshark's WebSocket messages, one line each in capture order, from `tshark -T json
--no-duplicate-keys` of the WebSocket packets (tshark inflates permessage-deflate itself,
websocket.decompress being TRUE by default in Debian 12's 4.0):

  ws SRCPORT text|binary HEX      (websocket.payload.text as UTF-8; a binary message's data.data)

Control frames are left out; the sessions send no fragmented messages. Used by
scripts/tls-sessions/record.sh for NAME.ws.tshark.txt.

  python3 tshark-ws-messages.py TSHARK.json > NAME.ws.tshark.txt
"""
import json
import sys


def each(value):
    return value if isinstance(value, list) else [value]


for packet in json.load(open(sys.argv[1])):
    layers = packet["_source"]["layers"]
    port = each(layers["tcp"]["tcp.srcport"])[0]
    data = [each(d["data.data"])[0] for d in each(layers.get("data", [])) if isinstance(d, dict) and "data.data" in d]
    for frame in each(layers.get("websocket", [])):
        if not isinstance(frame, dict):
            continue
        opcode = each(frame.get("websocket.opcode", ["?"]))[0]
        payload = frame.get("websocket.payload")
        if opcode == "1":
            text = each(payload["websocket.payload.text"])[0] if isinstance(payload, dict) else ""
            print("ws %s text %s" % (port, text.encode().hex()))
        elif opcode == "2":
            print("ws %s binary %s" % (port, data.pop(0).replace(":", "") if data else ""))
