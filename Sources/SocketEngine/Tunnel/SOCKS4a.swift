import NIOCore

/// The messages of SOCKS4 and its 4a extension (a name the server resolves), read and written
/// as ``SOCKS5``'s are.
///
/// ```
/// request   04 01 PORT IP USERID 00 [HOSTNAME 00]     (4a: IP 0.0.0.x, x ≠ 0, and the name)
/// reply     00 CD PORT IP                             (CD 5A granted; 5B, 5C, 5D refused)
/// ```
package enum SOCKS4a {
    /// The request's version byte.
    package static let version: UInt8 = 4
    /// The longest user id or host name a request may carry (a reader's bound, not the protocol's).
    package static let maximumField = 255

    /// A CONNECT request.
    package struct Request: Sendable, Hashable {
        package var target: TunnelTarget
        package var userID: [UInt8]
        package init(target: TunnelTarget, userID: [UInt8] = []) {
            self.target = target
            self.userID = userID
        }

        package func write(into buffer: inout ByteBuffer) {
            buffer.writeInteger(SOCKS4a.version)
            buffer.writeInteger(UInt8(1))
            buffer.writeInteger(target.port)
            switch target.host {
            case .ipv4(let bytes):
                buffer.writeBytes(bytes)
                buffer.writeBytes(userID.prefix(SOCKS4a.maximumField))
                buffer.writeInteger(UInt8(0))
            case .ipv6, .name:
                // 4a: 0.0.0.1 says "the name follows" (an IPv6 literal is sent as a name).
                buffer.writeBytes([0, 0, 0, 1] as [UInt8])
                buffer.writeBytes(userID.prefix(SOCKS4a.maximumField))
                buffer.writeInteger(UInt8(0))
                buffer.writeBytes(Array(target.hostText.utf8.prefix(SOCKS4a.maximumField)))
                buffer.writeInteger(UInt8(0))
            }
        }

        package static func read(_ buffer: ByteBuffer) -> TunnelMessage<Request> {
            guard let version = buffer.byte(at: 0) else { return .incomplete(atLeast: 9) }
            guard version == SOCKS4a.version else { return .malformed("version \(hexByte(version)), not 0x04") }
            guard let port = buffer.uint16(at: 2), let ip = buffer.bytes(at: 4, length: 4) else { return .incomplete(atLeast: 9) }
            guard case .complete(let userID, let userLength) = field(buffer, at: 8) else {
                return field(buffer, at: 8).incompleteOrMalformed(as: Request.self, offset: 8, what: "user id")
            }
            var length = 8 + userLength
            var host = TunnelTarget.Host.ipv4(ip)
            if ip[0] == 0, ip[1] == 0, ip[2] == 0, ip[3] != 0 {
                guard case .complete(let name, let nameLength) = field(buffer, at: length) else {
                    return field(buffer, at: length).incompleteOrMalformed(as: Request.self, offset: length, what: "host name")
                }
                host = .name(String(decoding: name, as: UTF8.self))
                length += nameLength
            }
            return .complete(Request(target: TunnelTarget(host: host, port: port), userID: userID), length: length)
        }

        /// A NUL-terminated field `offset` bytes in, at most ``maximumField`` bytes before its NUL.
        private static func field(_ buffer: ByteBuffer, at offset: Int) -> TunnelMessage<[UInt8]> {
            var bytes: [UInt8] = []
            var index = offset
            while let byte = buffer.byte(at: index) {
                if byte == 0 { return .complete(bytes, length: bytes.count + 1) }
                guard bytes.count < SOCKS4a.maximumField else { return .malformed("over \(SOCKS4a.maximumField) bytes") }
                bytes.append(byte)
                index += 1
            }
            return .incomplete(atLeast: index + 1 - offset)
        }
    }

    /// The server's reply: granted (5A) or the reason it was not.
    package struct Reply: Sendable, Hashable {
        package var code: ReplyCode
        package var port: UInt16
        package var address: [UInt8]
        package init(code: ReplyCode, port: UInt16 = 0, address: [UInt8] = [0, 0, 0, 0]) {
            self.code = code
            self.port = port
            self.address = address
        }

        package func write(into buffer: inout ByteBuffer) {
            buffer.writeInteger(UInt8(0))
            buffer.writeInteger(code.rawValue)
            buffer.writeInteger(port)
            buffer.writeBytes(address.prefix(4))
        }

        package static func read(_ buffer: ByteBuffer) -> TunnelMessage<Reply> {
            guard let version = buffer.byte(at: 0) else { return .incomplete(atLeast: 8) }
            guard version == 0 else { return .malformed("reply version \(hexByte(version)), not 0x00") }
            guard let code = buffer.byte(at: 1), let port = buffer.uint16(at: 2), let address = buffer.bytes(at: 4, length: 4) else {
                return .incomplete(atLeast: 8)
            }
            return .complete(Reply(code: ReplyCode(code), port: port, address: address), length: 8)
        }
    }

    /// A reply code with its name.
    package struct ReplyCode: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: UInt8
        package init(_ rawValue: UInt8) { self.rawValue = rawValue }
        /// 5A: request granted.
        package static let granted = ReplyCode(0x5A)

        /// The name the SOCKS4 protocol gives the code.
        package var name: String {
            switch rawValue {
            case 0x5A: "request granted"
            case 0x5B: "request rejected or failed"
            case 0x5C: "rejected: the server cannot reach the client's identd"
            case 0x5D: "rejected: identd reports a different user id"
            default: "unknown reply"
            }
        }

        /// `reply 0x5b (request rejected or failed)`.
        package var description: String { "reply \(hexByte(rawValue)) (\(name))" }
    }
}

extension TunnelMessage {
    /// A field that is not complete, as a message of type `Other` whose field starts `offset` bytes in.
    func incompleteOrMalformed<Other>(as: Other.Type, offset: Int, what: String) -> TunnelMessage<Other> {
        switch self {
        case .complete: return .malformed("\(what) unreadable")
        case .incomplete(let least): return .incomplete(atLeast: offset + least)
        case .malformed(let reason): return .malformed("\(what) \(reason)")
        }
    }
}
