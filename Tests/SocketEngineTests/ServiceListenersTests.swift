import NIOCore
import TestSupport
import Testing
@testable import SocketEngine

/// The lifecycle `listen` and `proxy` share: a stop (SIGINT) before, during or after the bind
/// ends the service — nothing is served once stopped, the listener is closed, and every client
/// registered before the stop is closed by it, none registered after.
@Suite(.hangGuard)
struct ServiceListenersTests {
    /// Stopped before the bind (a signal as the process starts): the bind still succeeds, the
    /// serve runs nothing and closes the listener.
    @Test(arguments: ["127.0.0.1:0", "udp://127.0.0.1:0"])
    func stopBeforeBindServesNothing(endpoint: String) async throws {
        let listeners = ServiceListeners()
        listeners.stop { [] }
        _ = try await listeners.bind(try Endpoint(parsing: endpoint, role: .listener), options: .patient)
        var served = 0
        let began = await listeners.serve(stream: { _ in served += 1 }, datagram: { _ in served += 1 })
        #expect(!began && served == 0)
        try await expectClosed(listeners)
        #expect(listeners.register { 1 } == nil)
    }

    /// Stopped while the bind is under way: whichever finishes first, the serve runs nothing and
    /// the listener ends up closed.
    @Test func stopDuringBindServesNothing() async throws {
        let listeners = ServiceListeners()
        let endpoint = try Endpoint(parsing: "127.0.0.1:0", role: .listener)
        async let bound = listeners.bind(endpoint, options: .patient)
        listeners.stop { [] }
        _ = try await bound
        let began = await listeners.serve(stream: { _ in }, datagram: { _ in })
        #expect(!began)
        try await expectClosed(listeners)
    }

    /// Stopped while serving: the listener closes (the serve returns), the client registered
    /// before the stop is closed by it, and none is registered after.
    @Test func stopWhileServingClosesTheListenerAndItsClients() async throws {
        let listeners = ServiceListeners()
        let port = try await listeners.bind(try Endpoint(parsing: "127.0.0.1:0", role: .listener), options: .patient).first?.port ?? 0
        let accepted = AsyncStream<Connection>.makeStream()
        let serving = Task {
            await listeners.serve(
                stream: { listener in
                    for await connection in listener.connections { accepted.continuation.yield(connection) }
                },
                datagram: { _ in }
            )
        }
        let client = try await connect("127.0.0.1:\(port)")
        var iterator = accepted.stream.makeAsyncIterator()
        let server = try #require(await iterator.next())
        #expect(listeners.register { 1 } == 1)
        listeners.stop { [server] }
        #expect(await serving.value, "the serve did not report that it ran")
        #expect(await ending(client) == "eof", "the registered client was not closed by the stop")
        #expect(listeners.register { 1 } == nil, "a client was registered after the stop")
        await client.close()
    }

    /// A listener closed by the stop: its stream of clients (or datagrams) has ended.
    private func expectClosed(_ listeners: ServiceListeners) async throws {
        if let listener = listeners.listener {
            for await connection in listener.connections { await connection.close() }
        } else {
            let listener = try #require(listeners.datagramListener)
            for await _ in listener.datagrams {}
        }
    }
}
