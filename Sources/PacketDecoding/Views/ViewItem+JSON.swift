import ProxyProtocol

/// One JSON object per item, for the `"app"` array of the capture JSON output. Keys in this order, when
/// present:
///
/// - TLS: `"proto":"tls"`, `type` (`handshake`, `alert`, `application_data`, … or the number),
///   `version` (the record's, `TLSv1.2`), `length`, `encrypted`, `messages` (handshake message
///   names), `continues`, `sni`, `alpn`, `versions` (offered), `selected_version`, `cipher`,
///   `alert_level`, `alert`.
/// - WebSocket: `"proto":"ws"`, then `upgrade` (`request` with `target`, or `response` with
///   `status`), or a frame: `opcode` (name or number), `fin`, `rsv`, `masked`, `length`,
///   `close_code`, `payload` (the bytes kept, as a string: bytes outside printable ASCII as
///   `\u00XX`), `payload_complete`.
/// - HTTP/2: `"proto":"http2"`, then `preface: true`, or `type`, `flags`, `stream`, `length`,
///   `settings` (an object of name → value), `last_stream`, `error`, `increment`, `opaque`;
///   decoded header blocks and gRPC messages as ``appendHTTP2JSON(into:)`` says.
/// - HTTP/1.1: `"proto":"http"`, `type` (`request` or `response`), `method`, `target`,
///   `version` (a request) or `version`, `status`, `reason` (a response), `headers` (`[name,
///   value]` pairs in order), `body_framing` (`none`, `content-length`, `chunked`,
///   `until-close`), `body_length` (de-chunked).
/// - `{"proto":…,"lost_sync":true}` when a view lost its place.
/// - PROXY protocol: `{"proto":"proxy","version":"v2","source":"192.0.2.7:40001","destination":…}`
///   (`local`, `tlv_bytes` when so), `{"proto":"proxy","malformed":"why"}`.
/// - `--keylog`: `{"proto":"tls","type":"decrypted","length":N,"data":"<base64>","data_complete":true}`
///   for decrypted application data no other view shows, `{"proto":"tls","not_decrypted":"why"}`.
extension ViewItem {
    package func appendJSON(into out: inout [UInt8]) {
        switch self {
        case .tls(let record):
            out.append("{\"proto\":\"tls\",\"type\":")
            if let name = TLSNames.contentType(record.contentType) { out.appendJSONName(name) } else { out.appendDecimal(record.contentType) }
            out.append(",\"version\":\"")
            record.appendVersion(record.version, into: &out)
            out.append("\",\"length\":")
            out.appendDecimal(record.length)
            if record.encrypted { out.append(",\"encrypted\":true") }
            if !record.handshakeTypes.isEmpty {
                out.append(",\"messages\":[")
                for (index, type) in record.handshakeTypes.enumerated() {
                    if index > 0 { out.append(",") }
                    if let name = TLSNames.handshake(type) { out.appendJSONName(name) } else { out.appendDecimal(type) }
                }
                out.append("]")
            }
            if record.continues { out.append(",\"continues\":true") }
            if let name = record.serverName {
                out.append(",\"sni\":")
                out.appendJSONString(name)
            }
            if !record.alpn.isEmpty {
                out.append(",\"alpn\":[")
                for (index, name) in record.alpn.enumerated() {
                    if index > 0 { out.append(",") }
                    out.appendJSONString(name)
                }
                out.append("]")
            }
            if !record.offeredVersions.isEmpty {
                out.append(",\"versions\":[")
                for (index, version) in record.offeredVersions.enumerated() {
                    if index > 0 { out.append(",") }
                    out.append("\"")
                    record.appendVersion(version, into: &out)
                    out.append("\"")
                }
                out.append("]")
            }
            if let version = record.selectedVersion {
                out.append(",\"selected_version\":\"")
                record.appendVersion(version, into: &out)
                out.append("\"")
            }
            if let suite = record.cipherSuite {
                out.append(",\"cipher\":\"")
                if let name = TLSNames.cipherSuite(suite) { out.append(name) } else {
                    out.append("0x")
                    out.appendHex(UInt64(suite), minimumDigits: 4)
                }
                out.append("\"")
            }
            if let level = record.alertLevel, let description = record.alertDescription {
                out.append(",\"alert_level\":")
                out.appendDecimal(level)
                out.append(",\"alert\":")
                if let name = TLSNames.alert(description) { out.appendJSONName(name) } else { out.appendDecimal(description) }
            }
            out.append("}")
        case .webSocketUpgrade(.request(let target)):
            out.append("{\"proto\":\"ws\",\"upgrade\":\"request\",\"target\":")
            out.appendJSONString(target)
            out.append("}")
        case .webSocketUpgrade(.response(let status)):
            out.append("{\"proto\":\"ws\",\"upgrade\":\"response\",\"status\":")
            out.appendDecimal(status)
            out.append("}")
        case .webSocketFrame(let frame):
            out.append("{\"proto\":\"ws\",\"opcode\":")
            if let name = WebSocketNames.opcode(frame.opcode) { out.appendJSONName(name) } else { out.appendDecimal(frame.opcode) }
            out.append(frame.fin ? ",\"fin\":true" : ",\"fin\":false")
            if frame.reserved != 0 {
                out.append(",\"rsv\":")
                out.appendDecimal(frame.reserved)
            }
            out.append(frame.masked ? ",\"masked\":true" : ",\"masked\":false")
            out.append(",\"length\":")
            out.appendDecimal(frame.length)
            if frame.compressed { out.append(",\"compressed\":true") }
            if let code = frame.closeCode {
                out.append(",\"close_code\":")
                out.appendDecimal(code)
            }
            if !frame.payload.isEmpty {
                out.append(",\"payload\":")
                out.appendJSONString(frame.payload)
                out.append(frame.payloadComplete ? ",\"payload_complete\":true" : ",\"payload_complete\":false")
            }
            out.append("}")
        case .webSocketMessage(let message):
            out.append("{\"proto\":\"ws\",\"message\":")
            out.appendJSONName(message.opcode == 1 ? "text" : "binary")
            if let problem = message.problem {
                out.append(",\"inflated\":false,\"problem\":")
                out.appendJSONString(Array(problem.utf8))
            } else {
                out.append(",\"inflated\":true,\"length\":")
                out.appendDecimal(message.length)
                if !message.payload.isEmpty {
                    out.append(",\"payload\":")
                    out.appendJSONString(message.payload)
                    out.append(message.payloadComplete ? ",\"payload_complete\":true" : ",\"payload_complete\":false")
                }
            }
            out.append("}")
        case .http2Preface:
            out.append("{\"proto\":\"http2\",\"preface\":true}")
        case .http2Headers, .http2HeadersNotDecoded, .grpcMessage:
            appendHTTP2JSON(into: &out)
        case .http2Frame(let frame):
            out.append("{\"proto\":\"http2\",\"type\":")
            if let name = HTTP2Names.frameType(frame.type) { out.appendJSONName(name) } else { out.appendDecimal(frame.type) }
            out.append(",\"flags\":")
            out.appendDecimal(frame.flags)
            out.append(",\"stream\":")
            out.appendDecimal(frame.stream)
            out.append(",\"length\":")
            out.appendDecimal(frame.length)
            if !frame.settings.isEmpty {
                out.append(",\"settings\":{")
                for (index, setting) in frame.settings.enumerated() {
                    if index > 0 { out.append(",") }
                    out.append("\"")
                    if let name = HTTP2Names.setting(setting.identifier) { out.append(name) } else { out.appendDecimal(setting.identifier) }
                    out.append("\":")
                    out.appendDecimal(setting.value)
                }
                out.append("}")
            }
            if let last = frame.lastStream {
                out.append(",\"last_stream\":")
                out.appendDecimal(last)
            }
            if let code = frame.errorCode {
                out.append(",\"error\":")
                if let name = HTTP2Names.errorCode(code) { out.appendJSONName(name) } else { out.appendDecimal(code) }
            }
            if let increment = frame.increment {
                out.append(",\"increment\":")
                out.appendDecimal(increment)
            }
            if let opaque = frame.opaque {
                out.append(",\"opaque\":\"")
                out.appendHex(opaque, minimumDigits: 16)
                out.append("\"")
            }
            out.append("}")
        case .httpMessage(let message): message.appendJSON(into: &out)
        case .lostSync(let view):
            out.append(view == .tls ? "{\"proto\":\"tls\"" : view == .webSocket ? "{\"proto\":\"ws\"" : view == .http ? "{\"proto\":\"http\"" : "{\"proto\":\"http2\"")
            out.append(",\"lost_sync\":true}")
        case .tlsDecrypted(let length, let bytes):
            out.append("{\"proto\":\"tls\",\"type\":\"decrypted\",\"length\":")
            out.appendDecimal(length)
            out.append(",\"data\":\"")
            bytes.withUnsafeBytes { PacketJSON.appendBase64($0, into: &out) }
            out.append(length == bytes.count ? "\",\"data_complete\":true}" : "\",\"data_complete\":false}")
        case .tlsNotDecrypted(let failure):
            out.append("{\"proto\":\"tls\",\"not_decrypted\":")
            out.appendJSONString(Array(failure.text.utf8))
            out.append("}")
        case .proxyHeader(let header):
            out.append("{\"proto\":\"proxy\",\"version\":\"")
            out.append(contentsOf: header.version.rawValue.utf8)
            out.append("\"")
            if let addresses = header.addresses {
                out.append(",\"source\":")
                out.appendJSONString(Array(addresses.source.proxyProtocolText.utf8))
                out.append(",\"destination\":")
                out.appendJSONString(Array(addresses.destination.proxyProtocolText.utf8))
            }
            if header.isLocal { out.append(",\"local\":true") }
            if header.extensionBytes > 0 {
                out.append(",\"tlv_bytes\":")
                out.appendDecimal(header.extensionBytes)
            }
            out.append("}")
        case .proxyHeaderMalformed(let failure):
            out.append("{\"proto\":\"proxy\",\"malformed\":")
            out.appendJSONString(Array(failure.description.utf8))
            out.append("}")
        }
    }
}

extension Array where Element == UInt8 {
    /// `"name"` for a name that needs no escaping.
    mutating func appendJSONName(_ name: StaticString) {
        append("\"")
        append(name)
        append("\"")
    }

    /// Bytes as a JSON string of printable ASCII: `\"`, `\\`, and `\u00XX` for every byte
    /// outside 0x20–0x7E (bytes are not decoded as UTF-8).
    mutating func appendJSONString(_ bytes: [UInt8]) {
        append("\"")
        for byte in bytes {
            switch byte {
            case 0x22: append("\\\"")
            case 0x5C: append("\\\\")
            case 0x20...0x7E: append(byte)
            default:
                append("\\u00")
                appendHex(UInt64(byte), minimumDigits: 2)
            }
        }
        append("\"")
    }
}
