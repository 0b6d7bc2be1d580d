import NIOCore

/// The client's side of one proxy handshake as a pure state machine: the bytes to send first
/// (``start()``), then each read's bytes in (``receive(_:)``) and what to do next — send more,
/// wait, or use the tunnel — until the proxy has opened it. No socket, no loop, no clock:
/// ``TunnelHandler`` drives it on an event loop and ``BlockingTunnel`` on a thread, so the two
/// paths speak the same bytes and word the same refusals.
///
/// ```
/// socks5, socks5h   greeting → method → [RFC 1929 user/password → status] → request → reply
/// socks4, socks4a   request → reply
/// http              CONNECT request → response head (2xx: open; else the status line is the reason)
/// ```
///
/// A refusal is `.proxyRefused` with the proxy's own reason (the SOCKS reply code and its name,
/// the HTTP status line); bytes that are not the expected message, or a proxy that closes in
/// the middle, are `.proxyProtocol`. Bytes behind the last message stay in the buffer: they
/// are the tunnel's.
package struct TunnelClient: Sendable {
    /// What the driver does after ``receive(_:)``.
    package enum Step: Sendable, Equatable {
        /// Send these bytes, then read on.
        case send(ByteBuffer)
        /// Read on: the message is not complete yet.
        case wait
        /// The tunnel is open: what is left in the buffer is the destination's.
        case open
    }

    private enum Stage: Sendable {
        case methodSelection, passwordStatus, socks5Reply, socks4Reply, httpHead, open
    }

    package let proxy: ProxyEndpoint
    package let target: TunnelTarget
    /// The proxy's address as messages name it (`127.0.0.1:1080`).
    package let label: String
    private var stage: Stage
    private var offered: [SOCKS5.Method] = []

    /// A handshake with `proxy` (connected at `label`) for `target`; throws `.invalidConfiguration`
    /// for a target the protocol cannot carry (a name over 255 bytes for SOCKS5).
    package init(proxy: ProxyEndpoint, target: TunnelTarget, label: String) throws(SocketEngineError) {
        self.proxy = proxy
        self.target = target
        self.label = label
        switch proxy.kind {
        case .socks5, .socks5h:
            stage = .methodSelection
            if case .name(let name) = target.host, name.utf8.count > 255 {
                throw SocketEngineError(.invalidConfiguration, "host name '\(name.prefix(40))…' is over 255 bytes: SOCKS5 cannot carry it")
            }
        case .socks4, .socks4a: stage = .socks4Reply
        case .http: stage = .httpHead
        }
    }

    /// Whether the tunnel is open.
    package var isOpen: Bool {
        if case .open = stage { return true }
        return false
    }

    /// The first bytes to send once connected to the proxy.
    package mutating func start() -> ByteBuffer {
        var buffer = ByteBuffer()
        switch proxy.kind {
        case .socks5, .socks5h:
            offered = proxy.credentials == nil ? [.noAuthentication] : [.noAuthentication, .usernamePassword]
            SOCKS5.Greeting(methods: offered).write(into: &buffer)
        case .socks4, .socks4a:
            SOCKS4a.Request(target: target, userID: Array((proxy.credentials?.username ?? "").utf8)).write(into: &buffer)
        case .http:
            HTTPConnect.Request(target: target, credentials: proxy.credentials).write(into: &buffer)
        }
        return buffer
    }

    /// Takes the proxy's bytes received so far (consuming each whole message it reads) and says
    /// what to do next; throws the refusal or the protocol error.
    package mutating func receive(_ buffer: inout ByteBuffer) throws(SocketEngineError) -> Step {
        switch stage {
        case .open:
            return .open
        case .methodSelection:
            guard let selection = try read(SOCKS5.MethodSelection.read(buffer), from: &buffer, what: "SOCKS5 method selection") else { return .wait }
            var next = ByteBuffer()
            switch selection.method {
            case .noAuthentication:
                stage = .socks5Reply
                SOCKS5.Request(target: target).write(into: &next)
            case .usernamePassword where offered.contains(.usernamePassword):
                guard let credentials = proxy.credentials else { throw malformed("SOCKS5 method selection", "chose a method not offered") }
                stage = .passwordStatus
                SOCKS5.PasswordRequest(username: Array(credentials.username.utf8), password: Array(credentials.password.utf8)).write(into: &next)
            case .noneAcceptable:
                let offeredText = offered.map(\.description).joined(separator: ", ")
                let hint = proxy.credentials == nil ? " (it may want a user and password)" : ""
                throw SocketEngineError(.proxyRefused, "SOCKS5 proxy \(label) accepts none of the authentication methods offered (\(offeredText))\(hint)")
            default:
                throw malformed("SOCKS5 method selection", "chose \(selection.method), which was not offered")
            }
            return .send(next)
        case .passwordStatus:
            guard let status = try read(SOCKS5.PasswordStatus.read(buffer), from: &buffer, what: "RFC 1929 status") else { return .wait }
            guard status.accepted else {
                throw SocketEngineError(.proxyRefused, "SOCKS5 proxy \(label) refused the user '\(proxy.credentials?.username ?? "")' and its password (RFC 1929 status \(hexByte(status.status)))")
            }
            stage = .socks5Reply
            var next = ByteBuffer()
            SOCKS5.Request(target: target).write(into: &next)
            return .send(next)
        case .socks5Reply:
            guard let reply = try read(SOCKS5.Reply.read(buffer), from: &buffer, what: "SOCKS5 reply") else { return .wait }
            guard reply.code == .succeeded else { throw refused(reply.code.description) }
            stage = .open
            return .open
        case .socks4Reply:
            let name = "\(proxy.kind.protocolName) reply"
            guard let reply = try read(SOCKS4a.Reply.read(buffer), from: &buffer, what: name) else { return .wait }
            guard reply.code == .granted else { throw refused(reply.code.description) }
            stage = .open
            return .open
        case .httpHead:
            guard let head = try read(HTTPConnect.ResponseHead.read(buffer), from: &buffer, what: "CONNECT response") else { return .wait }
            guard head.opensTunnel else { throw refused("'\(HTTPConnect.ResponseHead.printable(head.statusLine))'") }
            stage = .open
            return .open
        }
    }

    /// The error for a proxy that closed the connection before the tunnel was open, with
    /// `buffered` bytes of its next message received.
    package func closedEarly(buffered: Int) -> SocketEngineError {
        let what: String
        var least = 0
        switch stage {
        case .open: return SocketEngineError(.connectionClosed, "the \(proxy.kind.protocolName) tunnel through \(label) closed")
        case .methodSelection: (what, least) = ("SOCKS5 method selection", 2)
        case .passwordStatus: (what, least) = ("RFC 1929 status", 2)
        case .socks5Reply: (what, least) = ("SOCKS5 reply", 10)
        case .socks4Reply: (what, least) = ("\(proxy.kind.protocolName) reply", 8)
        case .httpHead: what = "CONNECT response"
        }
        if buffered == 0 {
            return SocketEngineError(.proxyProtocol, "\(proxy.kind.protocolName) proxy \(label) closed the connection before its \(what)")
        }
        let expected = least > buffered ? " of at least \(least)" : ""
        return SocketEngineError(.proxyProtocol, "\(proxy.kind.protocolName) proxy \(label) closed the connection in the middle of its \(what) (\(buffered)\(expected) bytes)")
    }

    private func refused(_ reason: String) -> SocketEngineError {
        SocketEngineError(.proxyRefused, "\(proxy.kind.protocolName) proxy \(label) refused the connection to \(target): \(reason)")
    }

    private func malformed(_ what: String, _ reason: String) -> SocketEngineError {
        SocketEngineError(.proxyProtocol, "\(proxy.kind.protocolName) proxy \(label) sent a malformed \(what): \(reason)")
    }

    /// The message, its bytes consumed; nil when more are needed; throws when malformed.
    private func read<Message>(_ message: TunnelMessage<Message>, from buffer: inout ByteBuffer, what: String) throws(SocketEngineError) -> Message? {
        switch message {
        case .complete(let value, let length):
            buffer.moveReaderIndex(forwardBy: min(length, buffer.readableBytes))
            return value
        case .incomplete:
            return nil
        case .malformed(let reason):
            throw malformed(what, reason)
        }
    }
}

extension SocketEngineError.Code {
    /// A proxy refused: the credentials, the methods offered, or the destination (the SOCKS
    /// reply code and its name, the HTTP status line).
    package static let proxyRefused = Self("proxy-refused")
    /// A proxy sent what its protocol does not allow, or closed before the tunnel was open.
    package static let proxyProtocol = Self("proxy-protocol")
}
