import NIOCore
import NIOPosix
import Synchronization

import Glibc

/// Admits or refuses each accepted client on the listening channel's event loop, in accept
/// order: the access policy first, then a place under the client limit (``ClientSlots``, which
/// may make room by closing a client that holds a place without using it). A refused client is
/// closed before NIO registers it; an admitted one holds its place until it has gone.
final class AdmissionHandler: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let access: AccessPolicy
    private let refusals: Refusals
    private let slots: ClientSlots
    private let phase: SlotPolicy<EngineClock.Instant>.Phase

    /// `phase`: where an accepted client starts (in a handshake on TLS and WebSocket listeners).
    init(access: AccessPolicy, refusals: Refusals, slots: ClientSlots, phase: SlotPolicy<EngineClock.Instant>.Phase) {
        self.access = access
        self.refusals = refusals
        self.slots = slots
        self.phase = phase
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        let peer = child.remoteAddress
        if let refusal = access.refusal(for: peer) {
            refuse(child, peer: peer, because: refusal)
            return
        }
        if case .refused(let reason) = slots.admit(child, phase: phase) {
            refuse(child, peer: peer, because: SettingText(reason))
            return
        }
        context.fireChannelRead(data)
    }

    private func refuse(_ child: any Channel, peer: SocketAddress?, because reason: SettingText) {
        refusals.refuse(peer, because: reason)
        child.close(promise: nil)
    }
}
