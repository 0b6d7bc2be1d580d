import NIOCore
import Synchronization

/// One relayed client's HTTP messages (`--framing http`, or an http:// side): each direction's
/// ``FrameDecoder`` and the bytes it has not cut yet, shared by the client's two pumps so that a
/// request cut going up tells the answer coming down whether it answers a HEAD (and so has no
/// body, whatever its Content-Length says).
///
/// A request is cut and its HEAD-ness noted before it is forwarded, so the note is always there
/// before its answer can arrive. Bounded like any frame: a message over the maximum frame size
/// is `frameTooLarge`; the bytes held per direction are at most one message and one read.
final class RelayHTTPCutter: Sendable {
    private struct Side {
        var decoder: FrameDecoder
        var buffer = ByteBuffer()
        /// The source ended; what is left is cut with `atEOF`.
        var ended = false
    }

    private let sides: Mutex<[Side]>

    init(maximumFrameSize: Int) {
        let side = Side(decoder: FrameDecoder(framing: .http, maximumFrameSize: maximumFrameSize))
        sides = Mutex([side, side])
    }

    private static func index(_ direction: RelayDirection) -> Int { direction == .up ? 0 : 1 }

    /// Adds bytes read in `direction`, or its end (nil).
    func feed(_ direction: RelayDirection, _ chunk: ByteBuffer?) {
        sides.withLock { sides in
            let index = Self.index(direction)
            if var chunk {
                sides[index].buffer.writeBuffer(&chunk)
            } else {
                sides[index].ended = true
            }
        }
    }

    /// Whether `direction`'s source has ended.
    func hasEnded(_ direction: RelayDirection) -> Bool {
        sides.withLock { $0[Self.index(direction)].ended }
    }

    /// The next whole message read in `direction`, or nil when more bytes are needed (or, after
    /// the end, when none is left).
    ///
    /// - Throws: `truncatedFrame` for a message cut by the end, `frameTooLarge`, `httpProtocol`.
    func next(_ direction: RelayDirection) throws(SocketEngineError) -> ByteBuffer? {
        let result: Result<ByteBuffer?, SocketEngineError> = sides.withLock { sides in
            let index = Self.index(direction)
            var side = sides[index]
            defer { sides[index] = side }
            let message: ByteBuffer?
            do throws(SocketEngineError) {
                message = try side.decoder.decode(&side.buffer, atEOF: side.ended)
            } catch {
                return .failure(error)
            }
            if side.buffer.readableBytes == 0 { side.buffer.clear() } else if side.buffer.readerIndex > 65_536 { side.buffer.discardReadBytes() }
            if let message, let isHEAD = HTTPMessage.requestIsHEAD(message) {
                sides[1 - index].decoder.expectResponse(toHEAD: isHEAD)
            }
            return .success(message)
        }
        return try result.get()
    }
}
