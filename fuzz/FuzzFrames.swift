/// libFuzzer target: one link-layer frame through ``PacketPrinter``, ``TransportSegment`` and
/// ``PacketJSON``.
///
/// Input layout: byte 0 picks the link type (bits 0–3: index into ``FrameFuzzer/linkTypes``,
/// modulo its count; `fuzz/seeds.py` writes seeds with the same order) and a second option set
/// (bits 4–6: index into ``FrameFuzzer/optionSets``); byte 1 shapes the record header (bits
/// 0–1: original length equal to, longer than, shorter than (invalid) the captured length, or 0;
/// bits 2–5: by how much; bit 6: an invalid timestamp fraction; bit 7: nanosecond precision);
/// the rest is the captured frame.
///
/// The frame is printed with `-X` and with the chosen option set, twice by each fresh printer
/// (the second time one second later, so relative sequence numbers and `-ttt`/`-ttttt` deltas
/// take their second-packet path); then parsed by `TransportSegment.parse` and written by
/// `PacketJSON.append`. Besides crashes, ASan reports and timeouts, the target traps when the
/// printed text has a byte outside tab, LF and 0x20–0x7E or does not end in LF, when a parsed
/// segment's non-empty payload range lies outside the frame or exceeds its wire payload length, or when
/// the JSON is not one `{…}` line of printable ASCII with balanced quotes.
///
/// Built by fuzz/run.sh together with every Swift file under Sources/PacketDecoding (one module, no import).
enum FrameFuzzer {
    static let linkTypes: [LinkType] = [
        .null, .ethernet, .raw, .loop, .linuxSLL, .ipv4, .ipv6, .linuxSLL2, LinkType(rawValue: 147),
    ]

    /// -X, -XX -e, -A -v --decode all, -x -tttt -S -v, -xx -e -ttt --nano, headers only -tt -vv,
    /// -AA -ttttt, -t -e -vvv --decode all.
    static let optionSets: [PrintOptions] = [
        PrintOptions(),
        PrintOptions(dump: .hexAndASCII, dumpIncludesLinkHeader: true, linkHeader: true),
        PrintOptions(dump: .ascii, verbosity: 1, views: .all),
        PrintOptions(dump: .hex, timestamps: .dateAndTime, absoluteSequenceNumbers: true, verbosity: 1),
        PrintOptions(dump: .hex, dumpIncludesLinkHeader: true, timestamps: .sincePrevious, nanoseconds: true, linkHeader: true),
        PrintOptions(dump: .none, timestamps: .unixSeconds, verbosity: 2),
        PrintOptions(dump: .ascii, dumpIncludesLinkHeader: true, timestamps: .sinceFirst),
        PrintOptions(dump: .none, timestamps: .none, linkHeader: true, verbosity: 3, views: .all),
    ]

    static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        guard size >= 2 else { return }
        let linkType = linkTypes[Int(data[0] & 0x0F) % linkTypes.count]
        let second = Int(data[0] >> 4 & 0x07)
        let control = Int(data[1])
        let frame = UnsafeRawBufferPointer(start: data + 2, count: size - 2)
        let captured = frame.count
        let delta = (control >> 2) & 0xF
        let original: Int
        switch control & 3 {
        case 0: original = captured
        case 1: original = captured + delta * 977 + 1
        case 2: original = max(0, captured - 1 - delta)
        default: original = 0
        }
        let nano = control & 0x80 != 0
        let fraction: UInt32 = control & 0x40 != 0 ? (nano ? 1_999_999_999 : 2_000_000) : (nano ? 123_456_789 : 123_456)
        var header = PacketHeader(
            seconds: 1_700_000_000, fraction: fraction, precision: nano ? .nanoseconds : .microseconds,
            capturedLength: captured, originalLength: original, linkType: linkType)
        var out: [UInt8] = []
        out.reserveCapacity(8 * captured + 512)
        for index in second == 0 ? [0] : [0, second] {
            var printer = PacketPrinter(options: optionSets[index])
            header.seconds = 1_700_000_000
            printer.print(header, frame, into: &out)
            PrintedText.check(out)
            out.removeAll(keepingCapacity: true)
            header.seconds = 1_700_000_001
            printer.print(header, frame, into: &out)
            PrintedText.check(out)
            out.removeAll(keepingCapacity: true)
        }

        if let segment = TransportSegment.parse(header, frame) {
            let range = segment.payloadRange
            // An empty range may sit past the end (header longer than the capture): payload(in:)
            // returns no bytes for it. A non-empty one must lie inside the frame.
            guard range.lowerBound >= 0, range.isEmpty || range.upperBound <= captured, range.count <= segment.payloadLength else {
                fatalError("payload \(range) of \(segment.payloadLength) bytes in a \(captured)-byte frame")
            }
            guard segment.payload(in: frame).count == range.count else { fatalError("payload(in:) disagrees with payloadRange") }
        }
        PacketJSON.append(header, frame, into: &out)
        PrintedText.checkJSON(out)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FrameFuzzer.run(data, size)
    return 0
}
