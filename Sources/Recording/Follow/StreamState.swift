import NIOCore
import PacketDecoding
import SocketEngine

struct DirectionState {
    /// nil: unframed (no `--framing`, or after a framing error).
    var decoder: FrameDecoder?
    var buffer = ByteBuffer()
    /// Bytes of this direction so far (gaps included): the hex dump offsets.
    var offset = 0

    enum Next {
        case message(ByteBuffer)
        case needMore
        case failed(SocketEngineError, rest: ByteBuffer)
    }

    init(framing: Framing?) {
        decoder = framing.map { FrameDecoder(framing: $0, maximumFrameSize: StreamFollower.maximumMessageSize) }
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        buffer.writeBytes(bytes)
    }

    mutating func next(atEnd: Bool) -> Next {
        guard var decoder else { return .needMore }
        defer { self.decoder = decoder }
        do {
            if let message = try decoder.decode(&buffer, atEOF: atEnd) {
                if buffer.readableBytes == 0 { buffer.clear() } else if buffer.readerIndex > 65_536 { buffer.discardReadBytes() }
                return .message(message)
            }
            return .needMore
        } catch {
            let rest = buffer
            buffer = ByteBuffer()
            return .failed(error, rest: rest)
        }
    }

    mutating func reset(framing: Framing?) {
        buffer.clear()
        decoder = framing.map { FrameDecoder(framing: $0, maximumFrameSize: StreamFollower.maximumMessageSize) }
    }
}

/// Per-stream state: the number shown, per direction the framing buffer, and (without
/// `--framing`) the TLS, WebSocket and HTTP/2 views; with a key log, a TLS stream's decryption.
struct StreamState {
    var number: Int
    var directions: [DirectionState]
    var views: ConnectionViews?
    /// `--keylog` and the stream speaks TLS: its decryptor and the state of the decrypted bytes.
    var decryption: DecryptedStream?
    /// Whether the stream was looked at for TLS (its first bytes).
    var decryptionDecided = false

    init(number: Int, framing: Framing?) {
        self.number = number
        directions = [DirectionState(framing: framing), DirectionState(framing: framing)]
        if framing == nil { views = ConnectionViews(views: .all.subtracting(.http), payloadLimit: StreamFollower.maximumViewPayload) }
    }
}

/// A decrypted TLS stream (`--follow --keylog`): the decryptor, and the decrypted bytes' own
/// state — shown exactly as a plaintext stream's bytes (framing, views, text or hex). A class:
/// ``StreamState`` holds the decrypted side's state, which is a ``StreamState`` too.
final class DecryptedStream {
    var decryptor: TLSConnectionDecryptor
    var state: StreamState

    init(keys: TLSKeyStore, number: Int, framing: Framing?) {
        decryptor = TLSConnectionDecryptor(keys: keys)
        state = StreamState(number: number, framing: framing)
    }
}
