import Foundation
import TestSupport
import Testing

import Glibc

/// `sockctl capture` as a user runs it: live on loopback next to the real tcpdump, without
/// privileges, dropping them with -Z, following streams, JSON, and files that are not fine.
/// Live capture needs root or CAP_NET_RAW: CI runs the tests as root.
@Suite("sockctl capture", .hangGuard)
struct CaptureCommandTests {
    static let goldens = GoldenCase.directory

    /// The capture files of the test: world-writable so a process that dropped to `nobody`
    /// can write there too.
    func openScratch() throws -> Scratch {
        let scratch = try Scratch()
        chmod(scratch.url.path, 0o777)
        return scratch
    }

    /// tcpdump and sockctl capture the same four packets (handshake and the first request) of
    /// a loopback exchange at the same time; sockctl's live output is what tcpdump prints for
    /// the file sockctl wrote (`--print -w`), and the two tools saw the same packets.
    @Test(.enabled(if: geteuid() == 0, "live capture needs root"))
    func liveCaptureOnLoopbackPrintsWhatTcpdumpPrints() async throws {
        let scratch = try openScratch()
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k"], name: "listener")
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()

        let tcpdump = try await Child(try tool("tcpdump"), ["-i", "lo", "-n", "-U", "-c", "4", "-w", scratch.path("tcpdump.pcap"), "tcp port \(port)"], name: "tcpdump")
        defer { tcpdump.signal(SIGKILL) }
        let capture = try await Child(try sockctlPath(), ["capture", "-i", "lo", "--port", "\(port)", "-c", "4", "--print", "-w", scratch.path("sockctl.pcap")], name: "capture", environment: ["TZ": "UTC"])
        defer { capture.signal(SIGKILL) }
        _ = try await tcpdump.waitForStderr("listening on lo")
        _ = try await capture.waitForStderr("listening on lo")

        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "crlf", #"{"id":1,"op":"ping"}"#])
        #expect(sent.status == 0, "send failed: \(sent.stderr)")
        #expect(try await capture.wait() == 0, "capture: \(capture.stderr)")
        #expect(try await tcpdump.wait() == 0, "tcpdump: \(tcpdump.stderr)")

        // What sockctl printed live is what tcpdump prints for the packets sockctl wrote.
        let reference = try await run(try tool("env"), ["TZ=UTC", try tool("tcpdump"), "-n", "-X", "-r", scratch.path("sockctl.pcap")])
        #expect(reference.status == 0)
        if let difference = GoldenDifference(expected: reference.stdout, actual: capture.stdout) {
            Issue.record("live output differs from tcpdump -n -X -r of the same packets: \(difference)")
        }
        let lines = capture.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("\t") }
        try #require(lines.count == 4, "\(capture.stdoutText)")
        #expect(lines[0].contains(" > 127.0.0.1.\(port): Flags [S], seq "))
        #expect(lines[1].contains("127.0.0.1.\(port) > 127.0.0.1.") && lines[1].contains("Flags [S.], seq "))
        #expect(lines[2].contains("Flags [.], ack 1, win "))
        #expect(lines[3].contains("Flags [P.], seq 1:23, ack 1, win ") && lines[3].hasSuffix("length 22"))
        let ascii = try await run(try sockctlPath(), ["capture", "-r", scratch.path("sockctl.pcap"), "-A"])
        #expect(String(decoding: ascii.stdout, as: UTF8.self).hasSuffix(#"{"id":1,"op":"ping"}"# + "\n\n"))

        // Both tools saw the same packets (without timestamps: two sockets, two clock reads).
        let ours = try await run(try sockctlPath(), ["capture", "-r", scratch.path("sockctl.pcap"), "-t", "-XX"])
        let theirs = try await run(try tool("tcpdump"), ["-n", "-t", "-XX", "-r", scratch.path("tcpdump.pcap")])
        #expect(ours.status == 0 && theirs.status == 0)
        #expect(String(decoding: ours.stdout, as: UTF8.self) == String(decoding: theirs.stdout, as: UTF8.self))

        // tcpdump's banner and closing statistics, on stderr.
        let stderr = capture.stderr
        #expect(stderr.contains("listening on lo, link-type EN10MB (Ethernet), snapshot length 262144 bytes\n"))
        #expect(stderr.contains("\n4 packets captured\n"))
        #expect(stderr.contains(" packets received by filter\n"))
        #expect(stderr.contains("\n0 packets dropped by kernel\n"))
    }

    /// Without root or CAP_NET_RAW: one line naming what is needed and the setcap command.
    @Test(.enabled(if: geteuid() == 0, "needs root to become another user"))
    func withoutPrivilegesItSaysWhatIsNeeded() async throws {
        let scratch = try openScratch()
        let binary = scratch.path("sockctl")
        try FileManager.default.copyItem(atPath: try sockctlPath(), toPath: binary)
        chmod(binary, 0o755)
        let result = try await run(try tool("setpriv"), ["--reuid=65534", "--regid=65534", "--clear-groups", "--", binary, "capture", "-i", "lo", "-c", "1"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "sockctl capture: error: capture on lo needs root or the CAP_NET_RAW capability; grant it with: sudo setcap cap_net_raw,cap_net_admin=eip \(binary)\n")
    }

    /// The `Uid`, `Gid`, `Groups`, `CapPrm` and `CapEff` lines of a running process.
    static func identity(of pid: Int32) throws -> [String: String] {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        var lines: [String: String] = [:]
        for line in status.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, ["Uid", "Gid", "Groups", "CapPrm", "CapEff"].contains(String(parts[0])) else { continue }
            lines[String(parts[0])] = parts[1].split(whereSeparator: { $0 == "\t" || $0 == " " }).joined(separator: " ")
        }
        return lines
    }

    /// A live capture of one packet on lo as root, `arguments` added: its identity while it
    /// captures (after the "listening on" line), its stderr, its exit status.
    func captureOnePacket(_ arguments: [String]) async throws -> (identity: [String: String], stderr: String, status: Int32) {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--discard", "-k"], name: "listener")
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        let capture = try await Child(try sockctlPath(), ["capture", "-i", "lo", "--port", "\(port)", "-c", "1"] + arguments, name: "capture")
        defer { capture.signal(SIGKILL) }
        _ = try await capture.waitForStderr("listening on lo")
        let identity = try Self.identity(of: capture.pid)
        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--responses", "0", "x"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let status = try await capture.wait()
        return (identity, capture.stderr, status)
    }

    /// Without -Z, root is given up once the device is open, as Debian's tcpdump does: the
    /// process captures as the user `tcpdump` (or `nobody` where there is none), with no
    /// capability left, and says so in one line.
    @Test(.enabled(if: geteuid() == 0, "live capture needs root"))
    func liveCaptureDropsRootByDefault() async throws {
        let user = getpwnam("tcpdump") != nil ? "tcpdump" : "nobody"
        let account = try #require(getpwnam(user)?.pointee)
        let result = try await captureOnePacket([])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.identity["Uid"] == Array(repeating: "\(account.pw_uid)", count: 4).joined(separator: " "))
        #expect(result.identity["Gid"] == Array(repeating: "\(account.pw_gid)", count: 4).joined(separator: " "))
        #expect(result.identity["CapEff"] == "0000000000000000" && result.identity["CapPrm"] == "0000000000000000")
        let note = "sockctl capture: dropped privileges to user \(user) (-Z root keeps them)\n"
        #expect(result.stderr.hasPrefix(note + "listening on lo, "), "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "dropped privileges").count == 2)
    }

    /// `-Z root` keeps root (and says nothing about it).
    @Test(.enabled(if: geteuid() == 0, "live capture needs root"))
    func dashZRootKeepsRoot() async throws {
        let result = try await captureOnePacket(["-Z", "root"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.identity["Uid"] == "0 0 0 0")
        #expect(result.identity["CapEff"] != "0000000000000000")
        #expect(!result.stderr.contains("dropped privileges"))
    }

    /// `-Z nobody -w FILE`: the device is opened as root, the process becomes nobody, and the
    /// file is created afterwards as tcpdump 4.99 creates it — it belongs to nobody, yet may be
    /// in a directory only root can write to (tcpdump keeps CAP_DAC_OVERRIDE for that open).
    @Test(.enabled(if: geteuid() == 0, "live capture needs root"))
    func dashZDropsToTheUserBeforeWritingTheFile() async throws {
        let scratch = try Scratch()
        let directory = scratch.path("root-only")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        chmod(directory, 0o700)
        let file = directory + "/z.pcap"
        let result = try await captureOnePacket(["-Z", "nobody", "-w", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.identity["Uid"] == "65534 65534 65534 65534")
        #expect(result.stderr.hasPrefix("sockctl capture: dropped privileges to user nobody\nlistening on lo, "), "\(result.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.ownerAccountID] as? NSNumber)?.intValue == 65534)
        let read = try await run(try tool("tcpdump"), ["-n", "-r", file])
        #expect(read.status == 0)
        #expect(String(decoding: read.stdout, as: UTF8.self).contains("Flags [S], seq"))
    }

    /// `--follow --framing crlf`: each message on its own, JSON pretty-printed, in order, with
    /// the stream's 4-tuple, direction markers and how it ended.
    @Test func followPrintsEachJSONMessageOfTheStreamInOrder() async throws {
        let result = try await run(try sockctlPath(), ["capture", "-r", Self.goldens.appendingPathComponent("live-lo-tcp4.pcap").path, "--follow", "--framing", "crlf"])
        #expect(result.status == 0)
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(text.hasPrefix("== stream 1: 127.0.0.1.38534 > 127.0.0.1.6969 (tcp)\n[1] >> {\n  \"id\": 1,\n  \"op\": \"get\",\n  \"key\": \"user:1\"\n}\n[1] << {\n  \"id\": 1,\n  \"ok\": true,\n"))
        #expect(text.hasSuffix("== stream 1 end: FIN\n"))
        let requests = text.components(separatedBy: "[1] >> {").count - 1
        let replies = text.components(separatedBy: "[1] << {").count - 1
        #expect(requests == 3 && replies == 3)
        #expect(text.range(of: "\"key\": \"user:1\"")!.lowerBound < text.range(of: "\"key\": \"user:2\"")!.lowerBound)
    }

    /// Bytes the capture never saw (a snaplen of 128 on a bulk transfer) are marked, not
    /// silently skipped.
    @Test func followMarksMissingBytes() async throws {
        let result = try await run(try sockctlPath(), ["capture", "-r", Self.goldens.appendingPathComponent("live-netns-sack.pcap").path, "--follow"])
        #expect(result.status == 0)
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(text.hasPrefix("== stream 1: 10.213.1.1.37528 > 10.213.2.1.7000 (tcp)\n"))
        #expect(text.contains("[1] >> [... 1386 bytes missing ...]\n"))
        // ... and counted at the end.
        #expect(result.stderr.contains("sockctl capture: follow: ") && result.stderr.contains(" bytes missing"))
    }

    /// `--json`: one object per packet, as many as tcpdump prints lines, each parseable.
    @Test func jsonPrintsOneObjectPerPacket() async throws {
        let capture = Self.goldens.appendingPathComponent("live-lo-tcp6-rst.pcap").path
        let result = try await run(try sockctlPath(), ["capture", "-r", capture, "--json"])
        #expect(result.status == 0)
        let tcpdumpLines = try String(contentsOf: Self.goldens.appendingPathComponent("lo-tcp6-rst-S.out"), encoding: .utf8).split(separator: "\n")
        let lines = result.stdout.split(separator: 0x0A)
        #expect(lines.count == tcpdumpLines.count)
        var sawReset = false
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            #expect(object["ip"] as? Int == 6)
            #expect(object["src"] as? String == "::1")
            #expect(object["proto"] as? String == "tcp")
            if (object["flags"] as? String)?.contains("R") == true { sawReset = true }
        }
        #expect(sawReset)
    }

    /// A file cut inside a record: the whole records first, then libpcap's message, exit 1.
    @Test func cutFilePrintsItsWholeRecordsThenFails() async throws {
        let result = try await run(try sockctlPath(), ["capture", "-r", Self.goldens.appendingPathComponent("crafted-cut-file.pcap").path, "--no-dump"])
        #expect(result.status == 1)
        #expect(!result.stdout.isEmpty)
        #expect(result.stderr.hasSuffix("sockctl capture: error: truncated dump file; tried to read 101 captured bytes, only got 71\n"))
    }

    @Test(arguments: [
        (["-r", "/nonexistent/x.pcap"], 2, "sockctl capture: error: /nonexistent/x.pcap: No such file or directory"),
        (["-r", "-", "-Z", "nobody"], 2, "-Z only applies to live capture"),
        (["--framing", "crlf"], 2, "--framing needs --follow"),
        (["-XXX"], 2, "-x, -X and -A may be given at most twice"),
        (["-r", "/dev/null", "--port", "70000"], 2, "--port must be between 0 and 65535"),
        (["-i", "nosuchif0"], 2, "nosuchif0: No such device exists"),
    ] as [([String], Int32, String)])
    func badArgumentsAndFilesAreOneLineErrors(arguments: [String], status: Int32, message: String) async throws {
        let result = try await run(try sockctlPath(), ["capture"] + arguments)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count <= 2, "\(result.stderr)")
    }

    /// A file that is not a capture at all.
    @Test func notACaptureFileIsRefused() async throws {
        let scratch = try openScratch()
        try Data("hello, this is not a pcap file\n".utf8).write(to: URL(fileURLWithPath: scratch.path("bad.pcap")))
        let result = try await run(try sockctlPath(), ["capture", "-r", scratch.path("bad.pcap")])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "sockctl capture: error: unknown file format\n")
    }

    /// `--decode` adds the views' lines after tcpdump's header lines (and nothing else), and
    /// `--json` always carries them.
    @Test func decodeAddsTheViewsAndJSONCarriesThem() async throws {
        let capture = Self.goldens.appendingPathComponent("live-app-tls.pcap").path
        let plain = try await run(try sockctlPath(), ["capture", "-r", capture, "--no-dump"], environment: ["TZ": "UTC"])
        let decoded = try await run(try sockctlPath(), ["capture", "-r", capture, "--no-dump", "--decode", "tls"], environment: ["TZ": "UTC"])
        #expect(plain.status == 0 && decoded.status == 0, "\(decoded.stderr)")
        let lines = String(decoding: decoded.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.filter { !$0.hasPrefix("    ") }.joined(separator: "\n") == String(decoding: plain.stdout, as: UTF8.self),
                "without its view lines the output is tcpdump's")
        #expect(lines.contains { $0.hasPrefix("    TLS handshake ClientHello (TLSv1.0 record") && $0.hasSuffix("SNI www.example.com, ALPN [h2, http/1.1], versions [TLSv1.3]") })
        let json = try await run(try sockctlPath(), ["capture", "-r", capture, "--json"])
        #expect(json.status == 0)
        #expect(String(decoding: json.stdout, as: UTF8.self).contains(#""app":[{"proto":"tls","type":"handshake","version":"TLSv1.0","#))
    }
}
