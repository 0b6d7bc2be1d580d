import NIOCore
import SocketEngine

/// `replay` of an HTTP session: the target's answers cut as whole HTTP messages by the replay
/// itself rather than by the connection, so that the answer to each HEAD request of the plan is
/// known to have no body (whatever its Content-Length says), as RFC 9112 §6.3 has it.
///
/// The requests' HEAD-ness is handed to the decoder in order, a bounded number ahead of the final
/// answers seen (its queue holds 256); interim (1xx) answers do not count as answers.
struct ReplayHTTPAnswers {
    private var decoder: FrameDecoder
    private var buffer = ByteBuffer()
    private var ended = false
    private let heads: [Bool]
    private var told = 0
    private static let ahead = 200

    /// `requests`: the messages the plan sends, in order.
    init(requests: [ByteBuffer], maximumFrameSize: Int) {
        decoder = FrameDecoder(framing: .http, maximumFrameSize: maximumFrameSize)
        heads = requests.compactMap { HTTPMessage.requestIsHEAD($0) }
        tell(upTo: Self.ahead)
    }

    private mutating func tell(upTo count: Int) {
        while told < min(count, heads.count) {
            decoder.expectResponse(toHEAD: heads[told])
            told += 1
        }
    }

    /// The next whole answer; nil once the target has closed and nothing is left.
    ///
    /// - Throws: `truncatedFrame` for an answer cut by the close, `frameTooLarge`, `httpProtocol`,
    ///   or what reading throws.
    mutating func next(from connection: Connection) async throws -> ByteBuffer? {
        while true {
            if let answer = try decoder.decode(&buffer, atEOF: ended) {
                if buffer.readableBytes == 0 { buffer.clear() } else if buffer.readerIndex > 65_536 { buffer.discardReadBytes() }
                if Self.isFinal(answer) { tell(upTo: told + 1) }
                return answer
            }
            if ended { return nil }
            if var chunk = try await connection.read(.available(maxLength: 1 << 20)) {
                buffer.writeBuffer(&chunk)
            } else {
                ended = true
            }
        }
    }

    /// A response that is not 1xx (101 included: it answers its request).
    private static func isFinal(_ answer: ByteBuffer) -> Bool {
        let view = answer.readableBytesView
        guard HTTPMessage.requestIsHEAD(answer) == nil, view.count >= 12 else { return false }
        let status = view[view.startIndex + 9]
        return status != UInt8(ascii: "1") || (view[view.startIndex + 10] == UInt8(ascii: "0") && view[view.startIndex + 11] == UInt8(ascii: "1"))
    }
}
