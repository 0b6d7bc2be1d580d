import NIOCore
import NIOWebSocket

/// Close codes by name, and which ones may appear on the wire.
public enum WebSocketCloseCode {
    package static let normal: UInt16 = 1000
    package static let goingAway: UInt16 = 1001
    package static let protocolError: UInt16 = 1002
    package static let invalidPayload: UInt16 = 1007
    package static let policyViolation: UInt16 = 1008
    package static let messageTooBig: UInt16 = 1009
    package static let internalError: UInt16 = 1011

    /// Codes an endpoint may send or receive in a close frame: 1000–1003, 1007–1014 (defined
    /// or registered with IANA) and 3000–4999 (libraries and applications). 1004 is reserved;
    /// 1005, 1006 and 1015 are only ever reported locally, never sent.
    public static func isValidOnTheWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// `1000 (normal)`, `1002 (protocol error)`, `4001`.
    public static func describe(_ code: UInt16) -> String {
        let names: [UInt16: String] = [
            1000: "normal", 1001: "going away", 1002: "protocol error", 1003: "unsupported data",
            1005: "no status", 1006: "abnormal closure", 1007: "invalid payload data", 1008: "policy violation",
            1009: "message too big", 1010: "mandatory extension", 1011: "internal error", 1012: "service restart",
            1013: "try again later", 1014: "bad gateway", 1015: "TLS handshake",
        ]
        return names[code].map { "\(code) (\($0))" } ?? "\(code)"
    }
}
