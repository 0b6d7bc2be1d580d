import NIOCore
import NIOPosix
import TestSupport
import Synchronization
import Testing
import Glibc
@testable import SocketEngine

@Suite(.hangGuard) struct ConnectionTests {
    @Test func readRequestsAreServedInOrder() async throws {
        let server = try await TestServer.start { connection in
            try await connection.write(ByteBuffer(string: "abc\r\ndefgh12345"))
        }
        let client = try await connect("127.0.0.1:\(server.port)")
        #expect(string(try await client.read(.delimited(by: [0x0D, 0x0A], maxLength: 10))) == "abc\r\n")
        #expect(string(try await client.read(.exactly(5))) == "defgh")
        var rest = ""
        while let chunk = try await client.read(.available) { rest += string(chunk) ?? "" }
        #expect(rest == "12345")
        await client.close()
        await server.stop()
    }

    @Test func aTimedOutReadKeepsTheBytesThatDidArrive() async throws {
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let server = try await TestServer.start { connection in
            try await connection.write(ByteBuffer(string: "12345"))
            for await _ in release { break }
            try await connection.write(ByteBuffer(string: "67890"))
        }
        let client = try await connect("127.0.0.1:\(server.port)")
        await #expect {
            _ = try await client.read(.exactly(10), timeout: .milliseconds(200))
        } throws: { ($0 as? SocketEngineError)?.code == .readTimeout }
        releaseContinuation.yield()
        #expect(string(try await client.read(.exactly(10))) == "1234567890")
        await client.close()
        await server.stop()
    }

    @Test func aCancelledReadLeavesTheDataForTheNextRead() async throws {
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let server = try await TestServer.start { connection in
            for await _ in release { break }
            try await connection.write(ByteBuffer(string: "payload"))
        }
        let client = try await connect("127.0.0.1:\(server.port)")
        // Cancelled whether or not the read has been queued yet: either way it ends, and the
        // bytes wait for the next read.
        let waiting = Task { try await client.read(.exactly(7)) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        releaseContinuation.yield()
        #expect(string(try await client.read(.exactly(7))) == "payload")
        await client.close()
        await server.stop()
    }

    @Test func anOversizedFrameClosesOnlyThatConnection() async throws {
        let outcomes = AsyncStream<String>.makeStream()
        let server = try await TestServer.start { connection in
            do {
                while let line = try await connection.readFrame(.line, maxFrameSize: 1024) {
                    try await connection.write(ByteBuffer(string: "ok \(line.readableBytes)\n"))
                }
                outcomes.continuation.yield("eof")
            } catch let error as SocketEngineError {
                outcomes.continuation.yield(error.code.name)
            }
        }
        let hostile = try await connect("127.0.0.1:\(server.port)")
        let polite = try await connect("127.0.0.1:\(server.port)")
        try await hostile.write(ByteBuffer(repeating: UInt8(ascii: "x"), count: 4096))
        var iterator = outcomes.stream.makeAsyncIterator()
        #expect(await iterator.next() == "frame-too-large")
        #expect(try await hostile.read(.available) == nil)
        try await polite.write(ByteBuffer(string: "hello\n"))
        #expect(string(try await polite.read(.delimited(by: [0x0A], maxLength: 100))) == "ok 5\n")
        await hostile.close()
        await polite.close()
        await server.stop()
    }

    @Test func halfCloseLetsThePeerAnswerAfterEndOfInput() async throws {
        let server = try await TestServer.start { connection in
            var received = 0
            while let chunk = try await connection.read() { received += chunk.readableBytes }
            try await connection.write(ByteBuffer(string: "got \(received)"))
        }
        let client = try await connect("127.0.0.1:\(server.port)")
        try await client.write(ByteBuffer(string: "request"))
        try await client.closeWrite()
        #expect(string(try await client.read(.exactly(5))) == "got 7")
        #expect(try await client.read() == nil)
        await client.close()
        await server.stop()
    }

    @Test func anUnreadConnectionStopsReadingAtItsBufferLimit() async throws {
        let total = 32 << 20
        let server = try await TestServer.start { connection in
            let chunk = ByteBuffer(repeating: 0x61, count: 1 << 20)
            for _ in 0..<(total >> 20) { try await connection.send(chunk) }
            try await connection.flush()
        }
        var options = ConnectOptions.patient
        options.bufferLimit = 1 << 20
        // That reading stops at the limit is checked on the handler itself (ConnectionTimingTests);
        // here every byte still arrives, in order, once the reads come.
        let client = try await connect("127.0.0.1:\(server.port)", options: options)
        var received = 0
        while let chunk = try await client.read(.available(maxLength: 1 << 20)) {
            received += chunk.readableBytes
        }
        #expect(received == total)
        await client.close()
        await server.stop()
    }

    @Test func aWriteThePeerNeverReadsTimesOutAndClosesTheConnection() async throws {
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        var options = ListenOptions()
        options.bufferLimit = 1 << 20
        // The server never reads: the kernel buffers and its 1 MiB limit fill, then nothing moves.
        let server = try await TestServer.start(options: options) { _ in
            for await _ in release { break }
        }
        let client = try await connect("127.0.0.1:\(server.port)")
        let big = ByteBuffer(repeating: 0x78, count: 256 << 20)
        let clock = ContinuousClock()
        let started = clock.now
        await #expect {
            try await client.write(big, timeout: .milliseconds(300))
        } throws: { ($0 as? SocketEngineError)?.code == .writeTimeout }
        // Not before the timeout (exactly when is checked in virtual time, ConnectionTimingTests).
        #expect(clock.now - started >= .milliseconds(300))
        #expect(!client.isActive)
        releaseContinuation.finish()
        await server.stop()
    }

    @Test func dribbledSegmentsAreStoredCompactly() async throws {
        // 20,000 one-byte writes with TCP_NODELAY: each may arrive as its own segment.
        let server = try await TestServer.start { connection in
            let byte = ByteBuffer(string: "z")
            for _ in 0..<20_000 { try await connection.send(byte) }
            try await connection.write(ByteBuffer(string: "\n"))
        }
        let client = try await connect("127.0.0.1:\(server.port)")
        let line = try await client.read(.frame(.line, maxFrameSize: 1 << 20))
        #expect(line?.readableBytes == 20_000)
        #expect(line.map { $0.readableBytesView.allSatisfy { $0 == UInt8(ascii: "z") } } == true)
        await client.close()
        await server.stop()
    }

    @Test func connectionRefusedNamesTheAddress() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        await #expect {
            _ = try await connect("127.0.0.1:\(port)")
        } throws: { error in
            guard let error = error as? SocketEngineError else { return false }
            return error.code == .connectionRefused && error.message.contains("127.0.0.1:\(port)") && error.message.contains("ECONNREFUSED")
        }
        withExtendedLifetime(closed) {}
    }

    @Test func datagramConnectionsKeepMessageBoundaries() async throws {
        let listener = try await DatagramListener.bind(try Endpoint(parsing: "udp://127.0.0.1:0", role: .listener))
        let port = listener.localAddresses[0].port ?? 0
        let echo = Task {
            for await datagram in listener.datagrams {
                try? await listener.reply(to: datagram, with: datagram.data)
            }
        }
        let client = try await connect("udp://127.0.0.1:\(port)")
        try await client.write(ByteBuffer(string: "one"))
        try await client.write(ByteBuffer(string: "two"))
        #expect(string(try await client.read()) == "one")
        #expect(string(try await client.read()) == "two")
        await client.close()
        await listener.close()
        echo.cancel()
    }

    @Test func unixSocketsCarryStreamsAndCleanUp() async throws {
        let path = "/tmp/sockctl-test-\(UInt32.random(in: 0...UInt32.max)).sock"
        let server = try await TestServer.start("unix:\(path)") { connection in
            while let chunk = try await connection.read() { try await connection.write(chunk) }
        }
        let client = try await connect("unix:\(path)")
        try await client.write(ByteBuffer(string: "over unix"))
        #expect(string(try await client.read(.exactly(9))) == "over unix")
        await client.close()
        await server.stop()
        await #expect(throws: SocketEngineError.self) { _ = try await connect("unix:\(path)") }
    }
}

@Suite(.hangGuard) struct ConnectorTests {
    @Test func happyEyeballsFallsBackToIPv4WhenIPv6IsRefused() async throws {
        let server = try await TestServer.start("127.0.0.1:0") { connection in
            try await connection.write(ByteBuffer(string: "v4"))
        }
        var options = ConnectOptions.patient
        options.resolver = StaticResolver(table: ["dual.test": ["127.0.0.1", "::1"]])
        // What is checked is the fallback, not its speed (its timing is HappyEyeballsTimingTests').
        let (connection, report) = try await Connector(endpoint: try Endpoint(parsing: "dual.test:\(server.port)"), options: options).connect()
        #expect(report.resolved.map { $0.ipAddress ?? "" } == ["::1", "127.0.0.1"])
        #expect(report.attempts.count == 2)
        #expect(report.attempts[0].outcome != .connected)
        #expect(report.attempts[1].outcome == .connected)
        #expect(report.connectedAddress?.ipAddress == "127.0.0.1")
        #expect(string(try await connection.read(.exactly(2))) == "v4")
        await connection.close()
        await server.stop()
    }

    @Test func forcingIPv6ReportsTheRefusedIPv6Address() async throws {
        let server = try await TestServer.start("127.0.0.1:0") { _ in }
        var options = ConnectOptions.patient
        options.family = .ipv6Only
        options.resolver = StaticResolver(table: ["dual.test": ["127.0.0.1", "::1"]])
        await #expect {
            _ = try await Connector(endpoint: try Endpoint(parsing: "dual.test:\(server.port)"), options: options).connect()
        } throws: { error in
            guard let error = error as? SocketEngineError else { return false }
            return error.message.contains("[::1]:\(server.port)") && !error.message.contains("127.0.0.1")
                && error.attempts.count == 1
        }
        await server.stop()
    }

    @Test func aNameWithoutTheRequestedFamilyIsAResolutionError() async throws {
        var options = ConnectOptions.patient
        options.family = .ipv6Only
        options.resolver = StaticResolver(table: ["v4only.test": ["127.0.0.1"]])
        await #expect {
            _ = try await Connector(endpoint: try Endpoint(parsing: "v4only.test:80"), options: options).connect()
        } throws: { ($0 as? SocketEngineError)?.message.contains("has no IPv6 address") == true }
    }

    /// An address literal is not resolved: no thread-pool round trip whose wait — long on a
    /// busy machine — would be charged to the connect timeout (connects to 127.0.0.1 timed
    /// out, and refused ones were reported as timeouts, while other tests kept the
    /// cooperative threads busy).
    @Test func addressLiteralsSkipTheResolver() async throws {
        struct RefusingResolver: HostResolver {
            func resolve(host: String, port: Int, datagram: Bool) async throws -> [SocketAddress] {
                throw SocketEngineError(.resolutionFailed, "asked to resolve '\(host)'")
            }
        }
        let server = try await TestServer.start("127.0.0.1:0") { _ in }
        var options = ConnectOptions.patient
        options.resolver = RefusingResolver()
        let (connection, report) = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"), options: options).connect()
        #expect(report.resolved.map { $0.ipAddress ?? "" } == ["127.0.0.1"])
        await connection.close()
        await #expect {
            _ = try await Connector(endpoint: try Endpoint(parsing: "name.test:\(server.port)"), options: options).connect()
        } throws: { ($0 as? SocketEngineError)?.message.contains("asked to resolve 'name.test'") == true }
        await server.stop()
    }

    @Test func sourceAddressIsBound() async throws {
        let server = try await TestServer.start("127.0.0.1:0") { _ in }
        var options = ConnectOptions.patient
        options.source = try SourceAddress(parsing: "127.0.0.7")
        let (connection, _) = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"), options: options).connect()
        #expect(connection.localAddress?.ipAddress == "127.0.0.7")
        await connection.close()
        await server.stop()
    }

    @Test func interfaceBindingUsesTheNamedDevice() async throws {
        let server = try await TestServer.start("127.0.0.1:0") { connection in
            try await connection.write(ByteBuffer(string: "via lo"))
        }
        var options = ConnectOptions.patient
        options.interface = "lo"
        let (connection, _) = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"), options: options).connect()
        #expect(string(try await connection.read(.exactly(6))) == "via lo")
        await connection.close()
        options.interface = "nonexistent0"
        await #expect {
            _ = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"), options: options).connect()
        } throws: { ($0 as? SocketEngineError)?.message.contains("unknown interface 'nonexistent0'") == true }
        await server.stop()
    }

    @Test func systemResolverFindsLocalhost() async throws {
        let addresses = try await SystemResolver().resolve(host: "localhost", port: 80, datagram: false)
        #expect(addresses.contains { $0.ipAddress == "127.0.0.1" })
        await #expect(throws: SocketEngineError.self) {
            _ = try await SystemResolver().resolve(host: unresolvableHost, port: 80, datagram: false)
        }
    }
}
