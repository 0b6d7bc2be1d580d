import Foundation
import PacketDecoding
import TestSupport
import Testing

import Glibc

/// `sockctl loadtest --from-pcap`: a capture of 50 concurrent sessions, recorded by the tests
/// themselves (`listen --echo --record` while a 50-connection load test talks to it), replayed
/// as load against a live server on loopback. Only counts and contents are asserted, never
/// how long anything took.
@Suite("sockctl loadtest --from-pcap", .hangGuard)
struct LoadTestFromPcapTests {
    typealias Server = LoadTestCommandTests.Server

    /// 50 concurrent sessions of 3 request/reply lines each (`ping 1` … `ping 150`), as the
    /// echo server recorded them; the server keeps running.
    struct Recorded {
        let server: Server
        let capture: String
        let scratch: Scratch
    }

    static let sessions = 50
    static let messagesPerSession = 3

    func recordFiftySessions() async throws -> Recorded {
        let scratch = try Scratch()
        let capture = scratch.path("sessions.pcap")
        let recorder = try await Server.start(["--echo", "--framing", "line", "--record", capture])
        let load = try await run(try sockctlPath(), [
            "loadtest", recorder.target, "-c", "\(Self.sessions)", "--requests", "\(Self.sessions * Self.messagesPerSession)",
            "--framing", "line", "--message", "ping {{seq}}",
        ])
        #expect(load.status == 0, "\(load.stderr)")
        // The file is complete once the recording listener has exited.
        recorder.child.signal(SIGINT)
        #expect(try await recorder.child.wait() == 0, "\(recorder.child.stderr)")
        let list = try await run(try sockctlPath(), ["replay", capture, "--list"])
        let rows = String(decoding: list.stdout, as: UTF8.self).split(separator: "\n").dropFirst()
        #expect(rows.count == Self.sessions && rows.allSatisfy { $0.contains(" tcp ") }, "\(String(decoding: list.stdout, as: UTF8.self))")
        let server = try await Server.start(["--echo", "--framing", "line"])
        return Recorded(server: server, capture: capture, scratch: scratch)
    }

    func loadtest(_ arguments: [String]) async throws -> LoadTestCommandTests.Result {
        try await LoadTestCommandTests().loadtest(arguments)
    }

    /// Every stream of the capture replayed at once: 50 streams, 150 messages, all answered,
    /// and every reply (100 %) equal to the recording — framed, and as recorded segments with
    /// the recorded timing. Against a server that answers something else, the run fails with
    /// exit 1 and prints the first mismatch as `replay --verify` does.
    @Test func fiftyRecordedSessionsReplayAsLoadAndVerifyAgainstTheSameServerOnly() async throws {
        let recorded = try await recordFiftySessions()
        defer { recorded.server.child.signal(SIGKILL) }
        let total = Self.sessions * Self.messagesPerSession

        let framed = try await loadtest([
            recorded.server.target, "--from-pcap", recorded.capture, "--framing", "line", "--topspeed", "--verify-sample", "100%",
        ])
        #expect(framed.status == 0, "\(framed.stderr)")
        #expect(framed.int("replay/streams") == Self.sessions)
        #expect(framed.int("replay/runs") == Self.sessions && framed.int("replay/runs_completed") == Self.sessions)
        #expect(framed.int("connections/established") == Self.sessions)
        #expect(framed.int("messages/sent") == total && framed.int("messages/received") == total, "\(framed.json["messages"] ?? "")")
        #expect(framed.int("replay/verify/checked") == total && framed.int("replay/verify/mismatched") == 0)
        #expect(framed.int("latency/corrected/count") == total)
        #expect(framed.errors.isEmpty, "\(framed.errors)")
        #expect(framed.stdout.contains("plan        50 streams of \(recorded.capture) = 50 connections, top speed"), "\(framed.stdout)")
        #expect(framed.stdout.contains("verify      100% of replies sampled: 150 checked, 0 mismatched"), "\(framed.stdout)")

        let segments = try await loadtest([recorded.server.target, "--from-pcap", recorded.capture, "--verify-sample", "100%"])
        #expect(segments.status == 0, "\(segments.stderr)")
        #expect(segments.int("messages/sent") == total && segments.int("messages/received") == total, "\(segments.json["messages"] ?? "")")
        #expect(segments.int("replay/verify/mismatched") == 0 && segments.int("replay/verify/checked") == total)
        #expect(segments.stdout.contains("recorded timing, segments"), "\(segments.stdout)")

        try "PONG\n".write(toFile: recorded.scratch.path("reply"), atomically: true, encoding: .utf8)
        let changed = try await Server.start(["--framing", "line", "--respond", recorded.scratch.path("reply")])
        defer { changed.child.signal(SIGKILL) }
        let differ = try await loadtest([
            changed.target, "--from-pcap", recorded.capture, "--framing", "line", "--topspeed", "--verify-sample", "100%",
        ])
        #expect(differ.status == 1, "\(differ.stderr)")
        #expect(differ.int("messages/received") == total, "a reply came for each message, only not the recorded one")
        #expect(differ.int("replay/verify/mismatched") == total)
        #expect(differ.stdout.contains("stream 1, message 1 (copy 1, round 1): the reply differs from the recording\nmismatch in reply frame 1: "), "\(differ.stdout)")
        #expect(differ.stdout.contains("  ! 0x0000:  504f 4e47"), "the received PONG beside the recorded ping: \(differ.stdout)")
        #expect(differ.stderr.contains("--verify-sample: 150 of 150 sampled replies differ from the recording"), "\(differ.stderr)")

        // --ignore: the differing text left out of both sides, the replies match.
        let ignored = try await loadtest([
            changed.target, "--from-pcap", recorded.capture, "--framing", "line", "--topspeed", "--verify-sample", "100%", "--ignore", "^.*$",
        ])
        #expect(ignored.status == 0, "\(ignored.stderr)")
        #expect(ignored.int("replay/verify/checked") == total && ignored.int("replay/verify/mismatched") == 0)
    }

    /// UDP flows replay against a udp:// target, datagram for datagram: a session recorded by
    /// `listen udp://… --echo --record` checks out against a fresh UDP echo server.
    @Test func udpFlowsReplayAgainstAUDPTarget() async throws {
        let scratch = try Scratch()
        let capture = scratch.path("udp.pcap")
        let recorder = try await Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--echo", "--record", capture], name: "udp-echo")
        let port = try await recorder.listeningPort()
        try "one\ntwo!\nthree\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let client = try await run(try sockctlPath(), ["connect", "udp://127.0.0.1:\(port)", "--framing", "line"], stdin: .file(scratch.path("input")))
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == "one\ntwo!\nthree\n")
        recorder.signal(SIGINT)
        #expect(try await recorder.wait() == 0, "\(recorder.stderr)")

        let echo = try await Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--echo"], name: "udp-echo-2")
        defer { echo.signal(SIGKILL) }
        let echoPort = try await echo.listeningPort()
        let result = try await loadtest(["udp://127.0.0.1:\(echoPort)", "--from-pcap", capture, "--topspeed", "--verify-sample", "100%"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("replay/streams") == 1 && result.int("messages/sent") == 3 && result.int("messages/received") == 3, "\(result.json["messages"] ?? "")")
        // Every message whose recorded reply is not empty is checked (datagrams sent before any
        // echo came share the echoes that follow: the last of them waits for all).
        let checked = result.int("replay/verify/checked")
        #expect(checked >= 1 && checked + result.int("replay/one_way") == 3, "\(result.json["replay"] ?? "")")
        #expect(result.int("replay/verify/mismatched") == 0)
    }

    /// `--scale 2`: two connections per stream, every message twice.
    @Test func scaleTwoDoublesTheConnectionsAndMessagesExactly() async throws {
        let recorded = try await recordFiftySessions()
        defer { recorded.server.child.signal(SIGKILL) }
        let result = try await loadtest([recorded.server.target, "--from-pcap", recorded.capture, "--framing", "line", "--topspeed", "--scale", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("connections/requested") == 2 * Self.sessions && result.int("connections/established") == 2 * Self.sessions)
        #expect(result.int("replay/runs") == 2 * Self.sessions)
        let total = 2 * Self.sessions * Self.messagesPerSession
        #expect(result.int("messages/sent") == total && result.int("messages/received") == total, "\(result.json["messages"] ?? "")")
    }

    /// `--loop --requests N`: streams start again when they end, and sending stops at exactly N
    /// messages (more than one round holds).
    @Test func loopStartsStreamsAgainAndStopsAtTheRequestCount() async throws {
        let recorded = try await recordFiftySessions()
        defer { recorded.server.child.signal(SIGKILL) }
        let requests = 400
        let result = try await loadtest([
            recorded.server.target, "--from-pcap", recorded.capture, "--framing", "line", "--topspeed", "--loop", "--requests", "\(requests)",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == requests && result.int("messages/received") == requests, "\(result.json["messages"] ?? "")")
        #expect(result.int("replay/runs") > Self.sessions, "a round is 150 messages: 400 needs the streams again")
    }

    /// `--streams 1,3,5-9` sends exactly those streams' messages: what the target received (its
    /// own recording) is their client side, nothing else.
    @Test func streamsPicksExactlyTheChosenOnes() async throws {
        let recorded = try await recordFiftySessions()
        recorded.server.child.signal(SIGKILL)
        let received = recorded.scratch.path("received.pcap")
        let target = try await Server.start(["--echo", "--framing", "line", "--record", received])
        let result = try await loadtest([target.target, "--from-pcap", recorded.capture, "--framing", "line", "--topspeed", "--streams", "1,3,5-9"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("replay/streams") == 7 && (result.json["replay"] as? [String: Any])?["stream_list"] as? String == "1,3,5-9")
        #expect(result.int("messages/sent") == 7 * Self.messagesPerSession)
        target.child.signal(SIGINT)
        #expect(try await target.child.wait() == 0)
        let chosen = try clientPayloads(recorded.capture).enumerated().filter { [1, 3, 5, 6, 7, 8, 9].contains($0.offset + 1) }.map(\.element)
        #expect(Set(try clientPayloads(received)) == Set(chosen))
    }

    /// What the client of each TCP stream of a capture sent, stream by stream.
    func clientPayloads(_ path: String) throws -> [String] {
        let reader = try CaptureFileReader(path: path)
        var extractor = StreamExtractor(keepingMessagesWhere: { _ in true })
        while let record = try reader.next() { try extractor.add(record.header, record.bytes) }
        return extractor.finish().map { String(decoding: $0.stream(of: .client), as: UTF8.self) }
    }
}
