/// Checks shared by the fuzz targets (compiled into each of them).
enum PrintedText {
    /// Traps unless a view item prints as text (``check(_:)``) and as one JSON line
    /// (``checkEscapedJSON(_:)``).
    static func check(_ item: ViewItem) {
        var text: [UInt8] = []
        item.appendText(into: &text)
        text.append(0x0A)
        check(text)
        var json: [UInt8] = []
        item.appendJSON(into: &json)
        json.append(0x0A)
        checkEscapedJSON(json)
    }

    /// Traps unless `text` is printer output a terminal can take: it ends in LF and holds only
    /// tab, LF and 0x20–0x7E (robustness checklist #23: never write raw bytes).
    static func check(_ text: [UInt8]) {
        guard text.last == 0x0A else { fatalError("printed text does not end in a newline") }
        for byte in text where !(byte == 0x09 || byte == 0x0A || (0x20...0x7E).contains(byte)) {
            fatalError("printed text holds the raw byte \(byte)")
        }
    }

    /// Traps unless `text` is one `PacketJSON` line: `{`, printable ASCII without backslashes
    /// (PacketJSON writes nothing that needs escaping), an even number of quotes, `}` and LF.
    static func checkJSON(_ text: [UInt8]) {
        guard text.count >= 3, text.first == UInt8(ascii: "{"), text[text.count - 2] == UInt8(ascii: "}"),
              text.last == 0x0A else { fatalError("JSON line is not {...}\\n") }
        var quotes = 0
        for byte in text.dropLast() {
            guard (0x20...0x7E).contains(byte), byte != UInt8(ascii: "\\") else { fatalError("JSON holds the byte \(byte)") }
            if byte == UInt8(ascii: "\"") { quotes += 1 }
        }
        guard quotes % 2 == 0 else { fatalError("JSON has unbalanced quotes") }
    }

    /// Traps unless `text` is one `PacketJSONWriter` line: like ``checkJSON(_:)``, but strings
    /// from the wire (the views' names and payloads) may hold the escapes `\"`, `\\` and
    /// `\u00XX`, and nothing else after a backslash.
    static func checkEscapedJSON(_ text: [UInt8]) {
        guard text.count >= 3, text.first == UInt8(ascii: "{"), text[text.count - 2] == UInt8(ascii: "}"),
              text.last == 0x0A else { fatalError("JSON line is not {...}\\n") }
        var quotes = 0
        var index = 0
        let body = Array(text.dropLast())
        while index < body.count {
            let byte = body[index]
            guard (0x20...0x7E).contains(byte) else { fatalError("JSON holds the byte \(byte)") }
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < body.count else { fatalError("JSON ends in a backslash") }
                let next = body[index + 1]
                if next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                guard next == UInt8(ascii: "u"), index + 5 < body.count, body[index + 2] == 0x30, body[index + 3] == 0x30,
                      body[(index + 4)...(index + 5)].allSatisfy({ hexDigits.contains($0) }) else { fatalError("JSON has a bad escape") }
                index += 6
                continue
            }
            if byte == UInt8(ascii: "\"") { quotes += 1 }
            index += 1
        }
        guard quotes % 2 == 0 else { fatalError("JSON has unbalanced quotes") }
    }

    static let hexDigits = Set("0123456789abcdef".utf8)
}
