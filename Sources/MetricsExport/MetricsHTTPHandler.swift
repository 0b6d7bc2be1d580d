import NIOCore
import NIOHTTP1
import SocketEngine

/// Answers HTTP/1 requests on one scraper's connection: `GET /metrics` (and `HEAD`) with the
/// registry's exposition, anything else with 404 or 405. Keep-alive as the scraper asks.
///
/// Request bodies are read and dropped (a scrape has none); the HTTP decoder before this handler
/// bounds the head. A response holding the final numbers is reported to the registry once it has
/// been written in full. A connection that has not completed a request within `idleTimeout` of
/// connecting, or of its last response, is closed and reported (the timer is the event loop's).
final class MetricsHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: MetricsRegistry
    private let idleTimeout: Duration
    private let report: @Sendable (MetricsServerEvent) -> Void
    private var request: HTTPRequestHead?
    /// Closes the connection unless a complete request arrives first.
    private var idleTimer: Scheduled<Void>?

    init(registry: MetricsRegistry, idleTimeout: Duration = MetricsServerLimits().idleTimeout,
         report: @escaping @Sendable (MetricsServerEvent) -> Void = { _ in }) {
        self.registry = registry
        self.idleTimeout = idleTimeout
        self.report = report
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { waitForRequest(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        waitForRequest(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        idleTimer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        idleTimer = nil
        context.fireChannelInactive()
    }

    /// Starts the idle timer (from now, in the loop's time).
    private func waitForRequest(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        let channel = context.channel
        let (timeout, report) = (idleTimeout, self.report)
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout.timeAmount) {
            report(.closedIdle(peer: channel.remoteAddress?.displayString ?? "?", after: timeout))
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            idleTimer?.cancel()
            idleTimer = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        var status = HTTPResponseStatus.ok
        var headers = HTTPHeaders()
        var body: [UInt8]
        var final = false
        if path != "/metrics" {
            status = .notFound
            body = Array("not found: the metrics are at /metrics\n".utf8)
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        } else if head.method != .GET && head.method != .HEAD {
            status = .methodNotAllowed
            body = Array("use GET /metrics\n".utf8)
            headers.add(name: "Allow", value: "GET, HEAD")
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        } else {
            (body, final) = registry.render()
            headers.add(name: "Content-Type", value: MetricsRegistry.contentType)
        }
        headers.add(name: "Content-Length", value: String(body.count))
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let registry = self.registry
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { result in
            if case .success = result { registry.served(final: final && head.method == .GET) }
            if !keepAlive { channel.close(promise: nil) }
        }
        // Kept alive: the next request must come within the idle timeout too (and a scraper that
        // does not read this response is let go then).
        if keepAlive { waitForRequest(context: context) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
