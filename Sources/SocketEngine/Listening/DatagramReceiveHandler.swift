import NIOCore
import NIOPosix
import Synchronization

final class DatagramReceiveHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    let socketIndex: Int
    let access: AccessPolicy
    let sink: AsyncStream<ReceivedDatagram>.Continuation
    let refusals: Refusals
    let dropped: SharedCounter
    let recording: DatagramRecording?

    init(
        socketIndex: Int, access: AccessPolicy, sink: AsyncStream<ReceivedDatagram>.Continuation, refusals: Refusals, dropped: SharedCounter,
        recording: DatagramRecording?
    ) {
        self.recording = recording
        self.socketIndex = socketIndex
        self.access = access
        self.sink = sink
        self.refusals = refusals
        self.dropped = dropped
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        if let reason = access.refusal(for: envelope.remoteAddress) {
            refusals.refuse(envelope.remoteAddress, because: reason)
            return
        }
        recording?.record(.received(envelope.data), peer: envelope.remoteAddress, socketIndex: socketIndex, local: context.channel.localAddress)
        let result = sink.yield(ReceivedDatagram(peer: envelope.remoteAddress, data: envelope.data, socketIndex: socketIndex))
        if case .dropped = result { dropped.add() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP errors for earlier replies (ECONNREFUSED) do not concern other peers.
    }
}
