import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Who may open a WebSocket on a listener, decided from the upgrade request alone.
///
/// | request                                   | answer |
/// |-------------------------------------------|--------|
/// | another path than the endpoint's          | 404    |
/// | not a WebSocket upgrade (plain HTTP)      | 426, `Upgrade: websocket` |
/// | `Sec-WebSocket-Version` other than 13     | 426, `Sec-WebSocket-Version: 13` |
/// | `Origin` not in `--allow-origin` (or none sent while a list is given) | 403 |
/// | otherwise                                 | 101, with the first offered subprotocol the server accepts |
///
/// The query string does not take part in matching the path.
public struct WebSocketServerPolicy: Sendable {
    public enum Decision: Sendable, Equatable {
        case accept(subprotocol: String?)
        case refuse(status: HTTPResponseStatus, reason: String)
    }

    /// The path clients must ask for (`/` by default).
    public var path: String
    public var allowedOrigins: [String]
    public var subprotocols: [String]

    public init(path: String, allowedOrigins: [String] = [], subprotocols: [String] = []) {
        self.path = Self.pathPart(path)
        self.allowedOrigins = allowedOrigins.map { $0.lowercased() }
        self.subprotocols = subprotocols
    }

    public func decide(_ head: HTTPRequestHead) -> Decision {
        let path = Self.pathPart(head.uri)
        guard path == self.path else {
            return .refuse(status: .notFound, reason: "no WebSocket at \(Self.printable(path))")
        }
        let upgrade = head.headers[canonicalForm: "upgrade"].map { $0.lowercased() }
        let connection = head.headers[canonicalForm: "connection"].map { $0.lowercased() }
        guard head.method == .GET, upgrade.contains("websocket"), connection.contains("upgrade"),
              head.headers["Sec-WebSocket-Key"].count == 1
        else {
            return .refuse(status: .upgradeRequired, reason: "not a WebSocket upgrade request")
        }
        guard head.headers["Sec-WebSocket-Version"] == ["13"] else {
            return .refuse(status: .upgradeRequired, reason: "unsupported Sec-WebSocket-Version (13 is required)")
        }
        let origin = head.headers.first(name: "Origin")
        if !allowedOrigins.isEmpty {
            guard let origin, allowedOrigins.contains(origin.lowercased()) else {
                return .refuse(status: .forbidden, reason: "origin \(Self.printable(origin ?? "(none)")) is not allowed")
            }
        }
        let offered = head.headers[canonicalForm: "sec-websocket-protocol"].map { String($0) }
        return .accept(subprotocol: offered.first { subprotocols.contains($0) })
    }

    static func pathPart(_ uri: String) -> String {
        let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return path.isEmpty ? "/" : path
    }

    /// Request text in a log line: at most 200 characters, control characters escaped.
    static func printable(_ text: String) -> String {
        let cut = text.unicodeScalars.prefix(200).map { scalar -> String in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\x" + String(scalar.value, radix: 16) : String(scalar)
        }.joined()
        return "'\(cut)'" + (text.unicodeScalars.count > 200 ? "…" : "")
    }
}

/// The server side of the opening handshake on an accepted channel: HTTP/1.1 until the
/// upgrade, then the WebSocket layer and the engine's connection handler. A request that is
/// not upgraded gets its status (see ``WebSocketServerPolicy``), is reported as a refusal and
/// is closed. A client that has not completed the handshake within the handshake timeout is
/// closed too.
enum WebSocketServer {
    enum Outcome: Sendable {
        case upgraded(Connection)
        case notUpgraded
    }

    /// In the child channel initializer. `admit` receives the connection once upgraded.
    static func prepare(
        _ channel: any Channel,
        endpoint: Endpoint,
        options: ListenOptions,
        refusals: Refusals,
        admit: @escaping @Sendable (Connection) -> Void
    ) throws {
        var secured: EventLoopFuture<SecurityReport>?
        if endpoint.transport == .wss {
            guard let secure = options.secureTransport else { throw WebSocketClient.missingTLS(for: .wss) }
            let report = try secure.addServerLayer(to: channel)
            report.whenFailure { error in
                let reason = SocketEngineError.classify(error).1
                refusals.refuse(channel.remoteAddress, because: reason.hasPrefix("TLS") ? reason : "TLS handshake failed: \(reason)")
            }
            secured = report
        }
        let security = secured
        let webSocket = options.webSocket
        let policy = WebSocketServerPolicy(path: endpoint.resource, allowedOrigins: webSocket.allowedOrigins, subprotocols: webSocket.subprotocols)
        let label = Connection.label(for: channel, transport: endpoint.transport)
        let transport = endpoint.transport
        // NIO does not pass the head of a refused upgrade request on: it is kept here for the
        // responder.
        let refusedHead = NIOLoopBoundBox<HTTPRequestHead?>(nil, eventLoop: channel.eventLoop)
        let upgrader = NIOTypedWebSocketServerUpgrader<Outcome>(
            maxFrameSize: min(webSocket.maximumMessageSize, Int(UInt32.max)),
            enableAutomaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                guard case .accept(let subprotocol) = policy.decide(head) else {
                    refusedHead.value = head
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                var headers = HTTPHeaders()
                if let subprotocol { headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol) }
                return channel.eventLoop.makeSucceededFuture(headers)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let subprotocol: String?
                    if case .accept(let chosen) = policy.decide(head) { subprotocol = chosen } else { subprotocol = nil }
                    let handshake = WebSocketHandshake(
                        resource: head.uri,
                        origin: head.headers.first(name: "Origin"),
                        subprotocol: subprotocol,
                        host: head.headers.first(name: "Host")
                    )
                    try WebSocketClient.install(
                        on: channel, role: .server, handshake: handshake, options: webSocket,
                        bufferLimit: options.bufferLimit, tap: options.tap, recorder: options.recorder, label: label
                    )
                    return .upgraded(try Connection.attach(to: channel, transport: transport, security: security, webSocket: handshake))
                }
            }
        )
        let configuration = NIOUpgradableHTTPServerPipelineConfiguration<Outcome>(
            upgradeConfiguration: .init(upgraders: [upgrader]) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        HTTPRefusalResponder(policy: policy, refusals: refusals, refusedHead: refusedHead.value)
                    )
                    return .notUpgraded
                }
            }
        )
        try channel.pipeline.syncOperations.addHandler(EndOfInputWatcher())
        let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
        let timer = channel.eventLoop.assumeIsolated().scheduleTask(in: webSocket.handshakeTimeout.timeAmount) {
            refusals.refuse(channel.remoteAddress, because: "no WebSocket handshake within \(webSocket.handshakeTimeout.formatted)")
            channel.close(promise: nil)
        }
        upgraded.assumeIsolated().whenComplete { result in
            switch result {
            case .success(.upgraded(let connection)):
                timer.cancel()
                admit(connection)
            case .success(.notUpgraded):
                timer.cancel()
            case .failure(let error):
                timer.cancel()
                if channel.isActive {
                    refusals.refuse(channel.remoteAddress, because: "WebSocket handshake failed: \(WebSocketClient.describe(error))")
                }
                channel.close(promise: nil)
            }
        }
    }
}

/// Answers a request that was not upgraded with the status the policy gives it, and closes.
final class HTTPRefusalResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let policy: WebSocketServerPolicy
    private let refusals: Refusals
    private let refusedHead: HTTPRequestHead?
    private var answered = false

    /// `refusedHead`: an upgrade request the policy refused (NIO keeps its head); nil for a
    /// plain HTTP request, whose head arrives here.
    init(policy: WebSocketServerPolicy, refusals: Refusals, refusedHead: HTTPRequestHead?) {
        self.policy = policy
        self.refusals = refusals
        self.refusedHead = refusedHead
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if let refusedHead { answer(refusedHead, context: context) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        answer(head, context: context)
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let (status, reason): (HTTPResponseStatus, String)
        switch policy.decide(head) {
        case .refuse(let refusedStatus, let why):
            (status, reason) = (refusedStatus, why)
        case .accept:
            // Accepted by the policy but not upgraded by NIO: a malformed key, for example.
            (status, reason) = (.badRequest, "malformed WebSocket upgrade request")
        }
        refusals.refuse(context.channel.remoteAddress, because: "HTTP \(status.code) \(status.reasonPhrase): \(reason)")
        var headers = HTTPHeaders()
        let body = ByteBuffer(string: "\(status.code) \(status.reasonPhrase): \(reason)\n")
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        headers.add(name: "Connection", value: "close")
        if status == .upgradeRequired {
            headers.add(name: "Upgrade", value: "websocket")
            headers.add(name: "Sec-WebSocket-Version", value: "13")
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
