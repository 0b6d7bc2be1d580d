import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

/// What the engine's events and summaries say in the log: the words a user reads on stderr
/// and the JSON a script reads from `proxy --json-log`.
@Suite(.hangGuard) struct EventLogTests {
    private let client = RelayClient(id: 3, peer: "127.0.0.1:40000")

    @Test func relayEventsHaveTheirLevelAndText() {
        #expect(RelayEvent.clientConnected(client).logLine == .note("client 3 connected from 127.0.0.1:40000"))
        #expect(RelayEvent.finished(client, .down).logLine == .event("client 3 < finished (upstream sent its end)"))
        #expect(RelayEvent.upstreamFailed(client, SocketEngineError(.connectionRefused, "connection refused")).logLine
            == .warning("client 3: connection refused"))
        #expect(RelayEvent.data(client, .up, ByteBuffer(string: "x")).logLine == nil)
        let ended = RelayEvent.clientDisconnected(client, bytesUp: 10, bytesDown: 20, duration: .milliseconds(1500), error: nil)
        #expect(ended.logLine == .note("client 3 from 127.0.0.1:40000 disconnected after 1.5s (10 bytes up, 20 bytes down)"))
    }

    @Test func relayEventJSONKeepsItsKeyOrderAndBodies() {
        let message = RelayEvent.message(client, .up, ByteBuffer(string: "hi\n"))
        #expect(message.json(time: "T").rendered
            == #"{"time":"T","event":"message","client":3,"peer":"127.0.0.1:40000","direction":"up","message":{"bytes":3,"text":"hi\n"}}"#)
        let binary = RelayEvent.data(client, .down, ByteBuffer(bytes: [0xFF, 0x00]))
        #expect(binary.json(time: "T").rendered.hasSuffix(#""data":{"bytes":2,"base64":"/wA="}}"#))
        #expect(RelayEvent.rejected(peer: "p", reason: "r").json(time: "T").rendered == #"{"time":"T","event":"refused","peer":"p","reason":"r"}"#)
    }

    @Test func summariesNameOnlyWhatHappened() {
        var relay = RelaySummary()
        relay.clients = 1
        relay.bytesUp = 5
        relay.duration = .seconds(2)
        #expect(relay.text == "summary: 1 client, 5 bytes up, 0 bytes down in 2s")
        relay.resets = 2
        relay.discardedBytes = 7
        #expect(relay.text == "summary: 1 client, 5 bytes up, 0 bytes down, 7 bytes discarded by faults, 2 resets in 2s")
        var listen = ListenSummary()
        listen.datagramsIn = 1
        listen.datagramsOut = 1
        listen.duration = .seconds(1)
        #expect(listen.text(transport: .udp) == "summary: 1 datagram in, 1 out, 0 bytes in, 0 bytes out in 1s")
        #expect(listen.text(transport: .tcp) == "summary: 0 clients, 0 bytes in, 0 bytes out in 1s")
    }

    /// README's Happy Eyeballs example: "(2 attempts over 2 addresses)", not "addresss".
    @Test func countsTakeTheirPlural() {
        #expect(plural(2, "address") == "2 addresses")
        #expect(plural(1, "address") == "1 address")
        #expect(plural(0, "client") == "0 clients")
        #expect(plural(1, "client") == "1 client")
        #expect(plural(3, "attempt") == "3 attempts")
    }

    @Test func sessionEndsSayWhatWasLost() {
        var summary = SessionSummary()
        summary.bytesLost = 4
        #expect(summary.logLines.filter { $0.level == .warning }.isEmpty, "a loss without an error is the command's error line, not a warning")
        summary.error = SocketEngineError(.connectionReset, "connection reset by peer")
        #expect(summary.logLines.last == .warning("4 bytes queued for sending never reached the peer's connection"))
        #expect(SessionEvent.peerFinished.logLines(webSocket: true) == [.event("peer finished (WebSocket closed)")])
    }
}
