import HTTPScanning

/// Reads one whole HTTP/1.1 message out of contiguous bytes for ``HTTPMessage``: the start line,
/// the fields, where the body's pieces lie (offsets, so the body is sliced, not copied, when it
/// is one piece) and the trailers. Every index is checked against the end; numbers are bounded
/// before they are multiplied.
struct HTTPMessageParser {
    /// What ``parse()`` found.
    struct Parsed {
        var startLine = ""
        var headers: [(name: String, value: String)] = []
        var trailers: [(name: String, value: String)] = []
        var isResponse = false
        var status = 0
        var reason = ""
        var method = ""
        var target = ""
        var minorVersion = 1
        var isChunked = false
        var hadConflictingFraming = false
        /// The body's pieces as offsets into the input.
        var body: [Range<Int>] = []
    }

    let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    var position = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func parse() throws(SocketEngineError) -> Parsed {
        var parsed = Parsed()
        var first = try line(what: "start line")
        while first.isEmpty && position < bytes.count { first = try line(what: "start line") }
        parsed.startLine = text(first)
        try readStartLine(first, into: &parsed)
        parsed.headers = try fields(what: "header")
        try readBody(into: &parsed)
        guard position == bytes.count else {
            throw HTTPMessage.malformed(at: position, "\(bytes.count - position) bytes after the end of the message")
        }
        return parsed
    }

    // MARK: Start line

    private func readStartLine(_ range: Range<Int>, into parsed: inout Parsed) throws(SocketEngineError) {
        if starts(range, with: "HTTP/") {
            parsed.isResponse = true
            // HTTP/1.x SP DDD [SP reason]
            let start = range.lowerBound
            guard range.count >= 12, starts(range, with: "HTTP/1."), isDigit(bytes[start + 7]), bytes[start + 8] == 0x20
            else {
                throw HTTPMessage.malformed(at: start, "expected 'HTTP/1.x NNN reason' in a status line")
            }
            parsed.minorVersion = Int(bytes[start + 7] - 0x30)
            var code = 0
            for index in (start + 9)..<(start + 12) {
                guard isDigit(bytes[index]) else { throw HTTPMessage.malformed(at: index, "the status code is not three digits") }
                code = code * 10 + Int(bytes[index] - 0x30)
            }
            guard code >= 100 else { throw HTTPMessage.malformed(at: start + 9, "status code \(code) is below 100") }
            parsed.status = code
            if range.count > 12 {
                guard bytes[start + 12] == 0x20 else {
                    throw HTTPMessage.malformed(at: start + 12, "the status code is not three digits")
                }
                parsed.reason = text((start + 13)..<range.upperBound)
            }
            return
        }
        // method SP target SP HTTP/1.x
        var index = range.lowerBound
        while index < range.upperBound && isTokenCharacter(bytes[index]) { index += 1 }
        guard index > range.lowerBound, index < range.upperBound, bytes[index] == 0x20 else {
            throw HTTPMessage.malformed(at: index, "expected 'METHOD target HTTP/1.x' in a request line")
        }
        parsed.method = text(range.lowerBound..<index)
        let targetStart = index + 1
        index = targetStart
        while index < range.upperBound && bytes[index] > 0x20 && bytes[index] != 0x7F { index += 1 }
        guard index > targetStart, index < range.upperBound, bytes[index] == 0x20 else {
            throw HTTPMessage.malformed(at: index, "expected 'METHOD target HTTP/1.x' in a request line")
        }
        parsed.target = text(targetStart..<index)
        let version = (index + 1)..<range.upperBound
        guard version.count == 8, starts(version, with: "HTTP/1."), isDigit(bytes[version.upperBound - 1]) else {
            throw HTTPMessage.malformed(at: index + 1, "expected 'HTTP/1.x' at the end of the request line")
        }
        parsed.minorVersion = Int(bytes[version.upperBound - 1] - 0x30)
    }

    // MARK: Fields

    /// Field lines up to and including the empty line that ends them.
    private mutating func fields(what: String) throws(SocketEngineError) -> [(name: String, value: String)] {
        var found: [(name: String, value: String)] = []
        while true {
            let range = try line(what: "\(what) section")
            if range.isEmpty { return found }
            var colon = range.lowerBound
            while colon < range.upperBound && isTokenCharacter(bytes[colon]) { colon += 1 }
            guard colon > range.lowerBound, colon < range.upperBound, bytes[colon] == UInt8(ascii: ":") else {
                let why =
                    range.lowerBound < bytes.count && isBlank(bytes[range.lowerBound])
                    ? "a folded \(what) line (obsolete line folding)" : "a \(what) line without 'name:'"
                throw HTTPMessage.malformed(at: colon, why)
            }
            var valueStart = colon + 1
            var valueEnd = range.upperBound
            while valueStart < valueEnd && isBlank(bytes[valueStart]) { valueStart += 1 }
            while valueEnd > valueStart && isBlank(bytes[valueEnd - 1]) { valueEnd -= 1 }
            for index in valueStart..<valueEnd where isForbiddenInValue(bytes[index]) {
                throw HTTPMessage.malformed(at: index, "a control character in a \(what) value")
            }
            found.append((name: text(range.lowerBound..<colon), value: text(valueStart..<valueEnd)))
        }
    }

    // MARK: Body (RFC 9112 §6.3)

    private mutating func readBody(into parsed: inout Parsed) throws(SocketEngineError) {
        let rest = bytes.count - position
        let encodings = parsed.headers.filter { HTTPMessage.sameName($0.name, "transfer-encoding") }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
            .filter { !$0.isEmpty }
        let length = try contentLength(parsed.headers)
        parsed.hadConflictingFraming = !encodings.isEmpty && length != nil
        if parsed.isResponse && (HTTPMessage.hasNoBody(status: parsed.status) || rest == 0) {
            return
        }
        if !encodings.isEmpty {
            if encodings.last == "chunked" {
                parsed.isChunked = true
                try readChunks(into: &parsed)
            } else if parsed.isResponse {
                parsed.body = [position..<bytes.count]
                position = bytes.count
            } else {
                throw HTTPMessage.malformed(at: position, "a request's Transfer-Encoding does not end in chunked")
            }
        } else if let length {
            guard length <= rest else {
                throw HTTPMessage.malformed(at: bytes.count, "the body is \(length - rest) bytes short of Content-Length \(length)")
            }
            parsed.body = [position..<(position + length)]
            position += length
        } else if parsed.isResponse {
            parsed.body = [position..<bytes.count]
            position = bytes.count
        }
    }

    /// The one `Content-Length` of the fields (equal repeats and lists allowed), or nil.
    private func contentLength(_ headers: [(name: String, value: String)]) throws(SocketEngineError) -> Int? {
        var found: Int?
        for field in headers where HTTPMessage.sameName(field.name, "content-length") {
            for element in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = element.filter { $0 != " " && $0 != "\t" }
                guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits)
                else {
                    throw HTTPMessage.malformed(at: position, "Content-Length '\(field.value)' is not a number")
                }
                if let found, found != value {
                    throw HTTPMessage.malformed(at: position, "differing Content-Length values \(found) and \(value)")
                }
                found = value
            }
        }
        return found
    }

    /// Chunks up to the last (size 0), then the trailer section.
    private mutating func readChunks(into parsed: inout Parsed) throws(SocketEngineError) {
        while true {
            let sizeLine = try line(what: "chunk size line")
            var size = 0
            var index = sizeLine.lowerBound
            while index < sizeLine.upperBound, let digit = hexValue(bytes[index]) {
                guard index - sizeLine.lowerBound < 15 else {
                    throw HTTPMessage.malformed(at: index, "a chunk size of more than 15 hex digits")
                }
                size = size << 4 | digit
                index += 1
            }
            guard index > sizeLine.lowerBound else { throw HTTPMessage.malformed(at: index, "a chunk size that is not hex") }
            while index < sizeLine.upperBound && isBlank(bytes[index]) { index += 1 }
            guard index == sizeLine.upperBound || bytes[index] == UInt8(ascii: ";") else {
                throw HTTPMessage.malformed(at: index, "a chunk size followed by something other than ';extension'")
            }
            if size == 0 { break }
            guard size <= bytes.count - position else {
                throw HTTPMessage.malformed(at: bytes.count, "a chunk cut \(size - (bytes.count - position)) bytes short")
            }
            parsed.body.append(position..<(position + size))
            position += size
            let end = try line(what: "chunk")
            guard end.isEmpty else { throw HTTPMessage.malformed(at: end.lowerBound, "a chunk longer than its size") }
        }
        parsed.trailers = try fields(what: "trailer")
    }

    // MARK: Bytes

    /// The next line without its CRLF (or bare LF); the position moves past the line end.
    private mutating func line(what: String) throws(SocketEngineError) -> Range<Int> {
        var index = position
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A {
                var end = index
                if end > position && bytes[end - 1] == 0x0D { end -= 1 }
                let found = position..<end
                position = index + 1
                return found
            }
            if byte == 0x0D && (index + 1 == bytes.count || bytes[index + 1] != 0x0A) {
                throw HTTPMessage.malformed(at: index, "a bare CR in the \(what)")
            }
            index += 1
        }
        throw HTTPMessage.malformed(at: bytes.count, "the \(what) has no line end")
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private func starts(_ range: Range<Int>, with prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { wanted in
            guard range.count >= wanted.count else { return false }
            return (0..<wanted.count).allSatisfy { bytes[range.lowerBound + $0] == wanted[$0] }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: return Int(byte - 0x30)
        case 0x41...0x46: return Int(byte - 0x41 + 10)
        case 0x61...0x66: return Int(byte - 0x61 + 10)
        default: return nil
        }
    }

    /// RFC 9110 §5.6.2 `tchar`: the characters of a method or a field name.
    private func isTokenCharacter(_ byte: UInt8) -> Bool {
        HTTPMessageScanner.isTokenByte(byte)
    }

    /// Control characters other than tab (RFC 9110 §5.5); obs-text (0x80–0xFF) is allowed.
    private func isForbiddenInValue(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}
