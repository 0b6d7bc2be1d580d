/// One header field of a decoded block, its bytes as HPACK gave them.
package struct HTTP2HeaderField: Equatable, Sendable {
    package var name: [UInt8]
    package var value: [UInt8]

    package init(name: [UInt8], value: [UInt8]) {
        self.name = name
        self.value = value
    }
}

/// A decoded header block: the stream it opens or ends (for PUSH_PROMISE, also the stream it
/// promises) and its fields in order, pseudo-headers (`:method`, `:path`, `:status`, …) first.
package struct HTTP2HeaderList: Equatable, Sendable {
    package var stream: UInt32
    package var promisedStream: UInt32?
    package var fields: [HTTP2HeaderField]
}

/// Where a direction's header blocks stopped being decoded, and why.
package struct HTTP2HeadersNotDecoded: Equatable, Sendable {
    package enum Reason: Equatable, Sendable {
        /// The capture joined the connection late: a block named a table entry not seen.
        case tableUnknown
        /// The block is not valid HPACK.
        case invalid
        /// A block over the decoder's limit.
        case tooLarge
    }

    /// The stream of the first block not decoded.
    package var stream: UInt32
    package var reason: Reason
}

/// One gRPC message: its compressed flag, its length, and its first bytes.
package struct GRPCMessageSummary: Equatable, Sendable {
    package var stream: UInt32
    package var compressed: Bool
    package var length: Int
    /// Up to ``GRPCMessageReader/previewLimit`` bytes of the message.
    package var payload: [UInt8]

    /// Shown as text: uncompressed, and its bytes (those kept) valid UTF-8 without control
    /// characters other than tab, CR and LF — JSON among them.
    var isText: Bool {
        guard !compressed else { return false }
        var bytes = payload[...]
        // A preview may end inside a multi-byte character: check up to its last whole one.
        if payload.count < length {
            var cut = 0
            while cut < 3, let last = bytes.last, last & 0xC0 == 0x80 {
                bytes = bytes.dropLast()
                cut += 1
            }
            if let last = bytes.last, last & 0xC0 == 0xC0 { bytes = bytes.dropLast() }
        }
        guard String(validating: bytes, as: UTF8.self) != nil else { return false }
        return !bytes.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D || $0 == 0x7F }
    }
}

/// Text: `HTTP/2 headers, stream 1: :method: GET, :path: /index.html, …`,
/// `HTTP/2 headers not decoded from stream 5 on (…)`, `gRPC message, stream 1, length 12: "…"`.
extension ViewItem {
    static let headerTextLimit = 1024

    func appendHTTP2Text(into out: inout [UInt8]) {
        switch self {
        case .http2Headers(let list):
            out.append(list.promisedStream == nil ? "HTTP/2 headers, stream " : "HTTP/2 pushed request headers, stream ")
            out.appendDecimal(list.promisedStream ?? list.stream)
            if list.promisedStream != nil {
                out.append(" (promised on stream ")
                out.appendDecimal(list.stream)
                out.append(")")
            }
            var separator: StaticString = ": "
            for field in list.fields {
                out.append(separator)
                separator = ", "
                out.appendEscapedText(field.name, limit: Self.headerTextLimit)
                out.append(": ")
                out.appendEscapedText(field.value, limit: Self.headerTextLimit)
            }
        case .http2HeadersNotDecoded(let stop):
            out.append("HTTP/2 headers of this direction not decoded from stream ")
            out.appendDecimal(stop.stream)
            switch stop.reason {
            case .tableUnknown: out.append(" on: the HPACK table is unknown (the capture started after the connection did)")
            case .invalid: out.append(" on: not valid HPACK")
            case .tooLarge: out.append(" on: a header block over 64 KiB")
            }
        case .grpcMessage(let message):
            out.append("gRPC message, stream ")
            out.appendDecimal(message.stream)
            out.append(message.compressed ? ", compressed, length " : ", length ")
            out.appendDecimal(message.length)
            guard !message.compressed, message.length > 0 else { return }
            out.append(": ")
            if message.isText {
                out.append("\"")
                out.appendEscapedText(message.payload, limit: GRPCMessageReader.previewLimit)
                out.append("\"")
            } else {
                out.append("hex ")
                for byte in message.payload.prefix(32) { out.appendHex(UInt64(byte), minimumDigits: 2) }
            }
            if message.payload.count < message.length || (!message.isText && message.payload.count > 32) { out.append("...") }
        default:
            break
        }
    }

    /// JSON: `{"proto":"http2","stream":1,"headers":[["name","value"],…]}` (with
    /// `"promised_stream"` for PUSH_PROMISE), `{"proto":"http2","stream":5,"headers_not_decoded":
    /// "table_unknown"|"invalid"|"too_large"}`, `{"proto":"grpc","stream":1,"compressed":false,
    /// "length":12,"text":"…"}` (`"hex"` for a binary message, `"truncated":true` when only its
    /// first bytes were kept).
    func appendHTTP2JSON(into out: inout [UInt8]) {
        switch self {
        case .http2Headers(let list):
            out.append("{\"proto\":\"http2\",\"stream\":")
            out.appendDecimal(list.stream)
            if let promised = list.promisedStream {
                out.append(",\"promised_stream\":")
                out.appendDecimal(promised)
            }
            out.append(",\"headers\":[")
            for (index, field) in list.fields.enumerated() {
                if index > 0 { out.append(",") }
                out.append("[")
                out.appendJSONString(field.name)
                out.append(",")
                out.appendJSONString(field.value)
                out.append("]")
            }
            out.append("]}")
        case .http2HeadersNotDecoded(let stop):
            out.append("{\"proto\":\"http2\",\"stream\":")
            out.appendDecimal(stop.stream)
            out.append(",\"headers_not_decoded\":")
            switch stop.reason {
            case .tableUnknown: out.append("\"table_unknown\"}")
            case .invalid: out.append("\"invalid\"}")
            case .tooLarge: out.append("\"too_large\"}")
            }
        case .grpcMessage(let message):
            out.append("{\"proto\":\"grpc\",\"stream\":")
            out.appendDecimal(message.stream)
            out.append(message.compressed ? ",\"compressed\":true,\"length\":" : ",\"compressed\":false,\"length\":")
            out.appendDecimal(message.length)
            if !message.compressed && message.length > 0 {
                if message.isText {
                    out.append(",\"text\":")
                    out.appendJSONString(message.payload)
                } else {
                    out.append(",\"hex\":\"")
                    for byte in message.payload { out.appendHex(UInt64(byte), minimumDigits: 2) }
                    out.append("\"")
                }
                if message.payload.count < message.length { out.append(",\"truncated\":true") }
            }
            out.append("}")
        default:
            break
        }
    }
}
