/// What tcpdump's `resp_get_length` made of a bulk string's or an array's length field.
private enum RESPLength {
    /// A length from 0 to `Int32.max`.
    case value(Int)
    /// `-1`: null.
    case null
    /// The payload ended inside the field.
    case truncated
    /// More than `Int32.max`.
    case tooLarge
    /// Negative and not `-1`.
    case negative
    /// No digits, or not followed by CR-LF.
    case invalid

    /// What tcpdump prints for a length that is not a count (` null`, ` length too large`,
    /// ` length negative and not -1`, ` invalid`), the same for bulk strings and arrays; false
    /// for ``truncated`` (and ``value(_:)``), where the item ends the payload.
    func appendProblem(into out: inout [UInt8]) -> Bool {
        switch self {
        case .null: out.append(" null")
        case .tooLarge: out.append(" length too large")
        case .negative: out.append(" length negative and not -1")
        case .invalid: out.append(" invalid")
        case .truncated, .value: return false
        }
        return true
    }
}

extension PacketPrinter {
    /// tcpdump's `resp_print`: `: RESP` and each item of the payload (Redis pipelines several):
    /// ` "text"` for simple strings, errors, integers, bulk strings and inline commands (bytes
    /// escaped as `fn_print_char` does), ` empty`, ` null`, ` length too large`,
    /// ` length negative and not -1`, ` invalid` for the special lengths, arrays as their items.
    ///
    /// An item that does not fit the payload or the capture ends the line with ` [|resp]`; a
    /// read tcpdump does not check first throws instead. Nested arrays are walked without
    /// recursion: only the number of items still owed matters (every item, nested or not,
    /// continues at the same place), and every item consumes at least one byte, so a huge
    /// array count stops at the end of the payload.
    mutating func printRESP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "resp"
        out.append(": RESP")
        let end = payload + length
        var position = payload
        while position < end {
            var owed = 1
            while owed > 0 {
                owed -= 1
                guard let next = try parseRESPItem(cursor, at: position, end: end, owed: &owed, into: &out) else {
                    out.append(" [|resp]")
                    return
                }
                position = next
            }
        }
    }

    /// tcpdump's `resp_parse` for one item at `position` (an array adds its count to `owed`
    /// instead of parsing its items): where the next item starts, nil for tcpdump's `trunc`.
    private func parseRESPItem(
        _ cursor: ByteCursor, at position: Int, end: Int, owed: inout Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int? {
        guard position < end else { return nil }
        switch try cursor.u8(position) {
        case UInt8(ascii: "+"), UInt8(ascii: ":"), UInt8(ascii: "-"):
            let text = position + 1
            guard let lineEnd = Self.findCRLF(cursor, from: text, end: end) else { return nil }
            Self.appendRESPSegment(cursor, from: text, to: lineEnd, into: &out)
            return lineEnd + 2
        case UInt8(ascii: "$"):
            var next = position + 1
            switch try Self.respLength(cursor, at: &next, end: end) {
            case .value(let count):
                if count == 0 {
                    out.append(" empty")
                } else {
                    guard count <= end - next, cursor.has(next, count) else { return nil }
                    Self.appendRESPSegment(cursor, from: next, to: next + count, into: &out)
                    next += count
                }
                guard let crlf = Self.findCRLF(cursor, from: next, end: end) else { return nil }
                return crlf + 2
            case let other:
                guard other.appendProblem(into: &out) else { return nil }
            }
            return next
        case UInt8(ascii: "*"):
            var next = position + 1
            switch try Self.respLength(cursor, at: &next, end: end) {
            case .value(let count):
                if count == 0 {
                    out.append(" empty")
                } else {
                    owed &+= count
                }
            case let other:
                guard other.appendProblem(into: &out) else { return nil }
            }
            return next
        default:
            return try parseRESPInline(cursor, at: position, end: end, into: &out)
        }
    }

    /// tcpdump's `resp_print_inline`: skips CRs and LFs, prints the text up to the next CR or
    /// LF, and skips the CRs and LFs after it.
    private func parseRESPInline(
        _ cursor: ByteCursor, at position: Int, end: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int? {
        guard let start = Self.skipCROrLF(cursor, from: position, end: end) else { return nil }
        var lineEnd = start
        while true {
            guard lineEnd < end else { return nil }
            let byte = try cursor.u8(lineEnd)
            if byte == 0x0D || byte == 0x0A { break }
            lineEnd += 1
        }
        Self.appendRESPSegment(cursor, from: start, to: lineEnd, into: &out)
        return Self.skipCROrLF(cursor, from: lineEnd, end: end)
    }

    /// tcpdump's `CONSUME_CR_OR_LF`: the position after the CRs and LFs at `position`; nil when
    /// the payload or the capture ends before anything else and none was seen.
    private static func skipCROrLF(_ cursor: ByteCursor, from position: Int, end: Int) -> Int? {
        var position = position
        var found = false
        while true {
            guard position < end, cursor.has(position, 1) else { return found ? position : nil }
            let byte = cursor.bytes[position]
            if byte != 0x0D && byte != 0x0A { return position }
            found = true
            position += 1
        }
    }

    /// tcpdump's `FIND_CRLF`: the position of the first CR-LF at or after `position`; nil when
    /// the payload or the capture ends first.
    private static func findCRLF(_ cursor: ByteCursor, from position: Int, end: Int) -> Int? {
        var position = position
        while true {
            guard end - position >= 2, cursor.has(position, 2) else { return nil }
            if cursor.bytes[position] == 0x0D && cursor.bytes[position + 1] == 0x0A { return position }
            position += 1
        }
    }

    /// tcpdump's `RESP_PRINT_SEGMENT` for captured bytes: ` "text"`, escaped.
    private static func appendRESPSegment(_ cursor: ByteCursor, from start: Int, to end: Int, into out: inout [UInt8]) {
        out.append(" \"")
        var index = start
        while index < end {
            out.appendEscapedCharacter(cursor.bytes[index])
            index += 1
        }
        out.append("\"")
    }

    /// tcpdump's `resp_get_length`: the decimal length (optionally `-`) ended by CR-LF at
    /// `position`, which is moved past what was read (past the first bad byte when invalid).
    private static func respLength(_ cursor: ByteCursor, at position: inout Int, end: Int) throws(PacketDecodingError) -> RESPLength {
        guard position < end else { return .truncated }
        var negative = false
        if try cursor.u8(position) == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        let limit = Int(Int32.max)
        var result = 0
        var sawDigit = false
        var tooLarge = false
        while true {
            guard position < end else { return .truncated }
            let byte = try cursor.u8(position)
            guard (0x30...0x39).contains(byte) else {
                if !sawDigit {
                    position += 1
                    return .invalid
                }
                break
            }
            let digit = Int(byte - 0x30)
            if result > limit / 10 {
                tooLarge = true
            } else {
                result *= 10
                if result == (limit / 10) * 10 && digit > limit % 10 {
                    tooLarge = true
                } else {
                    result += digit
                }
            }
            position += 1
            sawDigit = true
        }
        guard try cursor.u8(position) == 0x0D else {
            position += 1
            return .invalid
        }
        position += 1
        guard position < end else { return .truncated }
        guard try cursor.u8(position) == 0x0A else {
            position += 1
            return .invalid
        }
        position += 1
        if negative {
            return tooLarge || result != 1 ? .negative : .null
        }
        return tooLarge ? .tooLarge : .value(result)
    }
}
