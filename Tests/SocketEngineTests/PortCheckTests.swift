import NIOCore
import Synchronization
import Testing
@testable import SocketEngine
import TestSupport

@Suite(.hangGuard) struct PortListTests {
    @Test func portsAndRangesInTheOrderGivenEachRangeLowToHigh() throws {
        #expect(try PortList(parsing: ["7000"]).ports == [7000])
        #expect(try PortList(parsing: ["20-23", "80"]).ports == [20, 21, 22, 23, 80])
        #expect(try PortList(parsing: ["23-20"]).ports == [20, 21, 22, 23], "high to low is the same range, as nc takes it")
        #expect(try PortList(parsing: ["1-65535"]).ports.count == 65535)
        #expect(try PortList(parsing: ["20-23", "80", "81"]).description == "20-23, 80-81")
    }

    @Test(arguments: [
        (["x"], "invalid port 'x': expected a port or a range of ports, e.g. 7000 or 20-30"),
        (["0"], "invalid port '0': 0 is out of range (1-65535)"),
        (["70000"], "invalid port '70000': 70000 is out of range (1-65535)"),
        (["20-"], "invalid port '20-': expected a port or a range of ports, e.g. 7000 or 20-30"),
        (["-20"], "invalid port '-20': expected a port or a range of ports, e.g. 7000 or 20-30"),
        (["1-2-3"], "invalid port '1-2-3': expected a port or a range of ports, e.g. 7000 or 20-30"),
        (["99999999999999999999"], "invalid port '99999999999999999999': expected a port or a range of ports, e.g. 7000 or 20-30"),
        (["1-65535", "80"], "more than 65535 ports to check"),
        ([], "no port to check (expected PORT or PORT-PORT, e.g. 7000 or 20-30)"),
    ])
    func badPortsAreRefusedNamingTheWord(words: [String], message: String) {
        #expect(throws: SocketEngineError(.invalidEndpoint, SettingText(message))) { try PortList(parsing: words) }
    }
}

@Suite(.hangGuard) struct PortCheckTests {
    /// One port open (a listener of the test's own), the others bound but never listening:
    /// each gets its line as soon as it is known, in order, and the check is a success.
    @Test func eachPortIsOpenOrClosedWithItsReason() async throws {
        let server = try await TestServer.start { _ in }
        let closed = [try ClosedPort(), try ClosedPort()]
        let ports = [closed[0].port, server.port, closed[1].port]
        let check = try PortCheck(target: try Endpoint(parsing: "127.0.0.1:1"), ports: try PortList(parsing: ports.map(String.init)), options: .patient)
        let lines = Mutex<[String]>([])
        let summary = await check.run { result in lines.withLock { $0.append(result.logLine.text.description) } }
        #expect(summary.results.map(\.port) == ports)
        #expect(summary.results.map(\.isOpen) == [false, true, false])
        #expect(summary.anyOpen)
        #expect(summary.error == nil && !summary.interrupted)
        #expect(lines.withLock { $0 } == [
            "127.0.0.1 \(ports[0]) (tcp) closed: connection refused (ECONNREFUSED)",
            "127.0.0.1 \(ports[1]) (tcp) open",
            "127.0.0.1 \(ports[2]) (tcp) closed: connection refused (ECONNREFUSED)",
        ])
        #expect(summary.logLines == [LogLine.note("3 ports checked: 1 open (\(ports[1])), 2 closed")])
        await server.stop()
        withExtendedLifetime(closed) {}
    }

    /// A name shows the address that answered; a name that does not resolve ends the check at
    /// once (every port would fail the same way).
    @Test func aNameShowsItsAddressAndAnUnknownNameEndsTheCheck() async throws {
        let server = try await TestServer.start { _ in }
        var options = ConnectOptions.patient
        options.resolver = StaticResolver(table: ["app.test": ["127.0.0.1"]], fallback: NoSuchName())
        let check = try PortCheck(target: try Endpoint(parsing: "app.test:\(server.port)"), ports: nil, options: options)
        let summary = await check.run()
        #expect(summary.results.map(\.logLine.text) == ["app.test (127.0.0.1) \(server.port) (tcp) open"])
        #expect(summary.logLines.isEmpty, "one port: its line says it all")

        let unknown = try PortCheck(target: try Endpoint(parsing: "other.test:1"), ports: try PortList(parsing: ["1-3"]), options: options)
        let failed = await unknown.run()
        #expect(failed.results.isEmpty)
        #expect(failed.error?.code == .resolutionFailed, "\(String(describing: failed.error))")
        #expect(!failed.anyOpen)
        await server.stop()
    }

    @Test func onlyTCPAndUnixTargetsCanBeChecked() throws {
        for text in ["udp://127.0.0.1:53", "tls://127.0.0.1:443", "ws://127.0.0.1/"] {
            #expect(throws: SocketEngineError.self) { try PortCheck(target: try Endpoint(parsing: text), ports: nil) }
        }
        #expect(try PortCheck(target: try Endpoint(parsing: "unix:/tmp/x.sock"), ports: nil).ports == nil)
    }

    /// A stop before the check starts: nothing is tried, the summary says it was interrupted.
    @Test func aStopEndsTheCheckInOrder() async throws {
        let closed = try ClosedPort()
        let check = try PortCheck(target: try Endpoint(parsing: "127.0.0.1:\(closed.port)"), ports: nil, options: .patient)
        check.stop()
        let summary = await check.run()
        #expect(summary.interrupted)
        #expect(summary.results.isEmpty)
        withExtendedLifetime(closed) {}
    }
}

/// A resolver that knows no name (no DNS asked, however the machine is set up).
private struct NoSuchName: HostResolver {
    func resolve(host: String, port: Int, datagram: Bool) async throws -> [SocketAddress] {
        throw SocketEngineError(.resolutionFailed, "cannot resolve '\(host)': no such name")
    }
}
