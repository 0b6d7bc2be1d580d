/// The gRPC messages of one HTTP/2 stream in one direction (gRPC over HTTP/2, "Length-Prefixed-
/// Message"): a 1-byte compressed flag, a 4-byte big-endian length, the message — cut from the
/// stream's DATA payloads however they are split, each message a ``ViewItem/grpcMessage(_:)``
/// once its last byte is in. At most ``previewLimit`` bytes of a message are kept.
struct GRPCMessageReader: Sendable {
    /// Bytes of a message kept to show it.
    static let previewLimit = 256

    private let stream: UInt32
    private var prefix: [UInt8] = []
    private var remaining = 0
    private var preview: [UInt8] = []

    init(stream: UInt32) {
        self.stream = stream
    }

    /// The next DATA payload bytes of the stream.
    mutating func consume(_ bytes: UnsafeRawBufferPointer, emit: (ViewItem) -> Void) {
        var index = 0
        while index < bytes.count {
            if prefix.count < 5 {
                prefix.append(bytes[index])
                index += 1
                if prefix.count == 5 {
                    remaining = Int(prefix[1]) << 24 | Int(prefix[2]) << 16 | Int(prefix[3]) << 8 | Int(prefix[4])
                    if remaining == 0 { finish(emit) }
                }
                continue
            }
            let take = min(remaining, bytes.count - index)
            let keep = min(take, Self.previewLimit - preview.count)
            if keep > 0 { preview.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + keep)])) }
            remaining -= take
            index += take
            if remaining == 0 { finish(emit) }
        }
    }

    private mutating func finish(_ emit: (ViewItem) -> Void) {
        let length = Int(prefix[1]) << 24 | Int(prefix[2]) << 16 | Int(prefix[3]) << 8 | Int(prefix[4])
        emit(.grpcMessage(GRPCMessageSummary(stream: stream, compressed: prefix[0] & 1 != 0, length: length, payload: preview)))
        prefix.removeAll(keepingCapacity: true)
        preview.removeAll(keepingCapacity: true)
    }
}
