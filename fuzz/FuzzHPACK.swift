/// libFuzzer target: HTTP/2 header blocks and gRPC messages through ``HTTP2StreamDecoder`` —
/// HPACK decoding (NIOHPACK) with one dynamic table for the whole input, CONTINUATION
/// assembly, padding and priority fields, PUSH_PROMISE, SETTINGS_HEADER_TABLE_SIZE, gRPC
/// length prefixes — and every item printed as text and as JSON.
///
/// Input layout: byte 0 — bit 0: the table is unknown (a capture that joined late); bits 1–7:
/// the size of the chunks the frames are fed in (1–128). Then records, each made into one
/// HTTP/2 frame: a control byte (bits 0–3: the frame type, modulo 10; bits 4–7: the flags
/// END_STREAM/ACK, END_HEADERS, PADDED, PRIORITY as 0x01, 0x04, 0x08, 0x20), a stream byte
/// (1, 3, 5 or 0 by its low bits; SETTINGS on stream 0 carries the other direction's
/// HEADER_TABLE_SIZE from the payload's first two bytes), a length byte (the payload's
/// length, cut to what is left), the payload — an HPACK fragment, DATA, or whatever the type
/// takes.
///
/// Besides crashes, ASan reports and timeouts, the target traps when an item's text holds a
/// byte outside tab and 0x20–0x7E, when its JSON is not one `{…}` line of printable ASCII with
/// only the escapes `\"`, `\\` and `\u00XX`, or when a direction says more than once that its
/// headers are not decoded.
///
/// Built by fuzz/run.sh together with every Swift file under Sources/PacketDecoding (one
/// module) over SwiftPM's build of NIOHPACK and what it imports.
enum HPACKFuzzer {
    static let flagBits: [UInt8] = [0x01, 0x04, 0x08, 0x20]

    static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        guard size >= 1 else { return }
        let input = UnsafeBufferPointer(start: data, count: size)
        let tableUnknown = input[0] & 1 != 0
        let chunk = Int(input[0] >> 1) + 1
        var stream: [UInt8] = tableUnknown ? [] : HTTP2StreamDecoder.preface
        var index = 1
        var tableSizes: [UInt32] = []
        while index + 3 <= size {
            let control = input[index]
            var flags: UInt8 = 0
            for (bit, flag) in flagBits.enumerated() where control >> (4 + bit) & 1 != 0 { flags |= flag }
            let type = (control & 0x0F) % 10
            let streamID: UInt32 = [1, 3, 5, 0][Int(input[index + 1] & 3)]
            let length = min(Int(input[index + 2]), size - index - 3)
            let payload = Array(input[(index + 3)..<(index + 3 + length)])
            index += 3 + length
            if type == 4, streamID == 0, payload.count >= 2 {
                tableSizes.append(UInt32(payload[0]) << 8 | UInt32(payload[1]))
            }
            stream += [UInt8(length >> 16), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
                       0, 0, 0, UInt8(streamID)] + payload
        }
        var decoder = HTTP2StreamDecoder(client: !tableUnknown, tableUnknown: tableUnknown)
        for size in tableSizes { decoder.allowHeaderTable(of: size) }
        var notes = 0
        var offset = 0
        while offset < stream.count {
            let end = min(offset + chunk, stream.count)
            stream[offset..<end].withUnsafeBytes { bytes in
                decoder.consume(bytes) { item in
                    if case .http2HeadersNotDecoded = item { notes += 1 }
                    PrintedText.check(item)
                }
            }
            offset = end
        }
        guard notes <= 1 else { fatalError("a direction said \(notes) times that its headers are not decoded") }
        // The frame recogniser of a capture that joined late, on the same bytes.
        _ = stream.withUnsafeBytes { HTTP2StreamDecoder.looksLikeFrames($0) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHPACK(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    HPACKFuzzer.run(data, size)
    return 0
}
