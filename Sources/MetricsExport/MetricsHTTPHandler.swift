import NIOCore
import NIOHTTP1

/// Answers HTTP/1 requests on one scraper's connection: `GET /metrics` (and `HEAD`) with the
/// registry's exposition, anything else with 404 or 405. Keep-alive as the scraper asks.
///
/// Request bodies are read and dropped (a scrape has none); the HTTP decoder before this handler
/// bounds the head. A response holding the final numbers is reported to the registry once it has
/// been written in full.
final class MetricsHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: MetricsRegistry
    private var request: HTTPRequestHead?

    init(registry: MetricsRegistry) {
        self.registry = registry
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
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
