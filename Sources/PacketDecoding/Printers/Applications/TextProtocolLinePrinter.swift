/// A line-oriented text protocol as tcpdump's `txtproto_print` sees it: the name it prints and,
/// for the HTTP-like ones, the request methods that mark a payload worth printing.
struct TextProtocol {
    /// tcpdump's `ndo_protocol`, named by ` [|name]`.
    let name: StaticString
    /// The same name in capitals, printed first (`nd_print_protocol_caps`).
    let capitalName: StaticString
    /// The request methods (compared without regard to ASCII case); nil when every payload is
    /// printed (FTP, SMTP, whois). With a table, a payload is printed only when its first token
    /// is one of them or its second token is a three-digit status code.
    let commands: [[UInt8]]?
}

/// The longest token tcpdump's `fetch_token` accepts (its buffer holds `MAX_TOKEN` + 1 bytes).
private let maximumTokenLength = 128

extension PacketPrinter {
    /// tcpdump's `txtproto_print`: the capitalised protocol name, then (when the payload looks
    /// like a request or response) `: ` and its first line, or with `-v` `, length: N` and every
    /// line on its own `\n\t`-indented line until one is not printable text.
    ///
    /// A line that runs to the end of the payload without CR-LF or LF ends with ` [|name]`; a
    /// CR not followed by LF or a byte outside printable ASCII and tab stops the printing
    /// silently; bytes beyond the capture throw (` [|name]` by ``print(_:_:into:)``).
    mutating func printTextProtocol(
        _ text: TextProtocol, _ cursor: ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        protocolName = text.name
        var printed = true
        if let commands = text.commands {
            printed = false
            if let first = Self.fetchToken(cursor, payload, from: 0, length: length) {
                if Self.isCommand(cursor, first, commands) { printed = true }
                if let second = Self.fetchToken(cursor, payload, from: first.next, length: length),
                   Self.isStatusCode(cursor, second) {
                    printed = true
                }
            }
        }
        out.append(text.capitalName)
        guard printed else { return }
        if options.verbosity > 0 {
            out.append(", length: ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            var index = 0
            while index < length {
                let next = try appendTextLine(prefix: "\n\t", cursor, payload, from: index, length: length, into: &out)
                if next == 0 { break }
                index = next
            }
        } else {
            _ = try appendTextLine(prefix: ": ", cursor, payload, from: 0, length: length, into: &out)
        }
    }

    /// tcpdump's `print_txt_line`: `prefix` and the line starting `index` bytes into the payload
    /// if it ends with LF or CR-LF; the index after that line ending, or 0 when nothing more
    /// may be printed (binary data, a lone CR, or a last line without ending, which is printed
    /// followed by ` [|name]`).
    private func appendTextLine(
        prefix: StaticString, _ cursor: ByteCursor, _ payload: Int, from index: Int, length: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int {
        let start = index
        var index = index
        var lineEnd = 0
        var next = 0
        while index < length {
            let byte = try cursor.u8(payload &+ index)
            if byte == 0x0A {
                lineEnd = index
                next = index + 1
                break
            } else if byte == 0x0D {
                if index + 1 >= length { return 0 }
                guard try cursor.u8(payload &+ index &+ 1) == 0x0A else { return 0 }
                lineEnd = index
                next = index + 2
                break
            } else if !(0x20...0x7E).contains(byte) && byte != 0x09 {
                return 0
            }
            index += 1
        }
        out.append(prefix)
        if next == 0 {
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: cursor.bytes[(payload + start)..<(payload + index)]))
            out.append(" [|")
            out.append(protocolName)
            out.append("]")
            return 0
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: cursor.bytes[(payload + start)..<(payload + lineEnd)]))
        return next
    }

    /// A token found by ``fetchToken(_:_:from:length:)``: `count` bytes at frame offset
    /// `start`, and the payload index of what follows it and the spaces after it.
    private struct TextToken {
        var start: Int
        var count: Int
        var next: Int
    }

    /// tcpdump's `fetch_token`: the printable ASCII characters from `index` up to a space, tab,
    /// CR or LF, and the spaces after them; nil when there is no such token (an empty one, a
    /// byte above 0x7F or a control character in it, one of more than 128 characters, or the
    /// capture ends inside it).
    private static func fetchToken(_ cursor: ByteCursor, _ payload: Int, from index: Int, length: Int) -> TextToken? {
        var index = index
        let start = index
        while index < length {
            guard cursor.has(payload &+ index, 1) else { return nil }
            let byte = cursor.bytes[payload + index]
            if byte >= 0x80 { return nil }
            if byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A { break }
            if !(0x20...0x7E).contains(byte) { return nil }
            if index - start >= maximumTokenLength { return nil }
            index += 1
        }
        let count = index - start
        if count == 0 { return nil }
        while index < length && cursor.has(payload &+ index, 1) && cursor.bytes[payload + index] == 0x20 {
            index += 1
        }
        return TextToken(start: payload &+ start, count: count, next: index)
    }

    /// The token equals one of `commands` without regard to ASCII case (`ascii_strcasecmp`).
    private static func isCommand(_ cursor: ByteCursor, _ token: TextToken, _ commands: [[UInt8]]) -> Bool {
        for command in commands where command.count == token.count {
            var index = 0
            while index < token.count {
                var byte = cursor.bytes[token.start + index]
                if (0x41...0x5A).contains(byte) { byte |= 0x20 }
                var expected = command[index]
                if (0x41...0x5A).contains(expected) { expected |= 0x20 }
                if byte != expected { break }
                index += 1
            }
            if index == token.count { return true }
        }
        return false
    }

    /// The token is exactly three decimal digits (a response's status code).
    private static func isStatusCode(_ cursor: ByteCursor, _ token: TextToken) -> Bool {
        guard token.count == 3 else { return false }
        for index in 0..<3 where !(0x30...0x39).contains(cursor.bytes[token.start + index]) {
            return false
        }
        return true
    }
}
