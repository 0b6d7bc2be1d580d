import NIOCore
import PacketDecoding
import SocketEngine
import Testing

/// A TCP session built packet by packet with ``SyntheticConnection``, as frames with times.
struct CraftedSession {
    var connection = SyntheticConnection(
        client: TCPReassembler.Endpoint(address: .v4(0x7F00_0001), port: 40_000),
        server: TCPReassembler.Endpoint(address: .v4(0x7F00_0001), port: 7000),
        tcp: true, clientISN: 1000, serverISN: 5000
    )
    var frames: [(time: Int64, bytes: [UInt8])] = []
    var time: Int64 = 1_700_000_000_000_000_000

    mutating func add(_ built: [[UInt8]], after milliseconds: Int64 = 0) {
        time += milliseconds * 1_000_000
        for frame in built { frames.append((time, frame)) }
    }

    mutating func data(_ text: String, from side: SyntheticConnection.Side, after milliseconds: Int64 = 0) {
        let built = Array(text.utf8).withUnsafeBytes { connection.data($0, from: side) }
        add(built, after: milliseconds)
    }

    /// The session as the one stream a capture of it holds.
    func stream() throws -> RecordedStream {
        var extractor = StreamExtractor(keepingMessagesOf: 1)
        for (time, frame) in frames {
            let header = PacketHeader(
                seconds: time / 1_000_000_000, fraction: UInt32(time % 1_000_000_000), precision: .nanoseconds,
                capturedLength: frame.count, originalLength: frame.count, linkType: .ethernet
            )
            try frame.withUnsafeBytes { try extractor.add(header, $0) }
        }
        return try #require(extractor.finish().first)
    }
}
