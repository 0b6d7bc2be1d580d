import Foundation
import NIOCore
import SocketEngine
import TestSupport
import Testing

import Glibc

/// `listen --exec` / `--sh-exec` and `connect --exec` (ncat's `-e` and `-c`), on real sockets,
/// beside ncat itself where the two can be compared.
@Suite(.hangGuard) struct ExecTests {
    /// A program that prints each of its arguments as `[ARG]` on a line.
    static func argumentPrinter(in scratch: Scratch) throws -> String {
        let path = scratch.path("args")
        try "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// What one client gets from `ncat -l -e COMMAND` (or `-c`, with `flag`), over TCP.
    static func ncatServes(_ flag: String, _ command: String, input: Child.StandardInput = .null, client: [String] = ["--recv-only"]) async throws -> Data {
        let server = try await Child(try tool("ncat"), ["-v", "-l", "127.0.0.1", "0", flag, command], name: "ncat")
        _ = try await server.waitForStderr("Listening on")
        let port = try server.listeningTCPPort()
        let result = try await run(try tool("ncat"), client + ["127.0.0.1", "\(port)"], stdin: input)
        #expect(try await server.wait() == 0, "ncat: \(server.stderr)")
        return result.stdout
    }

    /// What one client (ncat, as for ncat) gets from `sockctl listen --exec COMMAND`.
    static func sockctlServes(_ flag: String, _ command: String, input: Child.StandardInput = .null, client: [String] = ["--recv-only"]) async throws -> (Data, Child) {
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", flag, command])
        let port = try await server.listeningPort()
        let result = try await run(try tool("ncat"), client + ["127.0.0.1", "\(port)"], stdin: input)
        #expect(try await server.wait() == 0, "sockctl: \(server.stderr)")
        return (result.stdout, server)
    }

    /// `--exec` splits its string into words as ncat's `-e` does: white space separates, a
    /// backslash keeps the next character, quotes are plain characters, and ncat's oddity (white
    /// space after an escaped character is skipped, the word goes on) is kept.
    @Test func execSplitsWordsAsNcat() async throws {
        let scratch = try Scratch()
        let printer = try Self.argumentPrinter(in: scratch)
        let tails = [
            "a  b\tc", #""c d" 'e f'"#, #"a\ b x\\y z\"#, #"a\  b"#, #"a\x  b c"#, #"\ a"#, #"a\\ b"#,
            "a\u{0B}b\rc\u{0C}d", "a\\\nb", "  lead",
        ]
        for tail in tails {
            let command = "\(printer) \(tail)"
            let ncat = try await Self.ncatServes("-e", command)
            let (ours, _) = try await Self.sockctlServes("--exec", command)
            #expect(String(decoding: ours, as: UTF8.self) == String(decoding: ncat, as: UTF8.self), "\(tail.debugDescription)")
        }
    }

    /// `--sh-exec` hands its line to /bin/sh -c: quotes, variables and pipes are the shell's, and
    /// the output is ncat -c's.
    @Test func shExecRunsTheLineThroughBinSh() async throws {
        let line = #"printf '%s|' "a  b" $NCAT_PROTO; echo x y | wc -w; echo "$0""#
        let ncat = try await Self.ncatServes("-c", line)
        let (ours, _) = try await Self.sockctlServes("--sh-exec", line)
        #expect(String(decoding: ours, as: UTF8.self) == "a  b|TCP|2\nsh\n")
        #expect(ours == ncat, "ncat -c gave \(String(decoding: ncat, as: UTF8.self).debugDescription)")
    }

    /// 16 MiB through `listen --exec cat` come back byte for byte to a client that sends and
    /// reads at once (socat). ncat 7.93's `-l -e cat` stalls on the same transfer after some
    /// 56 KiB (seen by hand with the same socat client: its relay blocks writing the child's
    /// stdin while the child waits for its stdout to be read), so it is not the reference here.
    @Test func sixteenMebibytesBothWays() async throws {
        let scratch = try Scratch()
        let payload = try await randomFile(scratch.path("payload"), bytes: 16 << 20)
        let socat = ["-t", "3600", "-", "TCP:127.0.0.1:PORT"]
        func client(_ port: Int) -> [String] { socat.map { $0.replacingOccurrences(of: "PORT", with: "\(port)") } }
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--exec", "cat"])
        let port = try await server.listeningPort()
        let echoed = try await run(try tool("socat"), client(port), stdin: .file(scratch.path("payload")))
        #expect(echoed.stdout.count == payload.count)
        #expect(echoed.stdout == payload)
        #expect(try await server.wait() == 0)
        #expect(server.stderr.contains("(16777216 bytes in, 16777216 bytes out)"), "\(server.stderr)")
    }

    /// The client's end of sending closes the command's stdin (wc counts and answers on the
    /// still-open way back); the command closing its stdout is an end the client sees while the
    /// command still runs and still reads.
    @Test func halfCloseGoesBothWays() async throws {
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--sh-exec", "wc -c"])
        let port = try await server.listeningPort()
        let client = try await connect("127.0.0.1:\(port)")
        try await client.send(ByteBuffer(string: "hello"))
        try await client.closeWrite()
        var answer = ""
        while let piece = try await client.read() { answer += string(piece) ?? "" }
        #expect(answer == "5\n")
        await client.close()

        // Closes its stdout, then waits for a line and writes it to stderr (sockctl's).
        let other = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--sh-exec", "echo bye; exec >&-; read x; echo \"late $x\" >&2"])
        let otherPort = try await other.listeningPort()
        let second = try await connect("127.0.0.1:\(otherPort)")
        var got = ""
        while let piece = try await second.read() { got += string(piece) ?? "" }
        #expect(got == "bye\n", "the end came after \(got.debugDescription)")
        // The command is still there, reading: what is sent now reaches it.
        try await second.send(ByteBuffer(string: "line\n"))
        _ = try await other.waitForStderr("late line")
        _ = try await other.waitForStderr("command exited with status 0")
        await second.close()
        #expect(try await other.wait() == 0)
        server.signal(SIGINT)
        #expect(try await server.wait() == 0)
    }

    /// The NCAT_* variables are those `ncat -l -e env` gives (the same names; addresses and
    /// protocol equal, the local port the listener's), with sockctl's own beside them.
    @Test(arguments: ["tcp", "udp"]) func environmentHasNcatsVariables(_ transport: String) async throws {
        func variables(_ data: Data) -> [String: String] {
            var found: [String: String] = [:]
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                guard let equals = line.firstIndex(of: "="), line.hasPrefix("NCAT_") || line.hasPrefix("SOCKCTL_") else { continue }
                found[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            return found
        }
        let udp = transport == "udp"
        // ncat's reference (the port it chose read from its sockets: it prints 0).
        let ncat = try await Child(try tool("ncat"), ["-v", "-l"] + (udp ? ["-u"] : []) + ["127.0.0.1", "0", "-e", "/usr/bin/env"], name: "ncat")
        _ = try await ncat.waitForStderr("Listening on")
        let ncatPort = udp ? try ncat.boundUDPPort() : try ncat.listeningTCPPort()
        let ncatClient = try await Child(try tool("ncat"), (udp ? ["-u"] : []) + ["127.0.0.1", "\(ncatPort)"], stdin: .pipe, name: "ncat client")
        try ncatClient.send("x\n")
        _ = try await ncatClient.waitForStdout("NCAT_PROTO=")
        // ncat's NCAT_* only: its env also shows what the tests' own environment holds (SOCKCTL_BIN).
        let reference = variables(ncatClient.stdout).filter { $0.key.hasPrefix("NCAT_") }
        ncatClient.signal(SIGKILL)
        ncat.signal(SIGKILL)

        let server = try await Child(try sockctlPath(), ["listen", "\(transport)://127.0.0.1:0", "--exec", "env"])
        let port = try await server.listeningPort()
        let client = try await Child(try sockctlPath(), ["connect", "\(transport)://127.0.0.1:\(port)"], stdin: .pipe, name: "client")
        try client.send("x\n")
        _ = try await client.waitForStdout("NCAT_PROTO=")
        let ours = variables(client.stdout)
        client.signal(SIGINT)
        server.signal(SIGINT)
        _ = try await client.wait()
        _ = try await server.wait()

        #expect(Set(ours.keys.filter { $0.hasPrefix("NCAT_") }) == Set(reference.keys), "ncat: \(reference)")
        #expect(reference["NCAT_LOCAL_PORT"] == "\(ncatPort)")
        #expect(ours["NCAT_LOCAL_PORT"] == "\(port)")
        for name in ["NCAT_REMOTE_ADDR", "NCAT_LOCAL_ADDR", "NCAT_PROTO"] {
            #expect(ours[name] == reference[name], "\(name)")
        }
        #expect(ours["NCAT_PROTO"] == (udp ? "UDP" : "TCP"))
        #expect(ours["NCAT_REMOTE_PORT"].flatMap(Int.init) != nil)
        #expect(ours["SOCKCTL_PEER_PORT"] == ours["NCAT_REMOTE_PORT"])
        #expect(ours["SOCKCTL_PEER_ADDR"] == "127.0.0.1")
        #expect(ours["SOCKCTL_LOCAL_PORT"] == "\(port)")
        #expect(ours["SOCKCTL_TRANSPORT"] == transport)
    }

    /// A command that exits at once: the client sees the end of the connection, the listener says
    /// how the command ended and goes on with the next client (-k).
    @Test func aCommandThatExitsAtOnce() async throws {
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--sh-exec", "exit 3"])
        let port = try await server.listeningPort()
        for _ in 0..<2 {
            let client = try await connect("127.0.0.1:\(port)")
            #expect(try await client.read() == nil)
            await client.close()
        }
        _ = try await server.waitForStderr("client 2: command exited with status 3")
        #expect(server.stderr.contains("client 1: command exited with status 3"))
        server.signal(SIGINT)
        #expect(try await server.wait() == 0)
    }

    /// A program that does not exist: one line, status 2, before anything listens or connects.
    @Test(arguments: ["listen", "connect"]) func aProgramThatDoesNotExist(_ command: String) async throws {
        let closed = try ClosedPort()
        let result = try await run(try sockctlPath(), [command, "127.0.0.1:\(command == "listen" ? 0 : closed.port)", "--exec", "no-such-program-sockctl -x"])
        #expect(result.status == 2)
        #expect(result.stderr == "sockctl \(command): error: --exec: no program 'no-such-program-sockctl' found on PATH\n")
        #expect(result.stdout.isEmpty)
        withExtendedLifetime(closed) {}
    }

    /// `connect --exec` returns the command's exit status (128 + N for a signal N), after the
    /// command talked to the server (ncat).
    @Test(arguments: [("exit 7", Int32(7)), ("exit 0", 0), ("kill -TERM $$", 143)]) func connectReturnsTheCommandsStatus(_ ending: String, _ status: Int32) async throws {
        let scratch = try Scratch()
        try "from the server\n".write(toFile: scratch.path("reply"), atomically: true, encoding: .utf8)
        let server = try await Child(try tool("ncat"), ["-v", "-l", "127.0.0.1", "0"], stdin: .file(scratch.path("reply")), name: "ncat")
        _ = try await server.waitForStderr("Listening on")
        let port = try server.listeningTCPPort()
        let result = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--sh-exec", "read x; echo \"got: $x\" >&2; echo to the server; \(ending)"])
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains("got: from the server"), "\(result.stderr)")
        _ = try await server.waitForStdout("to the server\n")
        server.signal(SIGKILL)
    }

    /// An unreachable server is one line and status 1, and the command is never started.
    @Test func connectToAClosedPortStartsNothing() async throws {
        let closed = try ClosedPort()
        let scratch = try Scratch()
        let result = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(closed.port)", "--sh-exec", "touch \(scratch.path("ran"))"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("ran")))
        withExtendedLifetime(closed) {}
    }

    /// UDP: each client address gets a command of its own, fed that client's datagrams; when the
    /// listener stops, each client's line counts the bytes its datagrams gave its command.
    @Test func udpRunsOneCommandPerClientAddress() async throws {
        let server = try await Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "-k", "--sh-exec", "echo \"peer $SOCKCTL_PEER_PORT\"; cat"])
        let port = try await server.listeningPort()
        let first = try await connect("udp://127.0.0.1:\(port)")
        let second = try await connect("udp://127.0.0.1:\(port)")
        for (client, word) in [(first, "one"), (second, "two"), (first, "three")] {
            try await client.send(ByteBuffer(string: word + "\n"))
        }
        func received(_ client: Connection, _ count: Int) async throws -> [String] {
            var lines: [String] = []
            while lines.count < count, let piece = try await client.read() {
                lines += (string(piece) ?? "").split(separator: "\n").map(String.init)
            }
            return lines
        }
        let firstPort = try #require(first.localAddress?.port)
        let secondPort = try #require(second.localAddress?.port)
        #expect(try await received(first, 3) == ["peer \(firstPort)", "one", "three"])
        #expect(try await received(second, 2) == ["peer \(secondPort)", "two"])
        await first.close()
        await second.close()
        server.signal(SIGINT)
        #expect(try await server.wait() == 0)
        #expect(server.stderr.contains("client 2: command "), "\(server.stderr)")
        // "one\n" and "three\n" from the first, "two\n" from the second (a killed command's
        // line used to say 0 bytes in). Which of them is client 1 is the order the listener
        // read their first datagrams in, which its sockets do not fix.
        for (address, bytes) in [(firstPort, 10), (secondPort, 4)] {
            let line = server.stderr.split(separator: "\n").first { $0.contains(" from 127.0.0.1:\(address) disconnected after ") }
            #expect(line?.contains("(\(bytes) bytes in, ") == true, "\(server.stderr)")
        }
        // Three datagrams in, and the commands' answers counted as datagrams out (they were not).
        let summary = try #require(server.stderr.split(separator: "\n").last { $0.contains("summary: ") }, "\(server.stderr)")
        #expect(summary.contains("summary: 3 datagrams in, ") && !summary.contains(" in, 0 out, "), "\(summary)")
    }

    /// TLS: the command reads and writes the plaintext.
    @Test func tlsCarriesThePlaintext() async throws {
        let certificates = try await TestCertificates.shared.directory()
        let server = try await Child(try sockctlPath(), [
            "listen", "tls://127.0.0.1:0", "--cert", "\(certificates)/server.pem", "--key", "\(certificates)/server.key", "--sh-exec", "tr a-z A-Z",
        ])
        let port = try await server.listeningPort()
        let scratch = try Scratch()
        try "secret words\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let client = try await run(try sockctlPath(), ["connect", "tls://localhost:\(port)", "--cafile", "\(certificates)/ca.pem"], stdin: .file(scratch.path("input")))
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == "SECRET WORDS\n")
        #expect(try await server.wait() == 0)
    }

    /// A Unix socket, with `connect --exec` at the other end too: two commands talk.
    @Test func unixSocketBetweenTwoCommands() async throws {
        let scratch = try Scratch()
        let path = scratch.path("s.sock")
        let server = try await Child(try sockctlPath(), ["listen", "unix:\(path)", "--exec", "tr a-z A-Z"])
        _ = try await server.waitForStderr("listening on")
        let client = try await run(try sockctlPath(), ["connect", "unix:\(path)", "--sh-exec", "echo quiet; exec >&-; read x; echo \"heard $x\" >&2"])
        #expect(client.status == 0, "\(client.stderr)")
        #expect(client.stderr.contains("heard QUIET"), "\(client.stderr)")
        #expect(try await server.wait() == 0)
    }

    /// `connect --sh-exec` over every message and secure transport, against sockctl's own echo
    /// server of that kind: the command's two lines go out (two WebSocket messages, two
    /// datagrams, TLS records) and come back as two lines of its stdin.
    @Test(arguments: ["ws", "tls", "udp"]) func connectExecTalksOverEachTransport(_ transport: String) async throws {
        let certificates = try await TestCertificates.shared.directory()
        let tls = ["--cert", "\(certificates)/server.pem", "--key", "\(certificates)/server.key"]
        let listen: [String] = switch transport {
        case "ws": ["ws://127.0.0.1:0/", "--echo", "-k"]
        case "tls": ["tls://127.0.0.1:0", "--echo", "-k"] + tls
        default: ["udp://127.0.0.1:0", "--echo"]
        }
        let server = try await Child(try sockctlPath(), ["listen"] + listen, name: "\(transport) echo")
        defer { server.signal(SIGKILL) }
        let port = try await server.listeningPort()
        let target: [String] = switch transport {
        case "ws": ["ws://127.0.0.1:\(port)/"]
        case "tls": ["tls://localhost:\(port)", "--cafile", "\(certificates)/ca.pem"]
        default: ["udp://127.0.0.1:\(port)"]
        }
        let client = try await run(try sockctlPath(), ["connect"] + target + ["--sh-exec", "echo one; echo two; read a; read b; echo \"got <$a> <$b>\" >&2"])
        #expect(client.status == 0, "\(client.stderr)")
        #expect(client.stderr.contains("got <one> <two>"), "\(client.stderr)")
    }

    /// WebSocket: each line the command writes is one message, each message one line of its stdin.
    @Test func webSocketIsOneMessagePerLine() async throws {
        let server = try await Child(try sockctlPath(), ["listen", "ws://127.0.0.1:0/", "--sh-exec", "printf 'one\\ntwo\\n'; while read x; do echo \"<$x>\"; done"])
        let port = try await server.listeningPort()
        let client = try await connect("ws://127.0.0.1:\(port)/")
        var messages: [String] = []
        for _ in 0..<2 { messages.append(string(try await client.readMessage()?.bytes) ?? "(end)") }
        try await client.send(ByteBuffer(string: "three"))
        messages.append(string(try await client.readMessage()?.bytes) ?? "(end)")
        #expect(messages == ["one", "two", "<three>"])
        await client.close()
        #expect(try await server.wait() == 0)
    }

    /// Refused with the modes that answer for themselves, --delay among them: one line naming
    /// both options (--delay alone said it needed --echo, which --exec then refused).
    @Test(arguments: [["--delay", "10ms"], ["--echo"], ["--echo", "--delay", "10ms"], ["--respond", "/nonexistent/reply"]])
    func execExcludesTheAnsweringModes(_ other: [String]) async throws {
        let result = try await run(try sockctlPath(), ["listen", "127.0.0.1:0", "--exec", "cat"] + other)
        #expect(result.status == 2)
        #expect(result.stderr == "sockctl listen: error: --exec and \(other[0]) exclude each other: the command reads and writes the connection\n")
    }

    /// 1,000 clients one after another on `listen -k --exec cat`: every command is reaped (sockctl
    /// has no child left, zombie or not) and sockctl holds as many descriptors after them as
    /// after the first.
    @Test func aThousandClientsLeaveNoChildrenAndNoDescriptors() async throws {
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--exec", "cat"])
        let port = try await server.listeningPort()
        func serve(_ index: Int) async throws {
            let client = try await connect("127.0.0.1:\(port)")
            try await client.send(ByteBuffer(string: "client \(index)\n"))
            try await client.closeWrite()
            var got = ""
            while let piece = try await client.read() { got += string(piece) ?? "" }
            await client.close()
            #expect(got == "client \(index)\n")
        }
        func descriptors() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/fd")) ?? []).count }
        func children() -> [String] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/task")) ?? []
            return tasks.flatMap { readProcFile("/proc/\(server.pid)/task/\($0)/children").split(separator: " ").map(String.init) }
        }
        try await serve(1)
        _ = try await server.waitForStderr("disconnected")
        let before = (descriptors: descriptors(), children: children())
        for index in 2...1000 { try await serve(index) }
        try await server.waitForStderr("disconnected", count: 1000)
        #expect(children() == [], "children left: \(children())")
        #expect(before.children == [])
        #expect(descriptors() == before.descriptors, "descriptors: \(before.descriptors) after the first client, \(descriptors()) after 1,000")
        #expect(!server.stderr.contains("killed"), "\(server.stderr.suffix(2000))")
        server.signal(SIGINT)
        #expect(try await server.wait() == 0)
        #expect(server.stderr.contains("summary: 1000 clients"), "\(server.stderr.suffix(500))")
    }
}
