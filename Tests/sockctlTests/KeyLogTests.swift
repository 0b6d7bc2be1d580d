import Foundation
import TestSupport
import Testing

import Glibc

/// `--keylog FILE` and `SSLKEYLOGFILE` against real peers on loopback: openssl s_server and
/// s_client write their own key log (`-keylogfile`), and the secrets of the session must be the
/// ones sockctl wrote — the same client random, labels and values — in TLS 1.3 and 1.2, on the
/// client side (send, connect, loadtest, replay), the server side (listen) and both sides of proxy.
@Suite("TLS key log", .hangGuard)
struct KeyLogTests {
    func certs() async throws -> String { try await TestCertificates.shared.directory() }

    /// No inherited SSLKEYLOGFILE (the test runner's own) changes what a test sees.
    static let noVariable = ["SSLKEYLOGFILE": ""]

    /// The secret lines of a key log (NSS format: `LABEL <client random> <secret>`), sorted:
    /// openssl writes them in the order of the handshake, BoringSSL in its own.
    static func secrets(_ path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map(String.init).sorted()
    }

    /// Every line whole: a known label, 32 bytes of client random, a secret of 32 or 48 bytes
    /// (48 for TLS 1.2's master secret and SHA-384 suites), in lower-case hex.
    static func isWhole(_ line: Substring) -> Bool {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        let labels: Set<Substring> = [
            "CLIENT_RANDOM", "CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET",
            "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0", "EXPORTER_SECRET",
        ]
        func hex(_ text: Substring, _ counts: Set<Int>) -> Bool { counts.contains(text.count) && text.allSatisfy { $0.isHexDigit && !$0.isUppercase } }
        return fields.count == 3 && labels.contains(fields[0]) && hex(fields[1], [64]) && hex(fields[2], [64, 96])
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    /// The client side (send) against openssl s_server: the same secrets, line for line; the
    /// file created 0600.
    @Test(arguments: [[], ["-tls1_2"]])
    func sendLogsTheSecretsOpenSSLServerLogs(version: [String]) async throws {
        let scratch = try Scratch()
        let (server, port) = try await openSSLServer("server", ["-keylogfile", scratch.path("openssl.log")] + version)
        defer { server.signal(SIGKILL) }
        let ours = scratch.path("sockctl.log")
        let result = try await run(try sockctlPath(), ["send", "tls://127.0.0.1:\(port)", "--cafile", "\(try await certs())/ca.pem",
                                                       "--keylog", ours, "--responses", "0", "hello"], environment: Self.noVariable)
        #expect(result.status == 0, "\(result.stderr)")
        try await server.waitForStdout("hello")
        let expected = try Self.secrets(scratch.path("openssl.log"))
        #expect(expected.count == (version.isEmpty ? 5 : 1), "\(expected)")
        #expect(try Self.secrets(ours) == expected)
        #expect(Self.mode(ours) == 0o600)
    }

    /// The server side (listen) against openssl s_client.
    @Test(arguments: [[], ["-tls1_2"]])
    func listenLogsTheSecretsOpenSSLClientLogs(version: [String]) async throws {
        let scratch = try Scratch()
        let dir = try await certs()
        let ours = scratch.path("listen.log")
        let listener = try await Child(try sockctlPath(), ["listen", "tls://127.0.0.1:0", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key",
                                                     "--echo", "-k", "--framing", "line", "--keylog", ours],
                                 name: "listener", environment: Self.noVariable)
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        let client = try await Child(try tool("openssl"), ["s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", "\(dir)/ca.pem",
                                                       "-keylogfile", scratch.path("openssl.log"), "-quiet"] + version,
                               stdin: .pipe, name: "s_client")
        defer { client.signal(SIGKILL) }
        try client.send("echoed\n")
        try await client.waitForStdout("echoed\n")
        let expected = try Self.secrets(scratch.path("openssl.log"))
        #expect(expected.count == (version.isEmpty ? 5 : 1), "\(expected)")
        #expect(try Self.secrets(ours) == expected)
        #expect(Self.mode(ours) == 0o600)
    }

    /// proxy logs both of its sides to its one file: the client-facing TLS (openssl s_client's
    /// secrets) and the upstream TLS (openssl s_server's).
    @Test func proxyLogsBothSides() async throws {
        let scratch = try Scratch()
        let dir = try await certs()
        let (server, upstreamPort) = try await openSSLServer("server", ["-keylogfile", scratch.path("server.log")])
        defer { server.signal(SIGKILL) }
        let ours = scratch.path("proxy.log")
        let proxy = try await Child(try sockctlPath(), ["proxy", "tls://127.0.0.1:0", "tls://127.0.0.1:\(upstreamPort)",
                                                  "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key",
                                                  "--upstream-cafile", "\(dir)/ca.pem", "--upstream-servername", "localhost", "--keylog", ours],
                              name: "proxy", environment: Self.noVariable)
        defer { proxy.signal(SIGKILL) }
        let port = try await proxy.listeningPort()
        let client = try await Child(try tool("openssl"), ["s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", "\(dir)/ca.pem",
                                                       "-keylogfile", scratch.path("client.log"), "-quiet"],
                               stdin: .pipe, name: "s_client")
        defer { client.signal(SIGKILL) }
        try client.send("through\n")
        try await server.waitForStdout("through")
        let expected = (try Self.secrets(scratch.path("client.log")) + Self.secrets(scratch.path("server.log"))).sorted()
        #expect(expected.count == 10)
        #expect(try Self.secrets(ours) == expected)
    }

    /// Concurrent connections of one process (loadtest -c 8) and of two processes (listen and
    /// loadtest on the same file, each appending): every line whole, and each connection's five
    /// TLS 1.3 secrets there twice, once from each end.
    @Test func concurrentConnectionsAndProcessesAppendWholeLines() async throws {
        let scratch = try Scratch()
        let dir = try await certs()
        let shared = scratch.path("shared.log")
        try "# kept: an existing file is appended to\n".write(toFile: shared, atomically: false, encoding: .utf8)
        let listener = try await Child(try sockctlPath(), ["listen", "tls://127.0.0.1:0", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key",
                                                     "--echo", "-k", "--framing", "line", "--keylog", shared],
                                 name: "listener", environment: Self.noVariable)
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        let result = try await run(try sockctlPath(), ["loadtest", "tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "-c", "8",
                                                       "--requests", "80", "--framing", "line", "--keylog", shared], environment: Self.noVariable)
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: shared, encoding: .utf8)
        #expect(text.hasPrefix("# kept: an existing file is appended to\n"))
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n").dropFirst()
        #expect(lines.allSatisfy(Self.isWhole), "\(lines.filter { !Self.isWhole($0) })")
        let perConnection = Dictionary(grouping: lines) { (line: Substring) -> Substring in line.split(separator: " ")[1] }
        #expect(perConnection.count == 8, "\(perConnection.keys)")
        #expect(perConnection.values.allSatisfy { $0.count == 10 && Set($0).count == 5 }, "\(perConnection)")
    }

    /// replay over tls:// logs its connection's secrets: the same lines as the listening end
    /// (whose lines match openssl's in listenLogsTheSecretsOpenSSLClientLogs).
    @Test func replayLogsTheSecretsOfItsConnection() async throws {
        let scratch = try Scratch()
        let dir = try await certs()
        let plain = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k", "--framing", "line"], name: "plain")
        defer { plain.signal(SIGKILL) }
        try "ping\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let recording = scratch.path("session.pcap")
        let connect = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(try await plain.listeningPort())", "--framing", "line", "--record", recording],
                                    stdin: .file(scratch.path("input")), environment: Self.noVariable)
        #expect(connect.status == 0, "\(connect.stderr)")
        let serverLog = scratch.path("listen.log")
        let listener = try await Child(try sockctlPath(), ["listen", "tls://127.0.0.1:0", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key",
                                                     "--echo", "-k", "--framing", "line", "--keylog", serverLog],
                                 name: "listener", environment: Self.noVariable)
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        let replayLog = scratch.path("replay.log")
        let replay = try await run(try sockctlPath(), ["replay", recording, "tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--servername", "localhost",
                                                       "--framing", "line", "--topspeed", "--keylog", replayLog], environment: Self.noVariable)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(try Self.secrets(replayLog).count == 5)
        #expect(try Self.secrets(replayLog) == Self.secrets(serverLog))
    }

    /// SSLKEYLOGFILE is honoured without --keylog (said under -v), and --keylog wins over it.
    @Test func theEnvironmentVariableIsHonouredAndTheOptionWins() async throws {
        let scratch = try Scratch()
        let dir = try await certs()
        let (server, port) = try await openSSLServer("server", ["-keylogfile", scratch.path("openssl.log")])
        defer { server.signal(SIGKILL) }
        let variable = scratch.path("variable.log")
        let honoured = try await run(try sockctlPath(), ["send", "tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--responses", "0", "-v", "first"],
                                     environment: ["SSLKEYLOGFILE": variable])
        #expect(honoured.status == 0, "\(honoured.stderr)")
        #expect(honoured.stderr.contains(" TLS keys go to \(variable) (SSLKEYLOGFILE; --keylog FILE to choose another)\n"), "\(honoured.stderr)")
        try await server.waitForStdout("first")
        #expect(try Self.secrets(variable) == Self.secrets(scratch.path("openssl.log")))
        #expect(Self.mode(variable) == 0o600)

        let (second, secondPort) = try await openSSLServer("server")
        defer { second.signal(SIGKILL) }
        let option = scratch.path("option.log")
        let preferred = try await run(try sockctlPath(), ["connect", "tls://127.0.0.1:\(secondPort)", "--cafile", "\(dir)/ca.pem", "--keylog", option, "-v"],
                                      stdin: .null, environment: ["SSLKEYLOGFILE": variable])
        #expect(!preferred.stderr.contains("SSLKEYLOGFILE"), "\(preferred.stderr)")
        #expect(try Self.secrets(option).count == 5)
        #expect(try Self.secrets(variable).count == 5, "SSLKEYLOGFILE was written although --keylog was given")
    }

    /// A key log that cannot be opened is one line and exit 2, before any traffic: a symbolic
    /// link (never followed; its target untouched), a missing directory, a plain endpoint.
    @Test func anUnusableKeyLogIsRefusedBeforeAnyTraffic() async throws {
        let scratch = try Scratch()
        let (server, port) = try await openSSLServer("server")
        defer { server.signal(SIGKILL) }
        let target = scratch.path("target")
        try "untouched\n".write(toFile: target, atomically: false, encoding: .utf8)
        let link = scratch.path("link.log")
        #expect(symlink(target, link) == 0)
        let viaLink = try await run(try sockctlPath(), ["send", "tls://127.0.0.1:\(port)", "-k", "--keylog", link, "--responses", "0", "never"],
                                    environment: Self.noVariable)
        #expect(viaLink.status == 2)
        #expect(viaLink.stderr == "sockctl send: error: --keylog \(link): is a symbolic link; refusing to follow it (give the target path itself)\n", "\(viaLink.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "untouched\n")
        let viaVariable = try await run(try sockctlPath(), ["send", "tls://127.0.0.1:\(port)", "-k", "--responses", "0", "never"],
                                        environment: ["SSLKEYLOGFILE": scratch.path("no/such/dir.log")])
        #expect(viaVariable.status == 2)
        #expect(viaVariable.stderr == "sockctl send: error: SSLKEYLOGFILE \(scratch.path("no/such/dir.log")): no such directory (\(scratch.path("no/such")))\n", "\(viaVariable.stderr)")
        let plain = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--keylog", scratch.path("plain.log"), "never"], environment: Self.noVariable)
        #expect(plain.status == 2)
        #expect(plain.stderr.contains("--keylog needs a tls://, wss:// or https:// endpoint"), "\(plain.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("plain.log")))
        // s_server saw no connection: nothing was sent.
        #expect(!server.stdoutText.contains("never") && !server.stderr.contains("never"))
    }

    /// A key log whose writes fail (/dev/full: ENOSPC) is said once, on stderr, naming the file
    /// and the system's reason, and the traffic goes on: connect's bytes reach openssl s_server
    /// and loadtest's requests are all answered (s_server -rev), over the option and over
    /// SSLKEYLOGFILE. Each connection writes five secrets: every failure after the first is silent.
    @Test func aKeyLogThatCannotBeWrittenIsSaidOnceAndTheTrafficGoesOn() async throws {
        let scratch = try Scratch()
        let dir = try await certs()
        let (server, port) = try await openSSLServer("server")
        defer { server.signal(SIGKILL) }
        try "through a full key log\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let connect = try await run(try sockctlPath(), ["connect", "tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--keylog", "/dev/full"],
                                    stdin: .file(scratch.path("input")), environment: Self.noVariable)
        #expect(connect.status == 0, "\(connect.stderr)")
        #expect(connect.stderr == "sockctl connect: warning: --keylog /dev/full: no space left on device (TLS secrets are being lost; the connections go on)\n", "\(connect.stderr)")
        try await server.waitForStdout("through a full key log")

        let (reverser, reverserPort) = try await openSSLServer("server", ["-rev"])
        defer { reverser.signal(SIGKILL) }
        let load = try await run(try sockctlPath(), ["loadtest", "tls://127.0.0.1:\(reverserPort)", "--cafile", "\(dir)/ca.pem", "-c", "1",
                                                     "--requests", "5", "--framing", "line", "--message", "abc"],
                                 environment: ["SSLKEYLOGFILE": "/dev/full"])
        #expect(load.status == 0, "\(load.stderr)")
        let warnings = load.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings == ["sockctl loadtest: warning: SSLKEYLOGFILE /dev/full: no space left on device (TLS secrets are being lost; the connections go on)"], "\(load.stderr)")
        let report = String(decoding: load.stdout, as: UTF8.self) + load.stderr
        #expect(report.contains("5 "), "the five requests were answered: \(report)")
    }
}
