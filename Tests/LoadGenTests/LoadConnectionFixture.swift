import Histogram
import NIOCore
import NIOEmbedded
import SocketEngine
@testable import LoadGen

/// A shard with one load-test connection on an embedded loop whose clock starts at 1 s (a run's
/// start must not be 0, which means "not begun"): its event loop's time moves only when the test
/// says, and "the server" is the test, which reads what was sent and writes the replies.
struct LoadConnectionFixture {
    let loop = EmbeddedEventLoop()
    let channel: EmbeddedChannel
    let shard: LoadShard
    let context: RunContext
    /// The connection's handler.
    let handler: LoadConnectionHandler
    /// How many times the shard asked for the slot's connection to be opened again.
    let reconnects = Reconnects()

    /// Counts the shard's connect calls (on the loop).
    final class Reconnects: @unchecked Sendable {
        var count = 0
    }

    /// One connection, line framing, `message` as the template; `configure` sets the rest.
    init(message: String = "m{{seq}}", _ configure: (inout LoadPlan) throws -> Void) throws {
        var plan = LoadPlan(endpoint: try Endpoint(parsing: "127.0.0.1:7000"), message: try MessageTemplate(Array(message.utf8), framing: .line))
        plan.connections = 1
        plan.framing = .line
        try configure(&plan)
        context = RunContext(plan: plan, addresses: [try SocketAddress(ipAddress: "127.0.0.1", port: 7000)])
        let reconnects = reconnects
        shard = LoadShard(loop: loop, context: context) { _, _ in reconnects.count += 1 }
        loop.advanceTime(to: .uptimeNanoseconds(1_000_000_000))
        channel = EmbeddedChannel(loop: loop)
        handler = LoadConnectionHandler(slot: 0, shard: shard, datagram: false)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 7000)).wait()
        context.begin(at: shard.now)
        shard.beginSending()
    }

    /// Milliseconds since the run began.
    func advance(toMilliseconds milliseconds: Int64) {
        loop.advanceTime(to: .uptimeNanoseconds(1_000_000_000 + UInt64(milliseconds) * 1_000_000))
    }

    /// The messages written since the last look.
    func sent() throws -> [String] {
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text.split(separator: "\n").map(String.init)
    }

    /// A new connection for the slot (as the shard's connect would make after a close): it
    /// goes on with the slot's messages.
    func reopen() throws -> (EmbeddedChannel, LoadConnectionHandler) {
        let channel = EmbeddedChannel(loop: loop)
        let handler = LoadConnectionHandler(slot: 0, shard: shard, datagram: false)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 7000)).wait()
        return (channel, handler)
    }

    /// Everything written on `channel` since the last look, as text.
    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text
    }

    /// The server's bytes, as given.
    func reply(_ text: String) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    var stats: LoadStats { shard.stats }
    var counters: LoadCounters { shard.stats.counters }

    /// Every latency recorded, ns, in increasing order (a value per answered message).
    func latencies(_ histogram: Histogram<UInt64>) -> [UInt64] {
        histogram.recordedValues().flatMap { [UInt64](repeating: histogram.highestEquivalentForValue($0.value), count: Int($0.count)) }
    }
}
