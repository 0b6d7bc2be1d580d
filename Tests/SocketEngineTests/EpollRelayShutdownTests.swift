import Foundation
import NIOCore
import TestSupport
import Testing
@testable import SocketEngine

/// The epoll relay loop's end (``EpollRelayLoop/shutdown()``), which `proxy` calls once its relay
/// has stopped: the clients still on the loop are closed as ``RelayService/stop()`` closes those
/// on the event loop, and nothing of the loop is left in the process — not its thread, not one
/// of its descriptors. Checked in `/proc/self` by identity (a socket's inode, the loop's epoll
/// instance by what it watches), not by counts: the suites beside this one open and close
/// descriptors and threads all the while.
@Suite(.hangGuard)
struct EpollRelayShutdownTests {
    @Test func shuttingTheLoopDownClosesItsClientsItsDescriptorsAndEndsItsThread() async throws {
        let upstream = try await TestServer.start { connection in
            while let chunk = try await connection.read() { try await connection.write(chunk) }
        }
        let loop = try #require(EpollRelayLoop())
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") { $0.epollLoop = loop }
        let client = try await connect("127.0.0.1:\(relay.port)")
        try await client.write(ByteBuffer(string: "ping"))
        #expect(string(try await client.read(.exactly(4))) == "ping")
        #expect(loop.pairsAdded == 1, "the client was not relayed by the epoll loop")

        // In flight on the loop: its thread, its epoll and eventfd, the client's two sockets.
        let thread = "/proc/self/task/\(loop.threadID)"
        #expect(loop.threadID > 0 && (try? String(contentsOfFile: "\(thread)/comm", encoding: .utf8)) == "sockctl-relay\n")
        let held = try LoopFiles(loop, relayPort: relay.port, upstreamPort: upstream.port)
        defer { held.release() }
        #expect(held.wakeID != nil, "this kernel does not number eventfds (fdinfo's eventfd-id)")
        #expect(held.sockets.count == 2, "the relay's client and upstream sockets: \(held.sockets)")
        #expect(held.openNow() == held.all, "the loop's descriptors are not all open while it relays")

        await onOwnThread { loop.shutdown() }

        // Required, not merely expected: a client left open would never see its end below.
        try #require(!loop.isRunning, "shutdown returned with the loop still running")
        // Joined: the kernel has cleared the thread's id, which it does just before it removes
        // the thread's entry — the entry's going is the next event.
        try await waitUntil { !FileManager.default.fileExists(atPath: thread) }
        try #require(held.openNow().isEmpty, "left open after the shutdown: \(held.openNow())")
        #expect(await ending(client) == "eof", "the client did not see its relay close")
        let gone = try await relay.disconnected(1)
        // As the relay's own stop ends a client on the event loop.
        #expect(gone.error?.code == .connectionClosed && gone.error?.message.hasSuffix(": relay stopped") == true, "\(String(describing: gone.error))")

        // A client the relay hands over after the loop ended is closed, not left waiting.
        let late = try await connect("127.0.0.1:\(relay.port)")
        #expect(await ending(late) == "eof")
        #expect(loop.pairsAdded == 2, "the late client was not handed to the loop")

        await client.close()
        await late.close()
        _ = await relay.stop()
        await upstream.stop()
        loop.shutdown()
    }
}

/// What an ``EpollRelayLoop`` holds open, each told by an identity that is not reused while
/// the test runs: the relay's sockets by inode, the epoll instance by the wake-up token it
/// watches its eventfd with, the eventfd by its id. A duplicate of the eventfd is held meanwhile
/// (``release()``), so that neither its id nor its place in the epoll instance's interest list
/// goes when the loop closes it: both still tell whether the loop closed its own descriptors.
private struct LoopFiles {
    /// `socket:[inode]` of the relay's accepted client socket and of its upstream socket.
    let sockets: Set<String>
    let epoll: Int32
    let wake: Int32
    let wakeID: String?
    private let wakeKept: Int32

    /// Everything this describes, as ``openNow()`` names it.
    var all: Set<String> { sockets.union(["epoll \(epoll)", "eventfd \(wake)"]) }

    init(_ loop: EpollRelayLoop, relayPort: Int, upstreamPort: Int) throws {
        (epoll, wake) = loop.descriptors
        wakeKept = dup(wake)
        guard wakeKept >= 0 else { throw HarnessError("dup: errno \(errno)") }
        wakeID = Self.fdinfo(wake)?.first { $0.hasPrefix("eventfd-id:") }
        // Established TCP connections: the relay's side of the client (local port the relay's)
        // and its upstream socket (remote port the upstream's).
        let rows = try Self.read("/proc/net/tcp").split(separator: "\n").dropFirst()
        sockets = Set(rows.compactMap { row -> String? in
            let fields = row.split(separator: " ")
            guard fields.count > 9, fields[3] == "01" else { return nil }
            let port = { (field: Substring) in field.split(separator: ":").last.flatMap { Int($0, radix: 16) } }
            guard port(fields[1]) == relayPort || port(fields[2]) == upstreamPort else { return nil }
            return "socket:[\(fields[9])]"
        })
    }

    /// Closes the duplicate of the loop's eventfd.
    func release() {
        close(wakeKept)
    }

    /// Which of them are open in this process now.
    func openNow() -> Set<String> {
        var open = Set<String>()
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for name in targets {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"), sockets.contains(target) {
                open.insert(target)
            }
        }
        // The loop's epoll instance watches its eventfd with the token UInt64.max.
        let watchesWake = Self.fdinfo(epoll)?.contains { line in
            line.hasPrefix("tfd:") && line.split(separator: " ").dropFirst().first == "\(wake)" && line.contains("data: ffffffffffffffff")
        }
        if watchesWake == true { open.insert("epoll \(epoll)") }
        if let wakeID, Self.fdinfo(wake)?.contains(wakeID) == true { open.insert("eventfd \(wake)") }
        return open
    }

    private static func fdinfo(_ descriptor: Int32) -> [String]? {
        (try? read("/proc/self/fdinfo/\(descriptor)"))?.split(separator: "\n").map(String.init)
    }

    /// The whole of a `/proc` file (`String(contentsOfFile:)` stops after its first page).
    private static func read(_ path: String) throws -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { throw HarnessError("cannot open \(path)") }
        defer { try? file.close() }
        return String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
    }
}
