import NIOCore
import NIOEmbedded
import SocketEngine
import Synchronization
import Testing
@testable import LoadGen
import TestSupport

/// A slot whose connection cannot be made is tried again after the load test's back-off
/// (``ReconnectPolicy/loadTest``), on its event loop's time: here an embedded loop's, moved by
/// the test.
@Suite(.hangGuard) struct LoadShardReconnectTests {
    @Test func aShardReconnectsAfterTheBackOff() throws {
        let loop = EmbeddedEventLoop()
        var plan = LoadPlan(endpoint: try Endpoint(parsing: "127.0.0.1:7000"), message: try MessageTemplate(Array("m".utf8), framing: .line))
        plan.connections = 1
        let context = RunContext(plan: plan, addresses: [try SocketAddress(ipAddress: "127.0.0.1", port: 7000)])
        let attempts = Mutex<[UInt64]>([])
        let shard = LoadShard(loop: loop, context: context) { _, shard in
            attempts.withLock { $0.append(shard.loop.now.uptimeNanoseconds) }
        }
        let refused = SocketEngineError(.connectionRefused, "connect to 127.0.0.1:7000 failed: connection refused")
        var expected: [UInt64] = []
        var at: UInt64 = 0
        for delay in [100, 200, 400, 800, 1600, 2000, 2000] as [UInt64] {
            shard.connectFailed(slot: 0, error: refused)
            at += delay * 1_000_000
            loop.advanceTime(to: .uptimeNanoseconds(at - 1_000))
            #expect(attempts.withLock { $0 } == expected, "not before \(delay) ms")
            loop.advanceTime(to: .uptimeNanoseconds(at))
            expected.append(at)
            #expect(attempts.withLock { $0 } == expected, "after \(delay) ms")
        }
        #expect(shard.stats.counters.connectsFailed == 7)
        #expect(shard.attemptedSlots == 1)
    }
}
