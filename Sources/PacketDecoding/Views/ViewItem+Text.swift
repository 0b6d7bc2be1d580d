/// One line of text per item, for `capture --decode` (after tcpdump's header line, indented)
/// and `--follow` (after the stream marker). Printable ASCII only: names and payloads from the
/// wire are escaped (`\r`, `\n`, `\t`, `\\`, `\"`, `\xHH`).
///
/// ```
/// TLS handshake ClientHello (TLSv1.0 record, length 512): SNI example.com, ALPN [h2, http/1.1], versions [TLSv1.3, TLSv1.2]
/// TLS handshake ServerHello (TLSv1.2 record, length 122): version TLSv1.3, cipher TLS_AES_128_GCM_SHA256
/// TLS alert fatal handshake_failure (TLSv1.2 record, length 2)
/// WebSocket upgrade request GET /chat
/// WebSocket text, FIN, masked, length 5: "hello"
/// WebSocket close, FIN, length 5, code 1000 (normal): "bye"
/// HTTP/2 SETTINGS, stream 0, length 12: MAX_CONCURRENT_STREAMS 100, INITIAL_WINDOW_SIZE 65535
/// HTTP/2 HEADERS, stream 1, length 32, flags END_STREAM|END_HEADERS
/// HTTP/2 headers, stream 1: :method: GET, :path: /, :scheme: http, :authority: example.com
/// gRPC message, stream 1, length 5: "hello"
/// HTTP request GET / HTTP/1.1 | Host: example.com, Accept: */* | no body
/// HTTP response HTTP/1.1 200 OK | Content-Length: 5 | body 5 bytes (Content-Length)
/// PROXY protocol v2 192.0.2.7:40001 > 198.51.100.1:443
/// ```
extension ViewItem {
    package func appendText(into out: inout [UInt8]) {
        switch self {
        case .tls(let record): record.appendText(into: &out)
        case .webSocketUpgrade(.request(let target)):
            out.append("WebSocket upgrade request GET ")
            out.appendEscapedText(target, limit: 256)
        case .webSocketUpgrade(.response(let status)):
            out.append(status == 101 ? "WebSocket upgrade accepted (101)" : "WebSocket upgrade refused (")
            if status != 101 {
                out.appendDecimal(status)
                out.append(")")
            }
        case .webSocketFrame(let frame): frame.appendText(into: &out)
        case .webSocketMessage(let message): message.appendText(into: &out)
        case .http2Preface: out.append("HTTP/2 connection preface")
        case .http2Frame(let frame): frame.appendText(into: &out)
        case .http2Headers, .http2HeadersNotDecoded, .grpcMessage: appendHTTP2Text(into: &out)
        case .httpMessage(let message): message.appendText(into: &out)
        case .lostSync(let view):
            out.append(view == .tls ? "TLS" : view == .webSocket ? "WebSocket" : view == .http ? "HTTP/1.1" : "HTTP/2")
            out.append(": lost track of this direction (a gap or reordering in the capture)")
        case .tlsDecrypted(let length, let bytes):
            out.append("TLS decrypted application data, length ")
            out.appendDecimal(length)
            out.append(": ")
            out.appendEscapedText(bytes, limit: bytes.count)
            if bytes.count < length { out.append("...") }
        case .tlsNotDecrypted(let failure):
            out.append("TLS not decrypted: ")
            out.append(contentsOf: failure.text.utf8)
        case .proxyHeader(let header):
            out.append("PROXY protocol ")
            out.append(contentsOf: header.description.utf8)
        case .proxyHeaderMalformed(let failure):
            out.append("PROXY protocol header malformed: ")
            out.append(contentsOf: failure.description.utf8)
        }
    }
}

extension TLSRecordSummary {
    func appendText(into out: inout [UInt8]) {
        out.append("TLS ")
        if let name = TLSNames.contentType(contentType) { out.append(name) }
        if encrypted {
            out.append(", encrypted")
        } else if let level = alertLevel, let description = alertDescription {
            out.append(level == 2 ? " fatal " : level == 1 ? " warning " : " level ")
            if level != 1 && level != 2 {
                out.appendDecimal(level)
                out.append(" ")
            }
            if let name = TLSNames.alert(description) { out.append(name) } else { out.appendDecimal(description) }
        }
        for (index, type) in handshakeTypes.enumerated() {
            out.append(index == 0 ? " " : ", ")
            if let name = TLSNames.handshake(type) { out.append(name) } else {
                out.append("type ")
                out.appendDecimal(type)
            }
        }
        if continues { out.append(" (continues)") }
        out.append(" (")
        appendVersion(version, into: &out)
        out.append(" record, length ")
        out.appendDecimal(length)
        out.append(")")
        var separator: StaticString = ": "
        func field(_ name: StaticString, _ out: inout [UInt8]) {
            out.append(separator)
            out.append(name)
            separator = ", "
        }
        if let serverName {
            field("SNI ", &out)
            out.appendEscapedText(serverName, limit: 255)
        }
        if !alpn.isEmpty {
            field("ALPN [", &out)
            for (index, name) in alpn.enumerated() {
                if index > 0 { out.append(", ") }
                out.appendEscapedText(name, limit: 255)
            }
            out.append("]")
        }
        if !offeredVersions.isEmpty {
            field("versions [", &out)
            for (index, offered) in offeredVersions.enumerated() {
                if index > 0 { out.append(", ") }
                appendVersion(offered, into: &out)
            }
            out.append("]")
        }
        if let selectedVersion {
            field("version ", &out)
            appendVersion(selectedVersion, into: &out)
        }
        if let cipherSuite {
            field("cipher ", &out)
            if let name = TLSNames.cipherSuite(cipherSuite) { out.append(name) } else {
                out.append("0x")
                out.appendHex(UInt64(cipherSuite), minimumDigits: 4)
            }
        }
    }

    func appendVersion(_ version: UInt16, into out: inout [UInt8]) {
        if let name = TLSNames.version(version) { out.append(name) } else {
            out.append("0x")
            out.appendHex(UInt64(version), minimumDigits: 4)
        }
    }
}

extension WebSocketFrameSummary {
    func appendText(into out: inout [UInt8]) {
        out.append("WebSocket ")
        if let name = WebSocketNames.opcode(opcode) { out.append(name) } else {
            out.append("opcode ")
            out.appendDecimal(opcode)
        }
        if fin { out.append(", FIN") }
        if reserved & 4 != 0 { out.append(", compressed") }
        for bit in 1..<3 where reserved & (4 >> UInt8(bit)) != 0 {
            out.append(", RSV")
            out.appendDecimal(bit + 1)
        }
        if masked { out.append(", masked") }
        out.append(", length ")
        out.appendDecimal(length)
        if let closeCode {
            out.append(", code ")
            out.appendDecimal(closeCode)
            if let name = WebSocketNames.closeCode(closeCode) {
                out.append(" (")
                out.append(name)
                out.append(")")
            }
        }
        guard !payload.isEmpty else { return }
        out.append(": ")
        // Binary, compressed (permessage-deflate: the inflated message follows as its own item)
        // or a control frame with bytes that are not text: hex.
        if opcode == 2 || compressed || reserved & 4 != 0 || (opcode >= 9 && opcode <= 10 && payload.contains { $0 < 0x20 || $0 > 0x7E }) {
            out.append("0x")
            for byte in payload { out.appendHex(UInt64(byte), minimumDigits: 2) }
        } else {
            out.append("\"")
            out.appendEscapedText(payload, limit: payload.count)
            out.append("\"")
        }
        if !payloadComplete { out.append("...") }
    }
}

extension WebSocketMessageSummary {
    func appendText(into out: inout [UInt8]) {
        if let problem {
            out.append("WebSocket compressed message not inflated: ")
            out.append(contentsOf: problem.utf8)
            return
        }
        out.append(opcode == 1 ? "WebSocket message, text, inflated " : "WebSocket message, binary, inflated ")
        out.appendDecimal(length)
        out.append(length == 1 ? " byte" : " bytes")
        guard !payload.isEmpty else { return }
        out.append(": ")
        if opcode == 1 {
            out.append("\"")
            out.appendEscapedText(payload, limit: payload.count)
            out.append("\"")
        } else {
            out.append("0x")
            for byte in payload { out.appendHex(UInt64(byte), minimumDigits: 2) }
        }
        if !payloadComplete { out.append("...") }
    }
}

extension HTTP2FrameSummary {
    func appendText(into out: inout [UInt8]) {
        out.append("HTTP/2 ")
        if let name = HTTP2Names.frameType(type) { out.append(name) } else {
            out.append("type 0x")
            out.appendHex(UInt64(type), minimumDigits: 2)
        }
        out.append(", stream ")
        out.appendDecimal(stream)
        out.append(", length ")
        out.appendDecimal(length)
        if flags != 0 {
            out.append(", flags ")
            var known: UInt8 = 0
            var first = true
            for (bit, name) in HTTP2Names.flags(of: type) where flags & bit != 0 {
                if !first { out.append("|") }
                out.append(name)
                known |= bit
                first = false
            }
            if flags & ~known != 0 {
                if !first { out.append("|") }
                out.append("0x")
                out.appendHex(UInt64(flags & ~known), minimumDigits: 2)
            }
        }
        var separator: StaticString = ": "
        for setting in settings {
            out.append(separator)
            separator = ", "
            if let name = HTTP2Names.setting(setting.identifier) { out.append(name) } else {
                out.append("0x")
                out.appendHex(UInt64(setting.identifier), minimumDigits: 4)
            }
            out.append(" ")
            out.appendDecimal(setting.value)
        }
        if let lastStream {
            out.append(separator)
            separator = ", "
            out.append("last stream ")
            out.appendDecimal(lastStream)
        }
        if let errorCode {
            out.append(separator)
            separator = ", "
            if let name = HTTP2Names.errorCode(errorCode) { out.append(name) } else {
                out.append("error 0x")
                out.appendHex(UInt64(errorCode))
            }
        }
        if let increment {
            out.append(separator)
            separator = ", "
            out.append("increment ")
            out.appendDecimal(increment)
        }
        if let opaque {
            out.append(separator)
            out.append("0x")
            out.appendHex(opaque, minimumDigits: 16)
        }
    }
}

extension Array where Element == UInt8 {
    /// Bytes from the wire as printable ASCII: `\r`, `\n`, `\t`, `\\`, `\"` and `\xHH` for the
    /// rest; at most `limit` bytes, then `...`.
    mutating func appendEscapedText(_ bytes: [UInt8], limit: Int) {
        for (index, byte) in bytes.enumerated() {
            if index >= limit {
                append("...")
                return
            }
            switch byte {
            case 0x0D: append("\\r")
            case 0x0A: append("\\n")
            case 0x09: append("\\t")
            case 0x5C: append("\\\\")
            case 0x22: append("\\\"")
            case 0x20...0x7E: append(byte)
            default:
                append("\\x")
                appendHex(UInt64(byte), minimumDigits: 2)
            }
        }
    }
}
