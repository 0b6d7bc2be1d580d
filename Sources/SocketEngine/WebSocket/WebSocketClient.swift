import NIOCore
import NIOHTTP1
import NIOWebSocket
import WebSocketDeflate

import Glibc

/// The client side of the WebSocket opening handshake (RFC 6455 §4.1), on a connected channel.
///
/// ``ChannelOpener`` sets each channel up for it; the ``Connector`` races TCP as usual and
/// waits for the winning channel's upgrade:
///
/// ```
/// initializer:  [TLS layer, wss only], HTTP request/response codec  (before connecting)
/// upgrade:      101 -> frame codec, WebSocketHandler, the caller's handlers (ConnectionHandler)
/// ```
///
/// The handshake fails — and the connection is closed — on any status but 101 (the message
/// names it: `server answered 404 Not Found`), on a missing or wrong `Sec-WebSocket-Accept`
/// (NIO's upgrader checks it), on a subprotocol that was not offered, on an extension that
/// was not offered (none is), or when it takes longer than the time left.
package enum WebSocketClient {
    /// What the HTTP upgrade came to.
    enum Outcome: Sendable {
        case upgraded(WebSocketHandshake)
        case notUpgraded
    }

    package static func missingTLS(for transport: Endpoint.Transport) -> SocketEngineError {
        SocketEngineError(.unsupported, "\(transport.rawValue):// needs a TLS layer, and this build has none")
    }

    /// `handshake` within `timeout` from now: past it the channel is closed and the failure is a
    /// connect timeout (`timedOut` words it); any failure closes the channel, and one that is
    /// not the engine's says what went wrong in the handshake with the server.
    static func bounded<Value>(
        _ handshake: EventLoopFuture<Value>,
        on channel: any Channel,
        endpoint: Endpoint,
        timeout: Duration,
        timedOut message: @escaping @Sendable (String) -> String
    ) -> EventLoopFuture<Value> {
        let loop = channel.eventLoop
        let labelNow = channel.remoteAddress?.displayString
        let timedOut = NIOLoopBoundBox(false, eventLoop: loop)
        let timer = loop.assumeIsolated().scheduleTask(in: timeout.timeAmount) {
            timedOut.value = true
            channel.close(promise: nil)
        }
        let result = handshake.flatMapErrorThrowing { error -> Value in
            // The peer's address, taken before closing forgets it.
            let label = channel.remoteAddress?.displayString ?? labelNow ?? endpoint.description
            channel.close(promise: nil)
            if timedOut.value { throw SocketEngineError(.connectTimeout, SettingText(message(label))) }
            throw handshakeFailure(error, label: label)
        }
        result.whenComplete { _ in timer.cancel() }
        return result
    }

    /// A failed handshake with the server at `label` as the engine words it: its own errors as
    /// they are, any other as what went wrong (``describe(_:)``). On the event loops and on a
    /// ``BlockingChannel`` alike.
    static func handshakeFailure(_ error: any Error, label: String) -> SocketEngineError {
        if let engine = error as? SocketEngineError { return engine }
        return SocketEngineError(.webSocketHandshake, "WebSocket handshake with \(label) failed: \(describe(error))")
    }

    /// Waits, on a connected channel that ``ChannelOpener`` set up for WebSocket, for its
    /// `upgrade` (and for `wss://` its TLS `security`, taken as the channel was set up: a fast
    /// peer may have closed and emptied the pipeline by now) within `timeout`; returns the
    /// connection, the handshake, and the TLS report for `wss://`.
    static func upgrade(
        _ channel: any Channel,
        endpoint: Endpoint,
        timeout: Duration,
        upgrade: EventLoopFuture<(Connection, WebSocketHandshake)>?,
        security: EventLoopFuture<SecurityReport>?
    ) -> EventLoopFuture<(Connection, WebSocketHandshake, SecurityReport?)> {
        let loop = channel.eventLoop
        guard let upgrade else {
            channel.close(promise: nil)
            return loop.makeFailedFuture(SocketEngineError(.webSocketHandshake, "\(endpoint): the channel was not prepared for WebSocket"))
        }
        let handshake = (security?.map { Optional($0) } ?? loop.makeSucceededFuture(nil)).flatMap { report in
            upgrade.map { ($0, $1, report) }
        }
        return bounded(handshake, on: channel, endpoint: endpoint, timeout: timeout) { label in
            "WebSocket handshake with \(label) timed out after \(timeout.formatted)"
        }
    }

    /// Sends the upgrade request once the channel is active and waits for the answer; on 101
    /// (checked) `install` puts the WebSocket layer in place, on the loop, before any frame
    /// that came with the answer is passed on.
    static func negotiate(
        _ channel: any Channel,
        endpoint: Endpoint,
        options: ConnectOptions,
        install: @escaping @Sendable (any Channel, WebSocketHandshake, String) throws -> Void
    ) -> EventLoopFuture<WebSocketHandshake> {
        let loop = channel.eventLoop
        let webSocket = options.webSocket
        let refusal = loop.makePromise(of: HTTPResponseHead.self)
        let head = requestHead(for: endpoint, options: webSocket)
        let sent = WebSocketHandshake(
            resource: endpoint.resource,
            origin: webSocket.origin,
            host: head.headers.first(name: "Host")
        )
        let catcher = RefusedResponseCatcher(promise: refusal)
        let catcherOnLoop = NIOLoopBound(catcher, eventLoop: loop)
        let upgrader = NIOTypedWebSocketClientUpgrader<Outcome>(
            maxFrameSize: min(webSocket.maximumMessageSize, Int(UInt32.max)),
            enableAutomaticErrorHandling: false
        ) { channel, response in
            channel.eventLoop.makeCompletedFuture {
                let label = channel.remoteAddress?.displayString ?? endpoint.description
                channel.pipeline.syncOperations.removeHandler(catcherOnLoop.value, promise: nil)
                var agreed = sent
                agreed.subprotocol = try checkedSubprotocol(response, offered: webSocket.subprotocols)
                agreed.compression = try checkedExtensions(response, offered: webSocket.compression)
                try install(channel, agreed, label)
                return .upgraded(agreed)
            }
        }
        var configuration = NIOUpgradableHTTPClientPipelineConfiguration<Outcome>(
            upgradeConfiguration: .init(upgradeRequestHead: head, upgraders: [upgrader]) { channel in
                channel.eventLoop.makeSucceededFuture(.notUpgraded)
            }
        )
        // Frames the server sends right behind its 101 must reach the frame decoder.
        configuration.leftOverBytesStrategy = .forwardBytes
        let upgraded: EventLoopFuture<Outcome>
        let watcher = EndOfInputWatcher()
        do {
            try channel.pipeline.syncOperations.addHandler(watcher)
            upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
            try channel.pipeline.syncOperations.addHandler(catcher)
        } catch {
            return loop.makeFailedFuture(error)
        }
        // NIO's upgrade handler does not fail the upgrade when the server closes without a
        // byte of answer: the close does (the first to complete wins).
        let answered = loop.makePromise(of: Outcome.self)
        upgraded.cascade(to: answered)
        channel.closeFuture.whenComplete { _ in answered.fail(ChannelError.eof) }
        // A FIN (half-closure is on) is no close: one that leaves the answer unfinished
        // ends the handshake too, once what came with it has been through the upgrade. The
        // watcher passes the FIN on a turn of the loop later, after the HTTP decoder's removal
        // that a complete 101 queued (which completes the upgrade); a turn after that, an
        // upgrade that has not happened never will.
        watcher.onEndOfInput = {
            loop.assumeIsolated().execute {
                loop.assumeIsolated().execute { answered.fail(ChannelError.eof) }
            }
        }
        return answered.futureResult.flatMap { outcome in
            switch outcome {
            case .upgraded(let handshake):
                return loop.makeSucceededFuture(handshake)
            case .notUpgraded:
                // The response head reaches the catcher right after this.
                return refusal.futureResult.flatMapThrowing { response in
                    let label = channel.remoteAddress?.displayString ?? endpoint.description
                    throw SocketEngineError(
                        .webSocketHandshake,
                        "WebSocket handshake with \(label) failed: the server answered \(response.status.code) \(response.status.reasonPhrase)"
                    )
                }
            }
        }
    }

    /// `GET /path?query HTTP/1.1` with Host, Origin, the subprotocols offered and the user's
    /// headers (which may replace Host or Origin). NIO adds Upgrade, Connection and the key.
    package static func requestHead(for endpoint: Endpoint, options: WebSocketOptions) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        let defaultPort = endpoint.transport == .wss ? 443 : 80
        headers.add(name: "Host", value: endpoint.port == defaultPort ? endpoint.hostForDisplay : "\(endpoint.hostForDisplay):\(endpoint.port)")
        if let origin = options.origin { headers.add(name: "Origin", value: origin) }
        if !options.subprotocols.isEmpty {
            headers.add(name: "Sec-WebSocket-Protocol", value: options.subprotocols.joined(separator: ", "))
        }
        if options.compression {
            headers.add(name: "Sec-WebSocket-Extensions", value: PerMessageDeflate.clientOffer)
        }
        for (name, value) in options.headers {
            if ["host", "origin"].contains(name.lowercased()) {
                headers.replaceOrAdd(name: name, value: value)
            } else {
                headers.add(name: name, value: value)
            }
        }
        return HTTPRequestHead(version: .http1_1, method: .GET, uri: endpoint.resource, headers: headers)
    }

    /// The subprotocol the server chose: nil, or one of those offered (anything else fails).
    package static func checkedSubprotocol(_ response: HTTPResponseHead, offered: [String]) throws -> String? {
        let chosen = response.headers["Sec-WebSocket-Protocol"]
        guard let first = chosen.first else { return nil }
        let name = first.trimmingSpaces()
        guard chosen.count == 1, !name.contains(","), offered.contains(name) else {
            throw SocketEngineError(
                .webSocketHandshake,
                "the server chose subprotocol '\(first)', which was not offered" + (offered.isEmpty ? "" : " (offered: \(offered.joined(separator: ", ")))")
            )
        }
        return name
    }

    /// The extension the server chose: nil when it chose none; permessage-deflate within what
    /// was offered (nothing is offered when `offered` is false); anything else fails.
    package static func checkedExtensions(_ response: HTTPResponseHead, offered: Bool) throws -> PerMessageDeflate? {
        let chosen = response.headers["Sec-WebSocket-Extensions"]
        guard !chosen.isEmpty else { return nil }
        guard offered else {
            throw SocketEngineError(.webSocketHandshake, "the server chose an extension, but none was offered")
        }
        do {
            return try PerMessageDeflate.clientAccept(chosen)
        } catch {
            throw SocketEngineError(.webSocketHandshake, "\(error.reason)")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let upgrade = error as? NIOHTTPClientUpgradeError {
            switch upgrade {
            case .upgraderDeniedUpgrade: return "Sec-WebSocket-Accept is missing or does not match the key sent"
            case .responseProtocolNotFound: return "101 response without 'Upgrade: websocket'"
            default: return "\(upgrade)"
            }
        }
        if let parser = error as? HTTPParserError, parser == .invalidEOFState {
            return "the connection closed in the middle of the server's answer"
        }
        if error is HTTPParserError {
            return "the answer is not HTTP (\(error)): is it a TLS server (wss://) or not a web server?"
        }
        if let channel = error as? ChannelError, channel == .eof || channel == .inappropriateOperationForState {
            return "the connection closed before the server answered"
        }
        return SocketEngineError.classify(error).1.description
    }

    /// Installs the WebSocket layer and the engine's connection handler after an upgrade (either
    /// side), on the channel's event loop.
    static func install(
        on channel: any Channel,
        role: WebSocketHandler.Role,
        handshake: WebSocketHandshake,
        options: WebSocketOptions,
        setup: ConnectionSetup,
        label: String
    ) throws {
        try install(on: channel, role: role, handshake: handshake, options: options, label: label) { channel, handler in
            try installConnectionHandler(on: channel, above: handler, setup: setup)
        }
    }

    /// Puts the engine's connection handler above the WebSocket layer's `handler`, which counts
    /// and taps into its statistics.
    static func installConnectionHandler(on channel: any Channel, above handler: WebSocketHandler, setup: ConnectionSetup) throws {
        // Recorded as TCP carrying the messages' payloads, one segment each.
        try Connection.prepare(channel, transport: .ws, setup: setup)
        let connectionHandler = try channel.pipeline.syncOperations.handler(type: ConnectionHandler.self)
        handler.statistics = connectionHandler.statistics
        handler.tap = setup.tap
        handler.connectionHandler = connectionHandler
    }

    /// Adds the WebSocket layer, then `above` adds what takes its messages.
    static func install(
        on channel: any Channel,
        role: WebSocketHandler.Role,
        handshake: WebSocketHandshake,
        options: WebSocketOptions,
        label: String,
        above: (any Channel, WebSocketHandler) throws -> Void
    ) throws {
        // The limit the upgraders gave NIO's decoder, which this reader replaces.
        try WebSocketFrameReader.install(on: channel, maximumFrameSize: min(options.maximumMessageSize, Int(UInt32.max)))
        try WebSocketFrameWriter.install(on: channel)
        let handler = WebSocketHandler(role: role, options: options, handshake: handshake, label: label)
        try channel.pipeline.syncOperations.addHandler(handler)
        try above(channel, handler)
        options.onEvent?(.upgraded(connection: label, handshake: handshake))
        let watcher = try channel.pipeline.syncOperations.handler(type: EndOfInputWatcher.self)
        channel.pipeline.syncOperations.removeHandler(watcher, promise: nil)
        if watcher.sawEndOfInput {
            // The peer's FIN came with its handshake, before these handlers were there to see
            // it: tell them once the upgrade has finished passing on what it buffered.
            channel.eventLoop.assumeIsolated().execute {
                channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            }
        }
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
