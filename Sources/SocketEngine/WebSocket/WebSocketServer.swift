import NIOCore
import NIOHTTP1
import NIOWebSocket
import WebSocketDeflate

/// The server side of the opening handshake on an accepted channel: HTTP/1.1 until the
/// upgrade, then the WebSocket layer and the engine's connection handler. A request that is
/// not upgraded gets its status (see ``WebSocketServerPolicy``), is reported as a refusal and
/// is closed. A client that has not completed the handshake (TLS included, on `wss://`) within
/// ``SlotRules/handshakeTimeout`` of the accept is closed too, and counted as refused.
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
        slot: ClientSlot?,
        admit: @escaping @Sendable (Connection) -> Void
    ) throws {
        var secured: EventLoopFuture<SecurityReport>?
        // Known from the accept; a closed channel no longer says.
        let peer = channel.remoteAddress
        let timeout = options.slotRules.handshakeTimeout
        /// What the timer reports: the TLS handshake until it is done.
        let stage = NIOLoopBoundBox(endpoint.transport == .wss ? "TLS" : "WebSocket", eventLoop: channel.eventLoop)
        let timedOut = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
        if endpoint.transport == .wss {
            guard let secure = options.secureTransport else { throw WebSocketClient.missingTLS(for: .wss) }
            let report = try secure.addServerLayer(to: channel)
            report.assumeIsolated().whenComplete { result in
                switch result {
                case .success:
                    stage.value = "WebSocket"
                    slot?.enter(.webSocketHandshake)
                case .failure(let error):
                    if !timedOut.value { refusals.refuse(peer ?? channel.remoteAddress, because: Listener.handshakeFailure(error)) }
                }
            }
            secured = report
        }
        let security = secured
        let webSocket = options.webSocket
        let policy = WebSocketServerPolicy(path: endpoint.resource, allowedOrigins: webSocket.allowedOrigins, subprotocols: webSocket.subprotocols)
        let label = Connection.label(for: channel, transport: endpoint.transport)
        let transport = endpoint.transport
        /// The permessage-deflate offer accepted, the same in the answer and in the handshake.
        let compression: @Sendable (HTTPRequestHead) -> PerMessageDeflate? = { head in
            webSocket.compression ? PerMessageDeflate.serverAccept(head.headers["Sec-WebSocket-Extensions"]) : nil
        }
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
                if let compression = compression(head) {
                    headers.add(name: "Sec-WebSocket-Extensions", value: compression.responseHeader)
                }
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
                        host: head.headers.first(name: "Host"),
                        compression: compression(head)
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
        let timer = channel.eventLoop.assumeIsolated().scheduleTask(in: timeout.timeAmount) {
            timedOut.value = true
            // Closed (its place given back) before it is reported: whoever reads the report can connect.
            channel.close(promise: nil)
            refusals.refuse(peer ?? channel.remoteAddress, because: "no \(stage.value) handshake within \(timeout.formatted)")
        }
        upgraded.assumeIsolated().whenComplete { result in
            switch result {
            case .success(.upgraded(let connection)):
                timer.cancel()
                slot?.watch(connection.statistics)
                slot?.enter(.serving)
                admit(connection)
            case .success(.notUpgraded):
                timer.cancel()
            case .failure(let error):
                timer.cancel()
                if channel.isActive && !timedOut.value {
                    refusals.refuse(channel.remoteAddress, because: "WebSocket handshake failed: \(WebSocketClient.describe(error))")
                }
                channel.close(promise: nil)
            }
        }
    }
}
