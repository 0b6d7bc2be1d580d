import PacketDecoding
import SocketEngine

/// Reads a capture file for `replay`: the list of its streams, and the chosen one's messages.
///
/// Every failure is one line: the file cannot be read or is not a capture (libpcap's words),
/// it ends early, it holds no TCP or UDP stream, the stream asked for does not exist, or (with no
/// `--stream`) there is more than one to choose from — then the streams are listed after the
/// line, so the user can pick.
///
/// Not a failure: a file whose last record is cut short (a recording or capture killed while
/// writing). As tcpdump prints the packets before it and then `truncated dump file`, the
/// streams are made of the packets before it, and the `warning` says what was cut.
public enum ReplayStreams {
    /// Reads `path` (`-` is stdin) and returns every stream, with the messages of `keep`
    /// (1-based), and a warning when the file's last record is cut short.
    public static func load(_ path: String, keep: Int?) throws(RecordingError) -> (streams: [RecordedStream], extractor: StreamExtractor, warning: String?) {
        try load(path, extractor: StreamExtractor(keepingMessagesOf: keep))
    }

    /// Reads `path` and returns every stream, with the messages of those `keeps` accepts
    /// (1-based numbers): the many streams `loadtest --from-pcap` replays at once; and a
    /// warning when the file's last record is cut short.
    public static func load(_ path: String, keeping keeps: @escaping @Sendable (Int) -> Bool) throws(RecordingError) -> (streams: [RecordedStream], warning: String?) {
        let loaded = try load(path, extractor: StreamExtractor(keepingMessagesWhere: keeps))
        return (loaded.streams, loaded.warning)
    }

    private static func load(_ path: String, extractor: StreamExtractor) throws(RecordingError) -> (streams: [RecordedStream], extractor: StreamExtractor, warning: String?) {
        var extractor = extractor
        let reader: CaptureFileReader
        do {
            reader = try CaptureFileReader(path: path)
        } catch {
            let text = error.description
            let code: RecordingError.Code = error.code == .io && error.phase == .open ? .unopenableCapture : .unreadableCapture
            throw RecordingError(code, SettingText(text.hasPrefix(path) ? text : "\(path): \(text)"))
        }
        var warning: String?
        var packets = 0
        do {
            while true {
                let record: CaptureRecord
                do {
                    guard let next = try reader.next() else { break }
                    record = next
                } catch where error.code == .truncated && error.phase == .record {
                    warning = "\(path): \(error.description): the last record is cut short; using the \(packets) packets before it"
                    break
                }
                try extractor.add(record.header, record.bytes)
                packets += 1
            }
        } catch {
            throw RecordingError(.unreadableCapture, "\(path): \(error.description)")
        }
        let streams = extractor.finish()
        return (streams, extractor, warning)
    }

    /// The stream to replay: `requested`, or the only one there is.
    public static func choose(_ streams: [RecordedStream], requested: Int?, path: String) throws(RecordingError) -> Int {
        guard !streams.isEmpty else {
            throw RecordingError(.unusableCapture, "\(path): no TCP or UDP stream in this capture")
        }
        if let requested {
            guard requested >= 1, requested <= streams.count else {
                let range = streams.count == 1 ? "it has only stream 1" : "it has streams 1-\(streams.count)"
                throw RecordingError(.noSuchStream, "\(path): no stream \(requested): \(range) (see \(.list))")
            }
            return requested
        }
        guard streams.count == 1 else {
            throw RecordingError(
                .noSuchStream, "\(path) holds \(streams.count) streams: choose one with \(.stream) N", detail: table(streams)
            )
        }
        return 1
    }

    /// The `--list` table: index, protocol, 4-tuple, packets and bytes each way, duration, end.
    public static func table(_ streams: [RecordedStream]) -> String {
        var rows: [[String]] = [["STREAM", "PROTO", "CLIENT", "", "SERVER", "PACKETS C>S", "S>C", "BYTES C>S", "S>C", "DURATION", "END"]]
        for stream in streams {
            rows.append([
                String(stream.index),
                stream.transport.rawValue,
                stream.client.description,
                ">",
                stream.server.description,
                String(stream.clientCounters.packets),
                String(stream.serverCounters.packets),
                String(stream.clientCounters.bytes) + missing(stream.clientCounters.missingBytes),
                String(stream.serverCounters.bytes) + missing(stream.serverCounters.missingBytes),
                decimal(Double(stream.duration) / 1e9, places: 3) + "s",
                stream.transport == .udp ? "-" : stream.end.description,
            ])
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        let rightAligned: Set<Int> = [0, 5, 6, 7, 8, 9]
        var out = ""
        for row in rows {
            var line = ""
            for (column, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column > 0 { line += "  " }
                line += rightAligned.contains(column) ? padding + cell : cell + padding
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        return out
    }

    private static func missing(_ count: Int) -> String {
        count > 0 ? " (\(count) missing)" : ""
    }
}
