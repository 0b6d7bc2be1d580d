import NIOCore
import NIOHTTP1
import NIOWebSocket

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
                        setup: options.setup, label: label
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
