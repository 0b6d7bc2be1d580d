#if canImport(Glibc)
import Glibc
#endif

/// Finds where each HTTP/1.1 message on a connection ends, without keeping or copying it: the
/// one HTTP cutter behind `--framing http`, `http://` endpoints, the load generator and the views.
///
/// Give it the bytes of the stream the caller still holds, front first. It returns how many of
/// them it is done with (a head only once it is whole; body bytes, chunk lines and trailers as
/// they come, so a 100 MB body never has to be held) and, when a message ended there, what it
/// learnt of it. The rules are RFC 9112's (§6.3): a response to HEAD, 1xx, 204 and 304 have no
/// body; chunked wins over Content-Length (and the connection closes after); differing
/// Content-Lengths are an error; a request with neither length has no body; a response with
/// neither runs until the server closes.
///
/// ```
/// | HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel |  -> consumed 41 (head + 3), no message
/// | lo HTTP/1.1 204 No Content\r\n\r\n |              -> consumed 2, message (200, 5 body bytes)
/// | HTTP/1.1 204 No Content\r\n\r\n |                 -> consumed 27, message (204)
/// ```
///
/// The standard library and memchr only, no allocation per message (a fuzz target compiles it
/// alone). About 170 ns for a 9-header nginx response (release build, this machine).
package struct HTTPMessageScanner: Sendable {
    /// Which messages the bytes hold.
    package enum Side: Sendable {
        /// Requests only (a server's input).
        case requests
        /// Responses only (a client's input).
        case responses
        /// Either, told apart per message by a leading `HTTP/` (views of both directions).
        case either
    }

    private enum Phase: Sendable, Equatable {
        case head
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
        case switched
    }

    /// Which messages the bytes hold.
    package let side: Side
    /// The longest head (start line and headers), and the longest trailer section.
    package let maximumHeadSize: Int

    private var phase = Phase.head
    private var message = HTTPMessageInfo()
    /// How far into the head (or a chunk or trailer line) the search for its end got.
    private var scannedLine = 0
    /// Bytes of the current trailer section so far.
    private var trailerBytes = 0
    /// Whether each request still waiting for its response was a HEAD, oldest first.
    private var headRequests = HTTPHeadRequestFlags()

    /// What is known of the message being scanned: its head's fields once the head is whole,
    /// and the body bytes so far (a caller bounding message size reads it).
    package var inProgress: HTTPMessageInfo { message }

    /// The longest chunk-size line (extensions included).
    package static let maximumChunkLine = 4096

    /// A scanner of `side`'s messages.
    package init(side: Side = .either, maximumHeadSize: Int = 64 * 1024) {
        self.side = side
        self.maximumHeadSize = max(64, maximumHeadSize)
    }

    /// Tells the response side that the next request (in order) was a HEAD or not, so its
    /// response is known to have no body.
    package mutating func expectResponse(toHEAD: Bool) {
        headRequests.push(toHEAD)
    }

    /// Scans `bytes`, the unconsumed front of the stream.
    ///
    /// - Parameters:
    ///   - bytes: everything the caller holds that this scanner has not yet reported consumed.
    ///   - atEOF: the stream has ended; a body that runs until close ends here.
    /// - Returns: how many bytes at the front of `bytes` the scanner is done with, and the
    ///   message that ended there, if one did. At most one message per call: call again while
    ///   `completed` is not nil.
    /// - Throws: ``HTTPScanError`` when the bytes cannot be HTTP/1.1, or end inside a message.
    package mutating func scan(_ bytes: UnsafeRawBufferPointer, atEOF: Bool) throws(HTTPScanError) -> (consumed: Int, completed: HTTPMessageInfo?) {
        var consumed = 0
        while true {
            let available = bytes.count - consumed
            switch phase {
            case .head:
                guard let headLength = try findHead(bytes, from: consumed, atEOF: atEOF) else {
                    return (consumed, nil)
                }
                if headLength < 0 {
                    // Empty lines before a message (RFC 9112 §2.2): skipped.
                    consumed += -headLength
                    continue
                }
                try parseHead(UnsafeRawBufferPointer(rebasing: bytes[consumed..<(consumed + headLength)]), at: consumed)
                consumed += headLength
                message.headBytes = headLength
                message.wireBytes = headLength
                if phase == .head { return (consumed, finish()) }

            case .body(let remaining), .chunkData(let remaining):
                let taken = min(remaining, available)
                consumed += taken
                message.bodyBytes += taken
                message.wireBytes += taken
                if taken == remaining {
                    if case .body = phase { return (consumed, finish()) }
                    phase = .chunkEnd
                    continue
                }
                phase = phase == .body(remaining: remaining) ? .body(remaining: remaining - taken) : .chunkData(remaining: remaining - taken)
                if atEOF { throw truncated(at: consumed, inside: "a body") }
                return (consumed, nil)

            case .chunkSize:
                guard let lineLength = try findLine(bytes, from: consumed, limit: Self.maximumChunkLine, atEOF: atEOF, inside: "a chunk-size line") else {
                    return (consumed, nil)
                }
                let size = try Self.chunkSize(UnsafeRawBufferPointer(rebasing: bytes[consumed..<(consumed + lineLength)]), at: consumed)
                consumed += lineLength
                message.wireBytes += lineLength
                phase = size == 0 ? .trailers : .chunkData(remaining: size)
                trailerBytes = 0

            case .chunkEnd:
                guard available >= 1 else {
                    if atEOF { throw truncated(at: consumed, inside: "a chunk") }
                    return (consumed, nil)
                }
                var ending = 1
                if bytes[consumed] == 0x0D {
                    guard available >= 2 else {
                        if atEOF { throw truncated(at: consumed, inside: "a chunk") }
                        return (consumed, nil)
                    }
                    ending = 2
                }
                guard bytes[consumed + ending - 1] == 0x0A else {
                    throw HTTPScanError(.badChunk, at: consumed, "a chunk is not followed by CRLF")
                }
                consumed += ending
                message.wireBytes += ending
                phase = .chunkSize

            case .trailers:
                let limit = maximumHeadSize - trailerBytes
                guard let lineLength = try findLine(bytes, from: consumed, limit: limit, atEOF: atEOF, inside: "the trailers") else {
                    return (consumed, nil)
                }
                let line = UnsafeRawBufferPointer(rebasing: bytes[consumed..<(consumed + lineLength)])
                consumed += lineLength
                message.wireBytes += lineLength
                trailerBytes += lineLength
                if Self.isEmptyLine(line) { return (consumed, finish()) }
                if line[0] == 0x20 || line[0] == 0x09 || Self.colon(in: line) == nil {
                    throw HTTPScanError(.badHeader, at: consumed - lineLength, "a trailer line is not 'name: value'")
                }

            case .untilClose:
                consumed += available
                message.bodyBytes += available
                message.wireBytes += available
                if atEOF { return (consumed, finish()) }
                return (consumed, nil)

            case .switched:
                guard available == 0 else {
                    throw HTTPScanError(.switchedProtocols, at: consumed, "the connection switched protocols (101); what follows is not HTTP/1.1")
                }
                return (consumed, nil)
            }
        }
    }

    /// Ends the current message: its description, and the scanner ready for the next.
    private mutating func finish() -> HTTPMessageInfo {
        let done = message
        message = HTTPMessageInfo()
        phase = done.switchesProtocols ? .switched : .head
        scannedLine = 0
        return done
    }

    private func truncated(at offset: Int, inside part: String) -> HTTPScanError {
        HTTPScanError(.truncated, at: offset, "the connection ended inside \(part) of an HTTP message")
    }

    // MARK: Lines

    /// The length of the head starting at `start` (through its empty line); minus the length of
    /// empty lines before a message; nil when more bytes are needed.
    private mutating func findHead(_ bytes: UnsafeRawBufferPointer, from start: Int, atEOF: Bool) throws(HTTPScanError) -> Int? {
        var lineStart = start + scannedLine
        while let newline = Self.newline(in: bytes, from: lineStart) {
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<newline])
            let empty = line.isEmpty || (line.count == 1 && line[0] == 0x0D)
            if empty && lineStart == start {
                scannedLine = 0
                return -(newline + 1 - start)
            }
            if newline + 1 - start > maximumHeadSize { throw headTooLarge(at: start) }
            if empty {
                scannedLine = 0
                return newline + 1 - start
            }
            lineStart = newline + 1
        }
        scannedLine = lineStart - start
        if bytes.count - start > maximumHeadSize { throw headTooLarge(at: start) }
        if atEOF && bytes.count > start { throw truncated(at: start, inside: "the head") }
        return nil
    }

    private func headTooLarge(at offset: Int) -> HTTPScanError {
        HTTPScanError(.headTooLarge, at: offset, "an HTTP head is longer than \(maximumHeadSize) bytes")
    }

    /// The length of the line starting at `start`, its LF included; nil when more bytes are needed.
    private mutating func findLine(_ bytes: UnsafeRawBufferPointer, from start: Int, limit: Int, atEOF: Bool, inside part: String) throws(HTTPScanError) -> Int? {
        if let newline = Self.newline(in: bytes, from: start + scannedLine) {
            scannedLine = 0
            guard newline + 1 - start <= limit else {
                throw HTTPScanError(.headTooLarge, at: start, "\(part) of an HTTP message is too long")
            }
            return newline + 1 - start
        }
        scannedLine = bytes.count - start
        if bytes.count - start > limit { throw HTTPScanError(.headTooLarge, at: start, "\(part) of an HTTP message is too long") }
        if atEOF { throw truncated(at: start, inside: part) }
        return nil
    }

    private static func newline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        find(0x0A, in: bytes, from: start)
    }

    private static func find(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let hit = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }

    private static func isEmptyLine(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count == 1 || (line.count == 2 && line[0] == 0x0D)
    }

    private static func colon(in line: UnsafeRawBufferPointer) -> Int? {
        find(0x3A, in: line, from: 0)
    }

    /// Every byte of `bytes[range]` is a token byte (and the range is not empty).
    private static func isToken(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        guard !range.isEmpty, let base = bytes.baseAddress else { return false }
        for index in range where !isTokenByte(base.load(fromByteOffset: index, as: UInt8.self)) { return false }
        return true
    }

    // MARK: Head

    /// Reads the start line and the headers that decide the body's length and the connection.
    private mutating func parseHead(_ head: UnsafeRawBufferPointer, at offset: Int) throws(HTTPScanError) {
        var lineEnd = Self.newline(in: head, from: 0) ?? head.count
        let startLine = Self.trimmingCR(UnsafeRawBufferPointer(rebasing: head[0..<lineEnd]))
        let isResponse = HTTPMessageScanner.hasPrefix(startLine, "HTTP/")
        switch (side, isResponse) {
        case (.requests, true):
            throw HTTPScanError(.badStartLine, at: offset, "a response where a request was expected")
        case (.responses, false):
            throw HTTPScanError(.badStartLine, at: offset, "not an HTTP/1.1 status line")
        default:
            break
        }
        message.isResponse = isResponse
        if isResponse { try parseStatusLine(startLine, at: offset) } else { try parseRequestLine(startLine, at: offset) }

        var contentLength: Int?
        var transferEncoding = false
        var chunked = false
        var close = false
        var keepAlive = false
        var lineStart = lineEnd + 1
        while lineStart < head.count {
            lineEnd = Self.newline(in: head, from: lineStart) ?? head.count
            let line = Self.trimmingCR(UnsafeRawBufferPointer(rebasing: head[lineStart..<lineEnd]))
            let lineOffset = offset + lineStart
            lineStart = lineEnd + 1
            if line.isEmpty { break }
            if line[0] == 0x20 || line[0] == 0x09 {
                throw HTTPScanError(.badHeader, at: lineOffset, "a folded header line (obsolete line folding is not accepted)")
            }
            guard let colon = Self.colon(in: line), Self.isToken(line, 0..<colon) else {
                throw HTTPScanError(.badHeader, at: lineOffset, "a header line is not 'name: value'")
            }
            let name = UnsafeRawBufferPointer(rebasing: line[0..<colon])
            let value = Self.trimmingSpace(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
            switch name.count {
            case 14 where Self.equalsIgnoringCase(name, "content-length"):
                let length = try Self.contentLength(value, at: lineOffset)
                if let contentLength, contentLength != length {
                    throw HTTPScanError(.conflictingContentLength, at: lineOffset, "two different Content-Length values")
                }
                contentLength = length
            case 17 where Self.equalsIgnoringCase(name, "transfer-encoding"):
                transferEncoding = true
                chunked = Self.lastToken(value).map { Self.equalsIgnoringCase($0, "chunked") } ?? false
            case 10 where Self.equalsIgnoringCase(name, "connection"):
                Self.forEachToken(value) { token in
                    if Self.equalsIgnoringCase(token, "close") { close = true }
                    if Self.equalsIgnoringCase(token, "keep-alive") { keepAlive = true }
                }
            default:
                break
            }
        }
        message.keepAlive = message.minorVersion >= 1 ? !close : (keepAlive && !close)

        if isResponse {
            let status = message.status
            if status < 200 && status != 101 {
                message.isInterim = true
                message.bodyLength = .none
                return
            }
            let toHEAD = headRequests.pop()
            if status == 101 {
                message.switchesProtocols = true
                message.bodyLength = .none
                return
            }
            if toHEAD || status == 204 || status == 304 {
                message.bodyLength = .none
                return
            }
        } else if transferEncoding && !chunked {
            throw HTTPScanError(.badTransferEncoding, at: offset, "a request's Transfer-Encoding does not end in chunked")
        }
        if transferEncoding {
            if contentLength != nil { message.keepAlive = false }
            if chunked {
                message.bodyLength = .chunked
                phase = .chunkSize
            } else {
                message.bodyLength = .untilClose
                message.keepAlive = false
                phase = .untilClose
            }
        } else if let contentLength {
            message.bodyLength = .contentLength(contentLength)
            if contentLength > 0 { phase = .body(remaining: contentLength) }
        } else if isResponse {
            message.bodyLength = .untilClose
            message.keepAlive = false
            phase = .untilClose
        } else {
            message.bodyLength = .none
        }
    }

    /// `HTTP/1.x NNN[ reason]`.
    private mutating func parseStatusLine(_ line: UnsafeRawBufferPointer, at offset: Int) throws(HTTPScanError) {
        guard line.count >= 12, Self.hasPrefix(line, "HTTP/1."), Self.isDigit(line[7]), line[8] == 0x20,
              Self.isDigit(line[9]), Self.isDigit(line[10]), Self.isDigit(line[11]),
              line.count == 12 || line[12] == 0x20 else {
            throw HTTPScanError(.badStartLine, at: offset, "not an HTTP/1.1 status line")
        }
        message.minorVersion = Int(line[7] &- 0x30)
        message.status = Int(line[9] &- 0x30) * 100 + Int(line[10] &- 0x30) * 10 + Int(line[11] &- 0x30)
        guard message.status >= 100 else {
            throw HTTPScanError(.badStartLine, at: offset, "status \(message.status) is not a valid HTTP status")
        }
    }

    /// `METHOD TARGET HTTP/1.x`.
    private mutating func parseRequestLine(_ line: UnsafeRawBufferPointer, at offset: Int) throws(HTTPScanError) {
        let bad = HTTPScanError(.badStartLine, at: offset, "not an HTTP/1.1 request line")
        guard let methodEnd = Self.find(0x20, in: line, from: 0), Self.isToken(line, 0..<methodEnd) else { throw bad }
        let rest = line[(methodEnd + 1)...]
        guard let targetEnd = rest.firstIndex(of: 0x20), targetEnd > rest.startIndex,
              rest[rest.startIndex..<targetEnd].allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { throw bad }
        let version = UnsafeRawBufferPointer(rebasing: rest[(targetEnd + 1)...])
        guard version.count == 8, Self.hasPrefix(version, "HTTP/1."), Self.isDigit(version[7]) else { throw bad }
        message.minorVersion = Int(version[7] &- 0x30)
        message.isHEADRequest = methodEnd == 4 && line[0] == 0x48 && line[1] == 0x45 && line[2] == 0x41 && line[3] == 0x44
    }

    /// A Content-Length value: digits, or a list of equal numbers (`5, 5`).
    private static func contentLength(_ value: UnsafeRawBufferPointer, at offset: Int) throws(HTTPScanError) -> Int {
        var result: Int?
        var current = 0
        var digits = 0
        var ended = false
        let notANumber = HTTPScanError(.badContentLength, at: offset, "Content-Length is not a number")
        func close() throws(HTTPScanError) {
            guard digits > 0 else { throw notANumber }
            if let result, result != current {
                throw HTTPScanError(.conflictingContentLength, at: offset, "two different Content-Length values")
            }
            result = current
            current = 0
            digits = 0
            ended = false
        }
        for byte in value {
            if isDigit(byte) {
                // Spaces are allowed around the commas, not inside a number.
                guard !ended else { throw notANumber }
                guard digits < 18 else { throw HTTPScanError(.badContentLength, at: offset, "Content-Length is too large") }
                current = current * 10 + Int(byte &- 0x30)
                digits += 1
            } else if byte == 0x2C {
                try close()
            } else if byte == 0x20 || byte == 0x09 {
                ended = digits > 0
            } else {
                throw notANumber
            }
        }
        try close()
        return result ?? 0
    }

    /// A chunk-size line's size: hexadecimal digits, then optional extensions.
    private static func chunkSize(_ line: UnsafeRawBufferPointer, at offset: Int) throws(HTTPScanError) -> Int {
        let content = trimmingCR(UnsafeRawBufferPointer(rebasing: line[0..<(line.count - 1)]))
        var size = 0
        var digits = 0
        var index = 0
        while index < content.count, let value = hexValue(content[index]) {
            guard digits < 15 else { throw HTTPScanError(.badChunk, at: offset, "a chunk size is too large") }
            size = size * 16 + value
            digits += 1
            index += 1
        }
        guard digits > 0 else { throw HTTPScanError(.badChunk, at: offset, "a chunk-size line does not start with a hexadecimal size") }
        while index < content.count, content[index] == 0x20 || content[index] == 0x09 { index += 1 }
        guard index == content.count || content[index] == 0x3B else {
            throw HTTPScanError(.badChunk, at: offset, "a chunk-size line has bytes after the size")
        }
        return size
    }
}
