/// libFuzzer target: a whole capture file through ``CaptureFileReader``, ``PacketPrinter``,
/// ``TransportSegment``, ``TCPReassembler`` and ``StreamExtractor`` (what `replay` reads).
///
/// The input is the file (classic pcap or pcapng, either byte order). Every record is printed,
/// by one printer whose options the input's length picks from ``optionSets`` and by a
/// ``PacketJSONWriter`` (the protocol views' state carried across records), until the reader
/// returns nil or throws; each TCP segment also goes to a reassembler with small limits
/// (4 KiB per direction, 16 KiB overall, 4 connections), finished at the end.
///
/// Besides crashes, ASan reports and timeouts, the target traps when the reader breaks its
/// documented contract (more records than the input could hold — each needs a ≥ 12-byte
/// header, so more than size/12 means it is looping; a record whose bytes are not
/// `capturedLength` long or longer than 262144; a reader that stops throwing after an error),
/// when the printed text has a byte outside tab, LF and 0x20–0x7E, and when the reassembler
/// reports an event for a stream before `opened` or after `closed`, or still tracks
/// connections after `finish`; and when the extractor's kept stream (the first, at most 64 KiB
/// kept) holds a different number of bytes per side than its counters say, or a stream ends
/// before it begins.
///
/// Built by fuzz/run.sh together with every Swift file under Sources/PacketDecoding (one module, no import).
enum FileFuzzer {
    /// -X; -XX -e -tttt -S --decode all; headers only -ttt --nano -vv; -A -ttttt -v.
    static let optionSets: [PrintOptions] = [
        PrintOptions(),
        PrintOptions(dump: .hexAndASCII, dumpIncludesLinkHeader: true, timestamps: .dateAndTime,
                     absoluteSequenceNumbers: true, linkHeader: true, views: .all),
        PrintOptions(dump: .none, timestamps: .sincePrevious, nanoseconds: true, verbosity: 2),
        PrintOptions(dump: .ascii, timestamps: .sinceFirst, verbosity: 1),
    ]

    static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        let reader: CaptureFileReader
        do {
            reader = try CaptureFileReader(bytes: bytes)
        } catch {
            return
        }
        var printer = PacketPrinter(options: optionSets[size % optionSets.count])
        var json = PacketJSONWriter()
        var reassembler = TCPReassembler(maximumBufferedBytesPerDirection: 4096, maximumBufferedBytes: 16384, maximumConnections: 4)
        var open: Set<Int> = []
        var closed: Set<Int> = []
        func observe(_ event: TCPReassembler.Event) {
            if case .opened = event.kind {
                guard open.insert(event.stream).inserted, !closed.contains(event.stream) else { fatalError("stream \(event.stream) opened twice") }
                return
            }
            guard open.contains(event.stream) else { fatalError("event for stream \(event.stream) outside opened…closed") }
            if case .closed = event.kind {
                open.remove(event.stream)
                closed.insert(event.stream)
            }
        }
        var extractor = StreamExtractor(keepingMessagesOf: 1, messageLimit: 65536)
        var extracting = true
        var out: [UInt8] = []
        var records = 0
        do {
            while let record = try reader.next() {
                records += 1
                guard records <= size / 12 + 1 else { fatalError("\(records) records from \(size) bytes") }
                guard record.bytes.count == record.header.capturedLength else {
                    fatalError("record holds \(record.bytes.count) bytes, header says \(record.header.capturedLength)")
                }
                guard record.bytes.count <= CaptureFileReader.maximumCaptureLength else {
                    fatalError("record of \(record.bytes.count) bytes")
                }
                printer.print(record.header, record.bytes, into: &out)
                PrintedText.check(out)
                out.removeAll(keepingCapacity: true)
                json.append(record.header, record.bytes, into: &out)
                PrintedText.checkEscapedJSON(out)
                out.removeAll(keepingCapacity: true)
                if let segment = TransportSegment.parse(record.header, record.bytes) {
                    reassembler.process(segment, payload: segment.payload(in: record.bytes), observe)
                }
                if extracting {
                    do {
                        try extractor.add(record.header, record.bytes)
                    } catch {
                        extracting = false  // over the limit: said by replay, not a failure
                    }
                }
            }
        } catch {
            do {
                _ = try reader.next()
                fatalError("next() returned after an error: \(error)")
            } catch {}
        }
        reassembler.finish(observe)
        guard reassembler.trackedConnections == 0, open.isEmpty else { fatalError("streams left after finish") }
        let streams = extractor.finish()
        for stream in streams {
            guard stream.duration >= 0, stream.index >= 1 else { fatalError("stream \(stream.index) lasts \(stream.duration) ns") }
        }
        if extracting, let first = streams.first {
            for side in [RecordedStream.Side.client, .server] where first.stream(of: side).count != first.counters(side).bytes {
                fatalError("stream 1 keeps \(first.stream(of: side).count) bytes of \(side), counts \(first.counters(side).bytes)")
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FileFuzzer.run(data, size)
    return 0
}
