import Foundation
import TestSupport
import Testing

import Glibc

/// Long captures as tcpdump 4.99.3 runs them: -G with -W ends by itself after its files, -C with
/// -W is a ring, -z runs on each finished file, -D lists what tcpdump -D lists. Each test waits
/// for the capture to exit, never for a duration; the traffic comes from a Python sender that
/// the test stops once the capture has exited.
@Suite("sockctl capture -C -G -W -z -D", .hangGuard)
struct CaptureRotationTests {
    /// Sends UDP datagrams of `size` bytes to 127.0.0.1:`port`, one every `interval` seconds
    /// (0: as fast as it can), at most `count` of them.
    static func sender(port: Int, size: Int, interval: Double, count: Int) async throws -> Child {
        let script = """
            import socket, sys, time
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            for _ in range(\(count)):
                try:
                    s.sendto(b'x' * \(size), ('127.0.0.1', \(port)))
                except OSError:
                    pass
                if \(interval) > 0:
                    time.sleep(\(interval))
            """
        return try await Child(try tool("python3"), ["-c", script], name: "sender")
    }

    func openScratch() throws -> Scratch {
        let scratch = try Scratch()
        chmod(scratch.url.path, 0o777)
        return scratch
    }

    /// Reads `path` with tcpdump and with `capture -r`: both succeed and print the same lines.
    static func expectReadable(_ path: String) async throws -> Int {
        let tcpdump = try await run(try tool("tcpdump"), ["-n", "-r", path], environment: ["TZ": "UTC"])
        #expect(tcpdump.status == 0, "\(path): \(tcpdump.stderr)")
        let ours = try await run(try sockctlPath(), ["capture", "-r", path, "--no-dump"], environment: ["TZ": "UTC"])
        #expect(ours.status == 0, "\(path): \(ours.stderr)")
        #expect(ours.stdout == tcpdump.stdout, "\(path): capture -r prints what tcpdump -r prints")
        return tcpdump.stdout.split(separator: UInt8(ascii: "\n")).count
    }

    /// `-G 2 -W 3 -z gzip`: three files named by the strftime pattern, each gzip-compressed by
    /// the command as the user the capture dropped to, then the capture ends by itself.
    @Test(.enabled(if: geteuid() == 0, "live capture needs root"))
    func timeRotationWithCountEndsByItselfAfterThreeCompressedFiles() async throws {
        let scratch = try openScratch()
        let port = 40_000 + Int(getpid() % 5000)
        let capture = try await Child(
            try sockctlPath(), ["capture", "-i", "lo", "-G", "2", "-W", "3", "-z", "gzip", "-w", scratch.path("g-%s.pcap"), "udp port \(port)"],
            name: "capture")
        defer { capture.signal(SIGKILL) }
        _ = try await capture.waitForStderr("listening on lo")
        let sender = try await Self.sender(port: port, size: 100, interval: 0.05, count: 2400)
        defer { sender.signal(SIGKILL) }
        #expect(try await capture.wait() == 0, "\(capture.stderr)")
        sender.signal(SIGKILL)
        #expect(capture.stderr.contains("Maximum file limit reached: 3\n"))
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        try #require(names.count == 3, "\(names)")
        let user = getpwnam("tcpdump") != nil ? "tcpdump" : "nobody"
        let uid = try #require(getpwnam(user)?.pointee.pw_uid)
        var packets = 0
        for name in names {
            #expect(name.hasPrefix("g-") && name.hasSuffix(".pcap.gz"), "\(name)")
            var status = stat()
            #expect(stat(scratch.path(name), &status) == 0 && status.st_uid == uid, "\(name) written and compressed as \(user)")
            let unzipped = try await run(try tool("gzip"), ["-dk", scratch.path(name)])
            #expect(unzipped.status == 0, "\(unzipped.stderr)")
            packets += try await Self.expectReadable(scratch.path(String(name.dropLast(3))))
        }
        #expect(packets > 0)
        // The names are the epoch seconds each file began: at least 2 s apart.
        let starts = names.compactMap { Int($0.dropFirst(2).prefix { $0.isNumber }) }
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $1 - $0 >= 2 }, "\(starts)")
    }

    /// `-C 1 -W 2`: a ring of two files, NAME0 and NAME1, each more than 1,000,000 bytes by less
    /// than one packet when closed, each readable on its own.
    @Test(.enabled(if: geteuid() == 0, "live capture needs root"))
    func sizeRotationWithCountIsARingOfTwo() async throws {
        let scratch = try openScratch()
        let port = 45_000 + Int(getpid() % 5000)
        let capture = try await Child(
            try sockctlPath(), ["capture", "-i", "lo", "-C", "1", "-W", "2", "-c", "3000", "-w", scratch.path("ring.pcap"), "udp port \(port)"],
            name: "capture")
        defer { capture.signal(SIGKILL) }
        _ = try await capture.waitForStderr("listening on lo")
        let sender = try await Self.sender(port: port, size: 1200, interval: 0.0005, count: 200_000)
        defer { sender.signal(SIGKILL) }
        #expect(try await capture.wait() == 0, "\(capture.stderr)")
        sender.signal(SIGKILL)
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(names == ["ring.pcap0", "ring.pcap1"])
        var packets = 0
        for name in names {
            packets += try await Self.expectReadable(scratch.path(name))
        }
        // 3000 packets of 1258 bytes in files of about 795: written 0, 1, 0, 1; the ring keeps
        // the last two.
        #expect(packets < 3000 && packets > 1000)
        let sizes = try names.map { try FileManager.default.attributesOfItem(atPath: scratch.path($0))[.size] as? Int ?? 0 }
        #expect(sizes[0] > 1_000_000 && sizes[0] < 1_000_000 + 1300, "ring.pcap0 was closed full: \(sizes)")
    }

    @Test func listsInterfacesAsTcpdumpDoes() async throws {
        let ours = try await run(try sockctlPath(), ["capture", "-D"])
        let theirs = try await run(try tool("tcpdump"), ["-D"])
        #expect(ours.status == 0)
        #expect(!ours.stdout.isEmpty && ours.stdout == theirs.stdout)
    }

    @Test(arguments: [
        (["-C", "0", "-w", "x"], "invalid file size 0 for -C"),
        (["-C", "9223372036855", "-w", "x"], "file size 9223372036855 for -C is too large"),
        (["-G=-1", "-w", "x"], "invalid number of seconds -1 for -G"),
        (["-W", "0", "-C", "1", "-w", "x"], "invalid number of output files 0 for -W"),
        (["-C", "1"], "-C and -G need -w"),
        (["-W", "2", "-w", "x"], "-W needs -C or -G"),
        (["-z", "gzip", "-w", "x"], "-z needs -C or -G"),
        (["-U"], "-U needs -w"),
    ])
    func badRotationArgumentsAreUsageErrors(arguments: [String], message: String) async throws {
        let result = try await run(try sockctlPath(), ["capture", "-r", "/dev/null"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
