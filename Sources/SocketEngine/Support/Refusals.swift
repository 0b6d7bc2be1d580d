import NIOCore
import Synchronization

/// Where a listener reports the peers it refuses: counted exactly, and logged through a
/// bounded stream of events (under a flood the oldest unread events are dropped, not the count).
struct Refusals: Sendable {
    let count = SharedCounter()
    let stream: AsyncStream<ListenerEvent>
    private let continuation: AsyncStream<ListenerEvent>.Continuation

    init() {
        (stream, continuation) = AsyncStream<ListenerEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    func refuse(_ peer: SocketAddress?, because reason: SettingText) {
        count.add()
        continuation.yield(.rejected(peer: peer?.peerDescription ?? "?", reason: reason))
    }

    func finish() { continuation.finish() }
}
