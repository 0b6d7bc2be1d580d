import HTTPScanning
import NIOCore

import Glibc

/// Cuts one frame at a time off the front of a growing buffer: the pure, bounded core of every
/// read request and every `--framing`.
///
/// Feed it the connection's receive buffer after each read. It returns a frame when a whole one
/// is there, `nil` when more bytes are needed, and throws when the bytes can never form a valid
/// frame. It never holds more than the buffer it is given, and it rejects a frame as soon as the
/// buffer proves it would exceed ``maximumFrameSize`` — a peer streaming a 100 MiB line costs at
/// most one frame limit of memory, not 100 MiB.
///
/// ```
/// before:  | {"a":1}\r\n{"b" |        decode -> {"a":1}
/// after:   | {"b" |                   decode -> nil (needs more)
/// ```
///
/// At end of input a delimiter-based decoder hands out an unterminated tail as the last frame
/// (nothing is dropped silently); a counted decoder (`length`, `fixed`, exactly-N) throws
/// `.truncatedFrame` and leaves the bytes in the buffer.
package struct FrameDecoder: Sendable {
    enum Rule: Sendable, Equatable {
        /// Whatever is there, up to `maximumFrameSize` at a time.
        case available
        /// Up to and including/excluding `delimiter`; `dropCR` strips a CR just before it.
        case delimiter([UInt8], includeDelimiter: Bool, dropCR: Bool)
        case lengthPrefix(width: Int, bigEndian: Bool)
        case exactly(Int)
        /// Whole HTTP/1.1 messages (``HTTPMessageScanner``).
        case http
    }

    let rule: Rule
    /// The largest frame body accepted; longer frames are an error, not a memory leak.
    package let maximumFrameSize: Int
    /// How far the delimiter search already got, so a long frame arriving in many reads is
    /// scanned once, not once per read.
    private var scanned = 0
    /// For `http`: the cutter, and how many bytes of the message in hand it is done with.
    private var http: HTTPMessageScanner?
    private var httpScanned = 0

    /// A decoder for one of the `--framing` specifications.
    package init(framing: Framing, maximumFrameSize: Int = FrameDecoder.defaultMaximumFrameSize) {
        self.maximumFrameSize = max(1, maximumFrameSize)
        switch framing {
        case .raw: rule = .available
        case .line: rule = .delimiter([0x0A], includeDelimiter: false, dropCR: true)
        case .crlf: rule = .delimiter([0x0D, 0x0A], includeDelimiter: false, dropCR: false)
        case .null: rule = .delimiter([0x00], includeDelimiter: false, dropCR: false)
        case .lengthPrefixed(let width, let bigEndian): rule = .lengthPrefix(width: width, bigEndian: bigEndian)
        case .fixed(let size): rule = .exactly(size)
        case .http:
            rule = .http
            http = HTTPMessageScanner()
        }
    }

    init(rule: Rule, maximumFrameSize: Int) {
        self.rule = rule
        self.maximumFrameSize = max(1, maximumFrameSize)
        if rule == .http { http = HTTPMessageScanner() }
    }

    /// For `http`: the next request (in order) on this connection was a HEAD or not, so its
    /// response has no body. Views that cut both directions call it for each request they see.
    package mutating func expectResponse(toHEAD: Bool) {
        http?.expectResponse(toHEAD: toHEAD)
    }

    /// 16 MiB, the SPEC's `--max-frame` default.
    package static let defaultMaximumFrameSize = 16 * 1024 * 1024

    /// How many buffered bytes this decoder may need before it can decide (used for backpressure):
    /// for a delimiter, one byte past the point where a missing delimiter becomes an error —
    /// pausing the socket earlier could wait forever for a byte that is never read.
    var bufferNeeded: Int {
        switch rule {
        case .available: return 1
        case .delimiter: return (delimiterOverflow ?? maximumFrameSize) + 1
        case .lengthPrefix(let width, _): return maximumFrameSize + width
        case .exactly(let count): return count
        case .http: return maximumFrameSize + (http?.maximumHeadSize ?? 0)
        }
    }

    /// What decoding needs before it can make progress, after it returned `nil` for `buffer`:
    /// lets a caller holding bytes in several pieces join them only when that helps.
    enum Need: Equatable {
        /// At least this many bytes in one buffer.
        case bytes(Int)
        /// A byte that ends a delimiter; until one arrives, joining pieces is pointless.
        case delimiterByte(UInt8)
        /// Anything more.
        case more
    }

    func need(after buffer: ByteBuffer) -> Need {
        switch rule {
        case .available, .http:
            return .more
        case .exactly(let count):
            return .bytes(count)
        case .lengthPrefix(let width, let bigEndian):
            guard buffer.readableBytes >= width else { return .bytes(width) }
            let length = Self.peekLength(buffer, width: width, bigEndian: bigEndian)
            return .bytes(width + Int(min(length, UInt64(maximumFrameSize))))
        case .delimiter(let delimiter, _, _):
            return .delimiterByte(delimiter[delimiter.count - 1])
        }
    }

    /// For delimiter rules: how many buffered bytes prove that no delimiter can come in time.
    var delimiterOverflow: Int? {
        guard case .delimiter(let delimiter, _, let dropCR) = rule else { return nil }
        return maximumFrameSize + delimiter.count - 1 + (dropCR ? 1 : 0)
    }

    /// Removes and returns the next frame from the front of `buffer`.
    ///
    /// - Parameters:
    ///   - buffer: received bytes; consumed bytes are moved past.
    ///   - atEOF: the peer will send nothing more.
    /// - Returns: the frame, or `nil` when more bytes are needed (or, at EOF, when the buffer is empty).
    package mutating func decode(_ buffer: inout ByteBuffer, atEOF: Bool = false) throws(SocketEngineError) -> ByteBuffer? {
        switch rule {
        case .available:
            guard buffer.readableBytes > 0 else { return nil }
            return buffer.readSlice(length: min(buffer.readableBytes, maximumFrameSize))

        case .exactly(let count):
            if buffer.readableBytes >= count { return buffer.readSlice(length: count) }
            if atEOF && buffer.readableBytes > 0 {
                throw SocketEngineError(
                    .truncatedFrame,
                    "connection closed after \(buffer.readableBytes) of \(count) bytes of a frame"
                )
            }
            return nil

        case .lengthPrefix(let width, let bigEndian):
            guard buffer.readableBytes >= width else {
                if atEOF && buffer.readableBytes > 0 {
                    throw SocketEngineError(
                        .truncatedFrame,
                        "connection closed inside a \(width)-byte length prefix (\(plural(buffer.readableBytes, "byte")))"
                    )
                }
                return nil
            }
            let length = Self.peekLength(buffer, width: width, bigEndian: bigEndian)
            guard length <= UInt64(maximumFrameSize) else {
                throw SocketEngineError(
                    .frameTooLarge,
                    "frame of \(length) bytes exceeds the maximum of \(maximumFrameSize) bytes"
                )
            }
            let total = width + Int(length)
            guard buffer.readableBytes >= total else {
                if atEOF {
                    throw SocketEngineError(
                        .truncatedFrame,
                        "connection closed after \(buffer.readableBytes - width) of \(length) bytes of a frame"
                    )
                }
                return nil
            }
            buffer.moveReaderIndex(forwardBy: width)
            return buffer.readSlice(length: Int(length))

        case .delimiter(let delimiter, let includeDelimiter, let dropCR):
            if let end = findDelimiter(delimiter, in: buffer) {
                scanned = 0
                var bodyLength = end
                if dropCR, bodyLength > 0, buffer.getInteger(at: buffer.readerIndex + bodyLength - 1, as: UInt8.self) == 0x0D {
                    bodyLength -= 1
                }
                guard bodyLength <= maximumFrameSize else { throw tooLong(bodyLength) }
                let frameLength = includeDelimiter ? end + delimiter.count : bodyLength
                let frame = buffer.getSlice(at: buffer.readerIndex, length: frameLength) ?? ByteBuffer()
                buffer.moveReaderIndex(forwardBy: end + delimiter.count)
                return frame
            }
            // Not found: once the buffer holds more than a maximal frame plus a partial
            // delimiter, no delimiter can ever come in time.
            if let overflow = delimiterOverflow, buffer.readableBytes > overflow { throw tooLong(buffer.readableBytes) }
            if atEOF, buffer.readableBytes > 0 {
                scanned = 0
                return buffer.readSlice(length: buffer.readableBytes)
            }
            return nil

        case .http:
            return try decodeHTTP(&buffer, atEOF: atEOF)
        }
    }

    /// The next whole HTTP message: the scanner is shown the bytes after the part of the message
    /// it is done with, and the message is cut once it says the message ended.
    private mutating func decodeHTTP(_ buffer: inout ByteBuffer, atEOF: Bool) throws(SocketEngineError) -> ByteBuffer? {
        guard var scanner = http else { return nil }
        let skip = httpScanned
        let result: Result<(consumed: Int, completed: HTTPMessageInfo?), HTTPScanError> = buffer.withUnsafeReadableBytes { raw in
            let rest = UnsafeRawBufferPointer(rebasing: raw[min(skip, raw.count)...])
            do throws(HTTPScanError) {
                return .success(try scanner.scan(rest, atEOF: atEOF))
            } catch {
                return .failure(error)
            }
        }
        http = scanner
        switch result {
        case .failure(let error):
            throw Self.engineError(error, at: skip)
        case .success(let step):
            httpScanned += step.consumed
            if let completed = step.completed {
                let length = httpScanned
                httpScanned = 0
                // A message that arrived whole in one read is bounded like one that trickled in.
                if completed.bodyBytes > maximumFrameSize || length > maximumFrameSize + scanner.maximumHeadSize {
                    throw SocketEngineError(.frameTooLarge, "HTTP message body exceeds the maximum of \(maximumFrameSize) bytes")
                }
                return buffer.readSlice(length: length)
            }
            // The body is bounded like any frame, refused as soon as its length is announced.
            let body = scanner.inProgress
            var announced = body.bodyBytes
            if case .contentLength(let length) = body.bodyLength { announced = length }
            if announced > maximumFrameSize || httpScanned > maximumFrameSize + scanner.maximumHeadSize {
                throw SocketEngineError(.frameTooLarge, "HTTP message body exceeds the maximum of \(maximumFrameSize) bytes")
            }
            return nil
        }
    }

    private static func engineError(_ error: HTTPScanError, at skip: Int) -> SocketEngineError {
        switch error.kind {
        case .truncated:
            return SocketEngineError(.truncatedFrame, SettingText(error.description))
        case .headTooLarge:
            return SocketEngineError(.frameTooLarge, SettingText(error.description))
        default:
            return SocketEngineError(.httpProtocol, "malformed HTTP message at byte \(skip + error.offset): \(error.description)")
        }
    }

    func tooLong(_ seen: Int) -> SocketEngineError {
        SocketEngineError(
            .frameTooLarge,
            "frame exceeds the maximum of \(maximumFrameSize) bytes (\(seen) bytes without a delimiter)"
        )
    }

    /// Offset of the first delimiter from the reader index, resuming where the last search ended.
    private mutating func findDelimiter(_ delimiter: [UInt8], in buffer: ByteBuffer) -> Int? {
        let count = buffer.readableBytes
        guard count >= delimiter.count else { return nil }
        let start = max(0, min(scanned, count) - (delimiter.count - 1))
        let found: Int? = buffer.withUnsafeReadableBytes { raw -> Int? in
            guard let base = raw.baseAddress else { return nil }
            var position = start
            let first = delimiter[0]
            while position < count {
                guard let hit = memchr(base + position, Int32(first), count - position) else { return nil }
                let offset = base.distance(to: UnsafeRawPointer(hit))
                if offset + delimiter.count > count { return nil }
                var matches = true
                for index in 1..<delimiter.count where raw[offset + index] != delimiter[index] {
                    matches = false
                    break
                }
                if matches { return offset }
                position = offset + 1
            }
            return nil
        }
        if found == nil { scanned = count }
        return found
    }

    private static func peekLength(_ buffer: ByteBuffer, width: Int, bigEndian: Bool) -> UInt64 {
        let endianness: Endianness = bigEndian ? .big : .little
        let at = buffer.readerIndex
        switch width {
        case 1: return UInt64(buffer.getInteger(at: at, as: UInt8.self) ?? 0)
        case 2: return UInt64(buffer.getInteger(at: at, endianness: endianness, as: UInt16.self) ?? 0)
        case 4: return UInt64(buffer.getInteger(at: at, endianness: endianness, as: UInt32.self) ?? 0)
        default: return buffer.getInteger(at: at, endianness: endianness, as: UInt64.self) ?? 0
        }
    }
}
