import NIOCore

/// The server's side of SOCKS5: the reply codes a server refuses with and the checks a server
/// makes of a request before it reads the address (the message types themselves are in
/// ``SOCKS5``, shared with the client).
extension SOCKS5.ReplyCode {
    /// 01: general SOCKS server failure.
    package static let generalFailure = Self(0x01)
    /// 02: connection not allowed by ruleset.
    package static let notAllowed = Self(0x02)
    /// 04: host unreachable.
    package static let hostUnreachable = Self(0x04)
    /// 05: connection refused.
    package static let connectionRefused = Self(0x05)
    /// 07: command not supported.
    package static let commandNotSupported = Self(0x07)
    /// 08: address type not supported.
    package static let addressTypeNotSupported = Self(0x08)
}

extension SOCKS5.Request {
    /// The command's name: `CONNECT`, `BIND`, `UDP ASSOCIATE`, `command 0x09`.
    package static func commandName(_ command: UInt8) -> String {
        switch command {
        case 1: "CONNECT"
        case 2: "BIND"
        case 3: "UDP ASSOCIATE"
        default: "command \(hexByte(command))"
        }
    }

    /// The request's address type (ATYP) when it is one SOCKS5 does not define, read before the
    /// address (whose length depends on it): a server answers it with reply 08; nil while the
    /// byte has not arrived or is 01, 03 or 04.
    package static func unknownAddressType(_ buffer: ByteBuffer) -> UInt8? {
        guard let type = buffer.byte(at: 3), ![1, 3, 4].contains(type) else { return nil }
        return type
    }
}

extension SOCKS5.Reply {
    /// A refusal: `code`, the bound address all zeros (RFC 1928 §6 leaves it unused).
    package static func refusal(_ code: SOCKS5.ReplyCode) -> Self {
        Self(code: code, bound: TunnelTarget(host: .ipv4([0, 0, 0, 0]), port: 0))
    }
}
