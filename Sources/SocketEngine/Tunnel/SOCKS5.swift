import NIOCore

/// The messages of SOCKS version 5 (RFC 1928) and its username/password authentication
/// (RFC 1929), each written by ``write(into:)``-style encoders and read by bounds-checked
/// readers that return a ``TunnelMessage``: the client's side of sockctl's proxies uses them
/// now, a SOCKS5 server would read the requests and write the replies with the same types.
///
/// ```
/// greeting          05 NMETHODS METHODS…               → 05 METHOD          (FF: none acceptable)
/// RFC 1929          01 ULEN UNAME PLEN PASSWD           → 01 STATUS          (00: success)
/// request           05 CMD 00 ATYP ADDR PORT            → 05 REP 00 ATYP BND.ADDR BND.PORT
/// ```
package enum SOCKS5 {
    /// The protocol version byte.
    package static let version: UInt8 = 5

    /// An authentication method (RFC 1928 §3).
    package struct Method: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: UInt8
        package init(_ rawValue: UInt8) { self.rawValue = rawValue }
        /// 00: no authentication required.
        package static let noAuthentication = Method(0x00)
        /// 02: username/password (RFC 1929).
        package static let usernamePassword = Method(0x02)
        /// FF: none of the methods offered is acceptable.
        package static let noneAcceptable = Method(0xFF)

        /// The method's name (`no authentication`, `username/password`, `method 0x01`).
        package var description: String {
            switch rawValue {
            case 0x00: "no authentication"
            case 0x01: "GSSAPI"
            case 0x02: "username/password"
            case 0xFF: "no acceptable method"
            default: "method \(hexByte(rawValue))"
            }
        }
    }

    /// The client's first message: the authentication methods it can do.
    package struct Greeting: Sendable, Hashable {
        package var methods: [Method]
        package init(methods: [Method]) { self.methods = methods }

        package func write(into buffer: inout ByteBuffer) {
            buffer.writeInteger(SOCKS5.version)
            buffer.writeInteger(UInt8(clamping: methods.count))
            for method in methods.prefix(255) { buffer.writeInteger(method.rawValue) }
        }

        package static func read(_ buffer: ByteBuffer) -> TunnelMessage<Greeting> {
            guard let version = buffer.byte(at: 0) else { return .incomplete(atLeast: 2) }
            guard version == SOCKS5.version else { return .malformed("version \(hexByte(version)), not 0x05") }
            guard let count = buffer.byte(at: 1) else { return .incomplete(atLeast: 2) }
            guard count > 0 else { return .malformed("no authentication method offered") }
            guard let methods = buffer.bytes(at: 2, length: Int(count)) else { return .incomplete(atLeast: 2 + Int(count)) }
            return .complete(Greeting(methods: methods.map(Method.init)), length: 2 + Int(count))
        }
    }

    /// The server's answer to the greeting: the method chosen.
    package struct MethodSelection: Sendable, Hashable {
        package var method: Method
        package init(method: Method) { self.method = method }

        package func write(into buffer: inout ByteBuffer) {
            buffer.writeInteger(SOCKS5.version)
            buffer.writeInteger(method.rawValue)
        }

        package static func read(_ buffer: ByteBuffer) -> TunnelMessage<MethodSelection> {
            guard let version = buffer.byte(at: 0), let method = buffer.byte(at: 1) else { return .incomplete(atLeast: 2) }
            guard version == SOCKS5.version else { return .malformed("version \(hexByte(version)), not 0x05") }
            return .complete(MethodSelection(method: Method(method)), length: 2)
        }
    }

    /// RFC 1929: the username and password (each 1 to 255 bytes).
    package struct PasswordRequest: Sendable, Hashable {
        /// The subnegotiation's version byte.
        package static let version: UInt8 = 1
        package var username: [UInt8]
        package var password: [UInt8]
        package init(username: [UInt8], password: [UInt8]) {
            self.username = username
            self.password = password
        }

        package func write(into buffer: inout ByteBuffer) {
            buffer.writeInteger(Self.version)
            buffer.writeInteger(UInt8(clamping: username.count))
            buffer.writeBytes(username.prefix(255))
            buffer.writeInteger(UInt8(clamping: password.count))
            buffer.writeBytes(password.prefix(255))
        }

        package static func read(_ buffer: ByteBuffer) -> TunnelMessage<PasswordRequest> {
            guard let version = buffer.byte(at: 0) else { return .incomplete(atLeast: 2) }
            guard version == Self.version else { return .malformed("username/password version \(hexByte(version)), not 0x01") }
            guard let userLength = buffer.byte(at: 1).map(Int.init) else { return .incomplete(atLeast: 2) }
            guard let username = buffer.bytes(at: 2, length: userLength), let passwordLength = buffer.byte(at: 2 + userLength).map(Int.init) else {
                return .incomplete(atLeast: 3 + userLength)
            }
            guard let password = buffer.bytes(at: 3 + userLength, length: passwordLength) else {
                return .incomplete(atLeast: 3 + userLength + passwordLength)
            }
            return .complete(PasswordRequest(username: username, password: password), length: 3 + userLength + passwordLength)
        }
    }

    /// RFC 1929: the server's verdict on the username and password (00: accepted).
    package struct PasswordStatus: Sendable, Hashable {
        package var status: UInt8
        package init(status: UInt8) { self.status = status }
        package var accepted: Bool { status == 0 }

        package func write(into buffer: inout ByteBuffer) {
            buffer.writeInteger(PasswordRequest.version)
            buffer.writeInteger(status)
        }

        package static func read(_ buffer: ByteBuffer) -> TunnelMessage<PasswordStatus> {
            guard let version = buffer.byte(at: 0), let status = buffer.byte(at: 1) else { return .incomplete(atLeast: 2) }
            // Some servers answer with the SOCKS version (05) here; the status is what matters.
            guard version == PasswordRequest.version || version == SOCKS5.version else {
                return .malformed("username/password version \(hexByte(version)), not 0x01")
            }
            return .complete(PasswordStatus(status: status), length: 2)
        }
    }

    /// A request (CMD 01 CONNECT, 02 BIND, 03 UDP ASSOCIATE) for a destination.
    package struct Request: Sendable, Hashable {
        /// 01: CONNECT.
        package static let connect: UInt8 = 1
        package var command: UInt8
        package var target: TunnelTarget
        package init(command: UInt8 = Request.connect, target: TunnelTarget) {
            self.command = command
            self.target = target
        }

        package func write(into buffer: inout ByteBuffer) {
            buffer.writeInteger(SOCKS5.version)
            buffer.writeInteger(command)
            buffer.writeInteger(UInt8(0))
            SOCKS5.write(target, into: &buffer)
        }

        package static func read(_ buffer: ByteBuffer) -> TunnelMessage<Request> {
            guard let version = buffer.byte(at: 0) else { return .incomplete(atLeast: 4) }
            guard version == SOCKS5.version else { return .malformed("version \(hexByte(version)), not 0x05") }
            guard let command = buffer.byte(at: 1), buffer.byte(at: 2) != nil else { return .incomplete(atLeast: 4) }
            switch SOCKS5.readTarget(buffer, at: 3) {
            case .complete(let target, let length): return .complete(Request(command: command, target: target), length: 3 + length)
            case .incomplete(let least): return .incomplete(atLeast: 3 + least)
            case .malformed(let reason): return .malformed(reason)
            }
        }
    }

    /// The server's reply to a request: the reply code and the address it bound.
    package struct Reply: Sendable, Hashable {
        package var code: ReplyCode
        package var bound: TunnelTarget
        package init(code: ReplyCode, bound: TunnelTarget) {
            self.code = code
            self.bound = bound
        }

        package func write(into buffer: inout ByteBuffer) {
            buffer.writeInteger(SOCKS5.version)
            buffer.writeInteger(code.rawValue)
            buffer.writeInteger(UInt8(0))
            SOCKS5.write(bound, into: &buffer)
        }

        package static func read(_ buffer: ByteBuffer) -> TunnelMessage<Reply> {
            guard let version = buffer.byte(at: 0) else { return .incomplete(atLeast: 10) }
            guard version == SOCKS5.version else { return .malformed("version \(hexByte(version)), not 0x05") }
            guard let code = buffer.byte(at: 1), let reserved = buffer.byte(at: 2) else { return .incomplete(atLeast: 10) }
            guard reserved == 0 else { return .malformed("reserved byte \(hexByte(reserved)), not 0x00") }
            switch SOCKS5.readTarget(buffer, at: 3) {
            case .complete(let bound, let length): return .complete(Reply(code: ReplyCode(code), bound: bound), length: 3 + length)
            case .incomplete(let least): return .incomplete(atLeast: 3 + least)
            case .malformed(let reason): return .malformed(reason)
            }
        }
    }

    /// A reply code (RFC 1928 §6) with its name.
    package struct ReplyCode: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: UInt8
        package init(_ rawValue: UInt8) { self.rawValue = rawValue }
        /// 00: succeeded.
        package static let succeeded = ReplyCode(0)

        /// RFC 1928's name of the code: `connection refused`, `unassigned` past 08.
        package var name: String {
            switch rawValue {
            case 0x00: "succeeded"
            case 0x01: "general SOCKS server failure"
            case 0x02: "connection not allowed by ruleset"
            case 0x03: "network unreachable"
            case 0x04: "host unreachable"
            case 0x05: "connection refused"
            case 0x06: "TTL expired"
            case 0x07: "command not supported"
            case 0x08: "address type not supported"
            default: "unassigned"
            }
        }

        /// `reply 0x05 (connection refused)`.
        package var description: String { "reply \(hexByte(rawValue)) (\(name))" }
    }

    /// ATYP, the address and the port.
    static func write(_ target: TunnelTarget, into buffer: inout ByteBuffer) {
        switch target.host {
        case .ipv4(let bytes):
            buffer.writeInteger(UInt8(1))
            buffer.writeBytes(bytes)
        case .ipv6(let bytes):
            buffer.writeInteger(UInt8(4))
            buffer.writeBytes(bytes)
        case .name(let name):
            let utf8 = Array(name.utf8.prefix(255))
            buffer.writeInteger(UInt8(3))
            buffer.writeInteger(UInt8(utf8.count))
            buffer.writeBytes(utf8)
        }
        buffer.writeInteger(target.port)
    }

    /// ATYP, the address and the port, `offset` bytes past the reader index.
    static func readTarget(_ buffer: ByteBuffer, at offset: Int) -> TunnelMessage<TunnelTarget> {
        guard let type = buffer.byte(at: offset) else { return .incomplete(atLeast: 7) }
        let host: TunnelTarget.Host
        let length: Int
        switch type {
        case 1:
            guard let bytes = buffer.bytes(at: offset + 1, length: 4) else { return .incomplete(atLeast: 7) }
            (host, length) = (.ipv4(bytes), 5)
        case 4:
            guard let bytes = buffer.bytes(at: offset + 1, length: 16) else { return .incomplete(atLeast: 19) }
            (host, length) = (.ipv6(bytes), 17)
        case 3:
            guard let count = buffer.byte(at: offset + 1).map(Int.init) else { return .incomplete(atLeast: 4) }
            guard let bytes = buffer.bytes(at: offset + 2, length: count) else { return .incomplete(atLeast: 4 + count) }
            (host, length) = (.name(String(decoding: bytes, as: UTF8.self)), 2 + count)
        default:
            return .malformed("address type \(hexByte(type)), not 0x01, 0x03 or 0x04")
        }
        guard let port = buffer.uint16(at: offset + length) else { return .incomplete(atLeast: length + 2) }
        return .complete(TunnelTarget(host: host, port: port), length: length + 2)
    }
}
