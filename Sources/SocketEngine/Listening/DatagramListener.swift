import NIOCore
import NIOPosix
import Synchronization

/// Bound UDP sockets (loopback v4 and v6 by default) delivering datagrams from any peer.
///
/// Datagrams from peers refused by the access policy are dropped and reported. When the
/// application falls behind by more than `queueLimit` datagrams, newer ones are dropped and
/// counted in ``droppedDatagrams`` — UDP may lose data, but never silently.
package final class DatagramListener: Sendable {
    package let localAddresses: [SocketAddress]
    /// Received datagrams; finishes when the listener closes.
    package let datagrams: AsyncStream<ReceivedDatagram>
    package let events: AsyncStream<ListenerEvent>
    private let channels: [any Channel]
    private let sink: AsyncStream<ReceivedDatagram>.Continuation
    private let dropped: SharedCounter

    /// Datagrams received but dropped because the queue was full.
    package var droppedDatagrams: Int { dropped.count }
    /// The event loop of the socket that receives from `peer`'s address family (timers of what
    /// serves that peer run there), and that socket's address.
    package func socket(for peer: SocketAddress) -> (loop: (any EventLoop)?, address: SocketAddress?) {
        let channel = channels.first { $0.localAddress?.protocol == peer.protocol } ?? channels.first
        return (channel?.eventLoop, channel?.localAddress)
    }
    /// Datagrams refused by the access policy (exact; ``events`` is bounded).
    package var rejectedCount: Int { refusals.count.count }
    private let refusals: Refusals
    private let recording: DatagramRecording?

    private init(
        channels: [any Channel], datagrams: (AsyncStream<ReceivedDatagram>, AsyncStream<ReceivedDatagram>.Continuation), refusals: Refusals,
        dropped: SharedCounter, recording: DatagramRecording?
    ) {
        self.recording = recording
        self.refusals = refusals
        self.channels = channels
        self.localAddresses = channels.compactMap(\.localAddress)
        self.datagrams = datagrams.0
        self.sink = datagrams.1
        self.events = refusals.stream
        self.dropped = dropped
    }

    package static func bind(_ endpoint: Endpoint, options: ListenOptions = ListenOptions(), queueLimit: Int = 8192) async throws -> DatagramListener {
        let datagrams = AsyncStream<ReceivedDatagram>.makeStream(bufferingPolicy: .bufferingOldest(queueLimit))
        let refusals = Refusals()
        let dropped = SharedCounter()
        let recording = options.recorder.map(DatagramRecording.init)
        let addresses = try await BindPlan.addresses(for: endpoint, resolver: options.resolver, datagram: true)
        var index = 0
        let channels = try await BindPlan.bindAll(
            addresses,
            optionalAfterFirst: endpoint.host.isEmpty,
            bind: { address in
                let socketIndex = index
                index += 1
                return try await DatagramBootstrap(group: options.group)
                    .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                    .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65536))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                DatagramReceiveHandler(
                                    socketIndex: socketIndex,
                                    access: options.access,
                                    sink: datagrams.1,
                                    refusals: refusals,
                                    dropped: dropped,
                                    recording: recording
                                )
                            )
                        }
                    }
                    .bind(to: address)
                    .get()
            },
            port: { $0.localAddress?.port }
        )
        return DatagramListener(channels: channels, datagrams: datagrams, refusals: refusals, dropped: dropped, recording: recording)
    }

    /// Sends `data` to `peer` from the socket that received `datagram` from it.
    package func reply(to datagram: ReceivedDatagram, with data: ByteBuffer) async throws {
        try await send(data, to: datagram.peer, socketIndex: datagram.socketIndex)
    }

    /// Sends `data` to `peer` from the first bound socket of the peer's family.
    package func send(_ data: ByteBuffer, to peer: SocketAddress) async throws {
        let index = channels.firstIndex { $0.localAddress?.protocol == peer.protocol } ?? 0
        try await send(data, to: peer, socketIndex: index)
    }

    private func send(_ data: ByteBuffer, to peer: SocketAddress, socketIndex: Int) async throws {
        guard channels.indices.contains(socketIndex) else { return }
        let channel = channels[socketIndex]
        do {
            try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: peer, data: data))
            recording?.record(.sent(data), peer: peer, socketIndex: socketIndex, local: channel.localAddress)
        } catch {
            throw SocketEngineError.wrapping(error, context: "send to \(peer.displayString)")
        }
    }

    package func close() async {
        for channel in channels { try? await channel.close().get() }
        recording?.closeAll()
        sink.finish()
        refusals.finish()
    }
}
