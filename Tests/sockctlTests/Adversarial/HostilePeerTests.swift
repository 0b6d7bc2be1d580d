import Foundation
import TestSupport
import Testing

import Glibc

/// The adversarial suite, peers: what a hostile client does to a server left listening on a
/// shared machine — a line that never ends, a length prefix of 4 GiB, a client that sends and
/// never reads, a ping flood, large frames through the proxy. Each attack must end with the
/// attacker cut or held back, the server's memory bounded by its limits (not by what was sent),
/// and the next client served. Memory is asserted, never time.
///
/// The other attacks of the suite (`make adversarial`, listed in the README's "Hostile peers and
/// files") live beside the code they attack: hostile WebSocket frames
/// (`WebSocketCommandTests.hostileFramesCloseWithTheRightCode`), hostile control commands
/// (``HostileControlTests``), hostile capture files (``HostileFileTests``), hostile report parts
/// (`ReportMergeCommandTests`), stalled, slow and idle clients (`ServerSlotTests`), one client
/// flooding its event loop (`FairnessTests`).
@Suite("adversarial: hostile peers", .hangGuard)
struct HostilePeerTests {
    static let mebibyte = 1 << 20

    static func listener(_ arguments: [String]) async throws -> (Child, Int) {
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k"] + arguments, name: "listen")
        return (server, try await server.listeningPort())
    }

    /// A client that is still served: its line comes back.
    static func served(_ port: Int, _ extra: [String] = []) async throws {
        let answer = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "still here", "--framing", "line"] + extra)
        #expect(answer.status == 0, "\(answer.stderr)")
        #expect(String(decoding: answer.stdout, as: UTF8.self) == "still here\n")
    }

    static func stop(_ server: Child) async throws {
        server.signal(SIGINT)
        #expect(try await server.wait() == 0, "\(server.stderr)")
    }

    /// 100 MiB without a newline to a line echo: the client is cut once it passes the 16 MiB
    /// frame limit, with the reason in the log; the server never held much more than the limit.
    @Test func aHundredMebibyteLineCutsOnlyItsClient() async throws {
        let (server, port) = try await Self.listener(["--echo", "--framing", "line"])
        let before = server.peakResidentBytes
        let sent = try await onOwnThread { () -> Int in
            let peer = try HostilePeer(port: port)
            return peer.sendWithoutReading([UInt8](repeating: 0x61, count: Self.mebibyte), limit: 100 * Self.mebibyte)
        }
        #expect(sent < 100 * Self.mebibyte, "the server read all of an endless line")
        try await server.waitForStderr("frame exceeds the maximum of 16777216 bytes")
        try await Self.served(port)
        let grown = server.peakResidentBytes - before
        #expect(grown < 64 * Self.mebibyte, "the peak grew by \(grown) bytes for a 16 MiB limit")
        try await Self.stop(server)
    }

    /// A 4-byte length prefix of 4 GiB − 1: refused on the prefix itself, before any body, and
    /// nothing is allocated for it.
    @Test func aFourGibibyteLengthPrefixIsRefusedOnThePrefix() async throws {
        let (server, port) = try await Self.listener(["--echo", "--framing", "length:4"])
        let before = server.peakResidentBytes
        let answer = try await onOwnThread { () -> [UInt8] in
            let peer = try HostilePeer(port: port)
            peer.send([0xFF, 0xFF, 0xFF, 0xFF] + Array("body".utf8))
            return peer.readToEnd()
        }
        #expect(answer.isEmpty, "nothing is echoed of a refused frame")
        try await server.waitForStderr("frame of 4294967295 bytes exceeds the maximum of 16777216 bytes")
        let served = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "still here", "--framing", "length:4"])
        #expect(String(decoding: served.stdout, as: UTF8.self) == "still here\n", "\(served.stderr)")
        #expect(server.peakResidentBytes - before < 16 * Self.mebibyte)
        try await Self.stop(server)
    }

    /// A client that sends to an echo server and never reads the echoes: once its replies fill
    /// the socket the server stops reading from it, so the client cannot make the server buffer
    /// what it sends; the others are served meanwhile.
    @Test func aClientThatNeverReadsIsHeldBack() async throws {
        let (server, port) = try await Self.listener(["--echo"])
        let before = server.peakResidentBytes
        let attacker = Task {
            try await onOwnThread { () -> Int in
                let peer = try HostilePeer(port: port)
                return peer.sendWithoutReading([UInt8](repeating: 0x62, count: 256 * 1024), limit: 512 * Self.mebibyte)
            }
        }
        try await server.waitForStderr("client 1 connected")
        try await Self.served(port)
        let sent = try await finished(attacker)
        #expect(sent < 512 * Self.mebibyte, "the server read everything a client that never reads sent")
        let grown = server.peakResidentBytes - before
        #expect(grown < 64 * Self.mebibyte, "the peak grew by \(grown) bytes")
        try await Self.stop(server)
    }

    /// Up to 200,000 pings of 125 bytes, their pongs never read: the server answers while it can
    /// and holds back once it cannot send (it never queues a pong per ping), so its memory stays
    /// put; other clients are served.
    @Test func aPingFloodThatNeverReadsItsPongsIsHeldBack() async throws {
        let server = try await Child(try sockctlPath(), ["listen", "ws://127.0.0.1:0/", "--echo", "-k"], name: "listen")
        let port = try await server.listeningPort()
        let before = server.peakResidentBytes
        let ping = RawWebSocket.frame(opcode: 9, payload: [UInt8](repeating: 0x70, count: 125))
        let flood = Array([[UInt8]](repeating: ping, count: 1000).joined())
        let sent = try await onOwnThread { () -> Int in
            let peer = try HostilePeer(port: port)
            peer.send(RawWebSocket.upgradeRequest(port: port))
            guard let answer = peer.read(through: Array("\r\n\r\n".utf8)), answer.starts(with: Array("HTTP/1.1 101".utf8)) else { return 0 }
            return peer.sendWithoutReading(flood, limit: 200 * flood.count)
        }
        #expect(sent > 0, "the upgrade was answered")
        let answer = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/", "still here"])
        #expect(String(decoding: answer.stdout, as: UTF8.self) == "still here\n", "\(answer.stderr)")
        let grown = server.peakResidentBytes - before
        #expect(grown < 64 * Self.mebibyte, "the peak grew by \(grown) bytes for \(sent) bytes of pings")
        try await Self.stop(server)
    }

    /// 20 clients at once each send 16 MiB − 100 bytes of a line that never ends through a
    /// line-framed proxy, three rounds over: once they are gone the proxy gives the memory back
    /// (glibc kept freed 16 MiB buffers in its arenas: 100–180 MB stayed resident in a debug build).
    @Test func aProxyGivesBackWhatLargeFramesTookOnceTheirClientsLeave() async throws {
        let (sink, sinkPort) = try await Self.listener(["--discard"])
        let proxy = try await Child(try sockctlPath(), ["proxy", "127.0.0.1:0", "127.0.0.1:\(sinkPort)", "--framing", "line"], name: "proxy")
        let port = try await proxy.listeningPort()
        let line = [UInt8](repeating: 0x78, count: 16 * Self.mebibyte - 100)
        for round in 1...3 {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        _ = try? await onOwnThread {
                            let peer = try HostilePeer(port: port)
                            peer.send(line)
                        }
                    }
                }
            }
            try await proxy.waitForStderr("disconnected", count: 20 * round)
        }
        let resident = proxy.residentBytes
        #expect(resident < 100 * Self.mebibyte, "\(resident) bytes still resident with no client left")
        try await Self.stop(proxy)
        try await Self.stop(sink)
    }
}
