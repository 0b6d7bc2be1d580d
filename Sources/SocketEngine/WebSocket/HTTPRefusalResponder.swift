import NIOCore
import NIOHTTP1
import NIOWebSocket

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
