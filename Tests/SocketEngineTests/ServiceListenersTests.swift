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
        let listeners = ServiceListeners(clock: .system)
        listeners.stop { [] }
        _ = try await listeners.bind(try Endpoint(parsing: endpoint, role: .listener), options: .patient)
        var served = 0
        let outcome = await listeners.serve(stream: { _ in served += 1 }, datagram: { _ in served += 1 })
        #expect(!outcome.began && served == 0)
        try await expectClosed(listeners)
        #expect(listeners.register { 1 } == nil)
    }

    /// Stopped while the bind is under way: whichever finishes first, the serve runs nothing and
    /// the listener ends up closed.
    @Test func stopDuringBindServesNothing() async throws {
        let listeners = ServiceListeners(clock: .system)
        let endpoint = try Endpoint(parsing: "127.0.0.1:0", role: .listener)
        async let bound = listeners.bind(endpoint, options: .patient)
        listeners.stop { [] }
        _ = try await bound
        let outcome = await listeners.serve(stream: { _ in }, datagram: { _ in })
        #expect(!outcome.began)
        try await expectClosed(listeners)
    }

    /// Stopped while serving: the listener closes (the serve returns), the client registered
    /// before the stop is closed by it, and none is registered after.
    @Test func stopWhileServingClosesTheListenerAndItsClients() async throws {
        let listeners = ServiceListeners(clock: .system)
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
        #expect(await serving.value.began, "the serve did not report that it ran")
        #expect(await ending(client) == "eof", "the registered client was not closed by the stop")
        #expect(listeners.register { 1 } == nil, "a client was registered after the stop")
        await client.close()
    }

    /// How long a service served (its summary's duration) is timed on the clock it was given,
    /// from the moment the serve began to its end — in virtual time, exactly: bound at 0, served
    /// from 5 s, stopped at 12 s, 7 s. Timed from the bind (or the clock's zero) it would be 12 s,
    /// on the real clock a few milliseconds.
    @Test func theServedTimeIsOnTheCallersClockFromTheServeToItsEnd() async throws {
        let clock = VirtualClock()
        let listeners = ServiceListeners(clock: clock.engine)
        _ = try await listeners.bind(try Endpoint(parsing: "127.0.0.1:0", role: .listener), options: .patient)
        await clock.advance(to: .seconds(5))
        let serving = AsyncStream<Void>.makeStream()
        let served = Task {
            await listeners.serve(
                stream: { listener in
                    serving.continuation.yield()
                    for await connection in listener.connections { await connection.close() }
                },
                datagram: { _ in }
            )
        }
        var began = serving.stream.makeAsyncIterator()
        _ = await began.next()
        await clock.advance(to: .seconds(12))
        listeners.stop { [] }
        #expect(await served.value == ServiceListeners.Served(began: true, duration: .seconds(7)))
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
