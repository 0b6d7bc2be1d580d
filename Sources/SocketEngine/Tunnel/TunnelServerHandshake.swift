import NIOCore

/// Why a proxy client's handshake ended without a tunnel: the line that says so and the
/// protocol's own answer to send before closing (nil: the connection is closed without one —
/// a wrong version, a client gone).
struct TunnelServerRefusal: Error, Sendable {
    let error: SocketEngineError
    let answer: ByteBuffer?
}

/// The server's side of one SOCKS5 or HTTP CONNECT handshake on an accepted ``Connection``:
/// reads the client's messages with the readers of ``SOCKS5`` and ``HTTPConnect`` — never a
/// byte past the request, so what the client sends behind it stays buffered for the relay —
/// and writes the answers. Every read is bounded by `deadline` on the connection's loop.
struct TunnelServerHandshake: Sendable {
    let server: TunnelServer
    let connection: Connection
    let clock: EngineClock
    let deadline: EngineClock.Instant

    private var name: String { server.kind.name }

    /// Reads the client's request through to its destination (answering a SOCKS5 greeting and
    /// credentials on the way).
    func readRequest() async throws(TunnelServerRefusal) -> TunnelTarget {
        switch server.kind {
        case .socks5: try await readSOCKS5()
        case .httpConnect: try await readHTTPConnect()
        }
    }

    /// Opens the tunnel: SOCKS5 reply 00 with the upstream side's address, or `200 Connection
    /// established`.
    func accept(bound: SocketAddress?) async throws {
        var buffer = ByteBuffer()
        switch server.kind {
        case .socks5:
            let target = bound.flatMap(TunnelTarget.init(address:)) ?? TunnelTarget(host: .ipv4([0, 0, 0, 0]), port: 0)
            SOCKS5.Reply(code: .succeeded, bound: target).write(into: &buffer)
        case .httpConnect:
            HTTPConnect.response(200, "Connection established", into: &buffer)
        }
        try await connection.write(buffer, timeout: remaining())
    }

    /// The refusal of a destination the rules refuse (`.proxyRefused`) or the upstream
    /// connection that failed: SOCKS5 02, 05 (refused) or 04 (anything else); HTTP 403 or 502.
    func refusal(of error: SocketEngineError) -> TunnelServerRefusal {
        let code: SOCKS5.ReplyCode
        let status: (Int, String)
        switch error.code {
        case .proxyRefused: (code, status) = (.notAllowed, (403, "Forbidden"))
        case .connectionRefused: (code, status) = (.connectionRefused, (502, "Bad Gateway"))
        default: (code, status) = (.hostUnreachable, (502, "Bad Gateway"))
        }
        return server.kind == .socks5 ? socksRefusal(code, error.text) : httpRefusal(status, error.text)
    }

    /// Sends the refusal's answer, if it has one, and closes (lingering, so that the answer is
    /// not lost to a reset over bytes the client sent behind its request).
    func refuse(_ refusal: TunnelServerRefusal) async {
        if let answer = refusal.answer, (try? await connection.write(answer, timeout: max(remaining(), .milliseconds(100)))) != nil {
            await connection.closeLingering()
        } else {
            await connection.close()
        }
    }

    // MARK: SOCKS5

    private func readSOCKS5() async throws(TunnelServerRefusal) -> TunnelTarget {
        var buffer = ByteBuffer()
        let greeting = try await read(SOCKS5.Greeting.read, "greeting", into: &buffer)
        let wanted: SOCKS5.Method = server.credentials == nil ? .noAuthentication : .usernamePassword
        guard greeting.methods.contains(wanted) else {
            var answer = ByteBuffer()
            SOCKS5.MethodSelection(method: .noneAcceptable).write(into: &answer)
            let offered = greeting.methods.map(\.description).joined(separator: ", ")
            throw TunnelServerRefusal(error: SocketEngineError(.proxyRefused, "SOCKS5 greeting offers \(SettingText(offered)), not \(SettingText(wanted.description)): method 0xff (no acceptable method)"), answer: answer)
        }
        try await send { SOCKS5.MethodSelection(method: wanted).write(into: &$0) }
        if let credentials = server.credentials {
            let given = try await read(SOCKS5.PasswordRequest.read, "username/password", into: &buffer)
            let accepted = given.username == Array(credentials.username.utf8) && given.password == Array(credentials.password.utf8)
            guard accepted else {
                var answer = ByteBuffer()
                SOCKS5.PasswordStatus(status: 1).write(into: &answer)
                let user = HTTPConnect.ResponseHead.printable(String(decoding: given.username, as: UTF8.self))
                throw TunnelServerRefusal(error: SocketEngineError(.proxyRefused, "SOCKS5 user '\(SettingText(user))' and its password refused (RFC 1929 status 0x01)"), answer: answer)
            }
            try await send { SOCKS5.PasswordStatus(status: 0).write(into: &$0) }
        }
        let request = try await read(SOCKS5.Request.read, "request", into: &buffer) { bytes in
            guard let type = SOCKS5.Request.unknownAddressType(bytes) else { return nil }
            return socksRefusal(.addressTypeNotSupported, "SOCKS5 request: address type \(hexByte(type)) not supported")
        }
        guard request.command == SOCKS5.Request.connect else {
            throw socksRefusal(.commandNotSupported, "SOCKS5 request: \(SOCKS5.Request.commandName(request.command)) to \(request.target) not supported (only CONNECT)")
        }
        if case .name(let host) = request.target.host, host.isEmpty || host.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            throw socksRefusal(.hostUnreachable, "SOCKS5 request: '\(HTTPConnect.ResponseHead.printable(host))' is not a host name")
        }
        return request.target
    }

    private func socksRefusal(_ code: SOCKS5.ReplyCode, _ text: SettingText) -> TunnelServerRefusal {
        var answer = ByteBuffer()
        SOCKS5.Reply.refusal(code).write(into: &answer)
        return TunnelServerRefusal(error: SocketEngineError(code == .notAllowed ? .proxyRefused : .proxyProtocol, "\(text): \(SettingText(code.description))"), answer: answer)
    }

    // MARK: HTTP CONNECT

    private func readHTTPConnect() async throws(TunnelServerRefusal) -> TunnelTarget {
        let head: ByteBuffer
        do {
            let request = ReadRequest.delimited(by: Array("\r\n\r\n".utf8), maxLength: HTTPConnect.maximumHead)
            guard let read = try await connection.read(request, timeout: remaining(), keepOpenWhenTooLarge: true) else {
                throw closed("HTTP CONNECT request", received: 0)
            }
            head = read
        } catch let refusal as TunnelServerRefusal {
            throw refusal
        } catch let error as SocketEngineError where error.code == .frameTooLarge {
            // RFC 6585's answer; the connection was kept open for it (and closes lingering).
            throw httpRefusal((431, "Request Header Fields Too Large"), "HTTP CONNECT request: a head over \(HTTPConnect.maximumHead) bytes")
        } catch {
            throw readFailure(error, "HTTP CONNECT request")
        }
        switch HTTPConnect.ReceivedRequest.read(head) {
        case .complete(let request, _):
            guard request.method == "CONNECT", let target = request.target else {
                throw httpRefusal((405, "Method Not Allowed"), "HTTP CONNECT request: method \(SettingText(HTTPConnect.ResponseHead.printable(request.method))), only CONNECT is served")
            }
            if let credentials = server.credentials, request.credentials != credentials {
                throw httpRefusal((407, "Proxy Authentication Required"), "HTTP CONNECT request to \(target): \(request.credentials == nil ? "no" : "wrong") Proxy-Authorization")
            }
            return target
        case .incomplete:
            throw httpRefusal((400, "Bad Request"), "HTTP CONNECT request: no end of the head")
        case .malformed(let reason):
            throw httpRefusal((400, "Bad Request"), "HTTP CONNECT request: \(SettingText(reason))")
        }
    }

    private func httpRefusal(_ status: (Int, String), _ text: SettingText) -> TunnelServerRefusal {
        var answer = ByteBuffer()
        HTTPConnect.response(status.0, status.1, into: &answer)
        return TunnelServerRefusal(error: SocketEngineError(status.0 == 403 ? .proxyRefused : .proxyProtocol, "\(text): \(status.0) \(SettingText(status.1))"), answer: answer)
    }

    // MARK: Reading

    /// One message read with `reader`, asking the connection for exactly the bytes the reader
    /// still needs; `check` may refuse on a prefix (SOCKS5's unknown address type).
    private func read<Message>(
        _ reader: (ByteBuffer) -> TunnelMessage<Message>, _ what: String, into buffer: inout ByteBuffer,
        check: (ByteBuffer) -> TunnelServerRefusal? = { _ in nil }
    ) async throws(TunnelServerRefusal) -> Message {
        while true {
            if let refusal = check(buffer) { throw refusal }
            let needed: Int
            switch reader(buffer) {
            case .complete(let message, let length):
                buffer.moveReaderIndex(forwardBy: min(length, buffer.readableBytes))
                buffer.discardReadBytes()
                return message
            case .incomplete(let atLeast):
                needed = max(1, atLeast - buffer.readableBytes)
            case .malformed(let reason):
                throw TunnelServerRefusal(error: SocketEngineError(.proxyProtocol, "\(SettingText(name)) \(SettingText(what)): \(SettingText(reason))"), answer: nil)
            }
            do {
                guard var chunk = try await connection.read(.exactly(needed), timeout: remaining()) else {
                    throw closed("\(name) \(what)", received: buffer.readableBytes)
                }
                buffer.writeBuffer(&chunk)
            } catch let refusal as TunnelServerRefusal {
                throw refusal
            } catch {
                throw readFailure(error, "\(name) \(what)")
            }
        }
    }

    private func send(_ write: (inout ByteBuffer) -> Void) async throws(TunnelServerRefusal) {
        var buffer = ByteBuffer()
        write(&buffer)
        do {
            try await connection.write(buffer, timeout: remaining())
        } catch {
            throw TunnelServerRefusal(error: SocketEngineError.wrapping(error, context: "\(name) handshake"), answer: nil)
        }
    }

    private func closed(_ what: String, received: Int) -> TunnelServerRefusal {
        let part = received == 0 ? "before its \(what)" : "after \(received) bytes of its \(what)"
        return TunnelServerRefusal(error: SocketEngineError(.proxyProtocol, "client closed \(SettingText(part))"), answer: nil)
    }

    private func readFailure(_ error: any Error, _ what: String) -> TunnelServerRefusal {
        let engine = SocketEngineError.wrapping(error, context: what)
        switch engine.code {
        case .readTimeout:
            return TunnelServerRefusal(error: SocketEngineError(.proxyProtocol, "no whole \(SettingText(what)) within the handshake timeout"), answer: nil)
        case .truncatedFrame:
            return TunnelServerRefusal(error: SocketEngineError(.proxyProtocol, "client closed before its whole \(SettingText(what))"), answer: nil)
        default:
            return TunnelServerRefusal(error: engine, answer: nil)
        }
    }

    /// What is left of the handshake's time (at least a millisecond: a read then times out at once).
    private func remaining() -> Duration {
        max(clock.now.duration(to: deadline), .milliseconds(1))
    }
}
