import NIOCore
import TestSupport
import Testing
@testable import SocketEngine

/// The one choice of how a relayed client's bytes travel (``RelayPath``): the fast paths only
/// when nothing needs to see the bytes, the epoll loop only when there is one, faults always
/// through their own pump — one row per rule, on real loopback connections.
@Suite(.hangGuard)
struct RelayPathTests {
    /// One case of the rule: what differs from a plain TCP client with a plain upstream.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var faults = false
        var reportsData = false
        var reportsMessages = false
        var framing: Framing = .raw
        var udpActivity = false
        var udpClient = false
        var epollLoop = true
        var expected: String
        var testDescription: String { name }
    }

    static let table: [Row] = [
        Row(name: "plain streams, a loop", expected: "epollLoop"),
        Row(name: "plain streams, no loop", epollLoop: false, expected: "loopForward"),
        Row(name: "a fault can apply", faults: true, expected: "pumpWithFaults"),
        Row(name: "a fault with nothing else plain", faults: true, reportsData: true, framing: .line, expected: "pumpWithFaults"),
        Row(name: "chunks reported", reportsData: true, expected: "pump"),
        Row(name: "messages reported", reportsMessages: true, expected: "pump"),
        Row(name: "framing", framing: .line, expected: "pump"),
        Row(name: "a UDP idle timeout", udpActivity: true, expected: "pump"),
        Row(name: "a UDP client", udpClient: true, expected: "pump"),
        Row(name: "a UDP client, no loop", udpClient: true, epollLoop: false, expected: "pump"),
    ]

    @Test(arguments: table)
    func theRuleChoosesOnePath(row: Row) async throws {
        let server = try await TestServer.start { connection in _ = try await connection.read() }
        let clientSide = try await connect("127.0.0.1:\(server.port)")
        let upstream = try await connect("127.0.0.1:\(server.port)")
        let datagrams = try await DatagramListener.bind(try Endpoint(parsing: "udp://127.0.0.1:0", role: .listener))
        let peer = try #require(datagrams.localAddresses.first)
        let flow = DatagramFlow(peer: peer, listener: datagrams)
        let faults = row.faults ? ClientFaults(set: RelayFaultSet(), random: RelayRandom(seed: 1), clock: .system) : nil
        let reports = RelayReports(data: row.reportsData, messages: row.reportsMessages, emit: { _ in })
        let path = RelayPath.choose(
            clientSide: row.udpClient ? flow : clientSide, upstream: upstream, faults: faults, reports: reports,
            framing: row.framing, activity: row.udpActivity ? RelayActivity(clock: .system) : nil,
            epollLoop: row.epollLoop ? RelayUnderTest.epollLoop : nil
        )
        #expect(Self.name(path) == row.expected)
        if let (from, to) = path.joined(.up) {
            #expect(from === clientSide && to === upstream, "up does not go from the client to the upstream")
            let down = try #require(path.joined(.down))
            #expect(down.from === upstream && down.to === clientSide, "down does not go from the upstream to the client")
        }
        await clientSide.close()
        await upstream.close()
        await datagrams.close()
        await server.stop()
    }

    private static func name(_ path: RelayPath) -> String {
        switch path {
        case .epollLoop: "epollLoop"
        case .loopForward: "loopForward"
        case .pump: "pump"
        case .pumpWithFaults: "pumpWithFaults"
        }
    }
}
