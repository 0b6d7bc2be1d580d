import Foundation
import TestSupport
import Testing

import Glibc

/// `capture --keylog` on the recorded TLS sessions (Tests/Fixtures/TLS, from
/// scripts/tls-sessions/record.sh): the decrypted bytes reach `--follow` (raw and with
/// `--framing`), `--json` and `--decode` as a plaintext connection's would; a connection that
/// cannot be decrypted says so once and the rest of the capture still prints.
@Suite("sockctl capture --keylog", .hangGuard)
struct CaptureKeyLogTests {
    static let directory = packageRoot.appendingPathComponent("Tests/Fixtures/TLS")

    func capture(_ name: String, _ arguments: [String], keylog: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        let pcap = Self.directory.appendingPathComponent("\(name).pcap").path
        let keys = Self.directory.appendingPathComponent("\(keylog ?? name).keylog").path
        let result = try await run(try sockctlPath(), ["capture", "-r", pcap, "--keylog", keys] + arguments)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    @Test func followShowsTheDecryptedTextOfBothDirections() async throws {
        let result = try await capture("tls13-aes128gcm", ["--follow"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("hello over tls13-aes128gcm"))
        #expect(lines.contains("mcg821sea-31slt revo olleh"), "the server's reversed answer")
        #expect(lines.contains { $0.hasPrefix("GET /second HTTP/1.1") })
        #expect(!result.stdout.contains("not decrypted"))
        let tls12 = try await capture("tls12-ecdhe-ecdsa-chacha20", ["--follow"])
        #expect(tls12.stdout.contains("\nhello over tls12-ecdhe-ecdsa-chacha20\n"))
    }

    @Test func framingCutsTheDecryptedBytes() async throws {
        let result = try await capture("curl-http11", ["--follow", "--framing", "http"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("[1] >> GET /one HTTP/1.1"), "\(result.stdout.prefix(3000))")
        #expect(result.stdout.contains("[2] >> GET /two HTTP/1.1"))
        #expect(result.stdout.contains("[1] << HTTP/1.0 200 ok"))
        #expect(!result.stdout.contains("framing error"))
    }

    @Test func jsonAndTheViewsCarryTheDecryptedData() async throws {
        let json = try await capture("curl-http11", ["--json"])
        #expect(json.status == 0)
        // --json carries every view: the decrypted HTTP/1.1 messages as the HTTP view's objects.
        #expect(json.stdout.contains("{\"proto\":\"http\",\"type\":\"request\",\"method\":\"GET\",\"target\":\"/one\",\"version\":\"HTTP/1.1\",\"headers\":[[\"Host\",\"127.0.0.1:"))
        #expect(json.stdout.contains("{\"proto\":\"http\",\"type\":\"response\",\"version\":\"HTTP/1.0\",\"status\":200,\"reason\":\"ok\",\"headers\":[[\"Content-type\",\"text/html\"]],\"body_framing\":\"until-close\""))
        let text = try await capture("curl-http11", ["--decode", "tls", "--no-dump"])
        #expect(text.stdout.contains("    TLS decrypted application data, length 82: GET /one HTTP/1.1\\r\\nHost: 127.0.0.1:"))
        let http = try await capture("curl-http11", ["--decode", "http", "--no-dump"])
        #expect(http.stdout.contains("    HTTP request GET /one HTTP/1.1 | Host: 127.0.0.1:"), "\(http.stdout)")
        #expect(http.stdout.contains("    HTTP response HTTP/1.0 200 ok | Content-type: text/html | body 5172 bytes (until close)\n"), "\(http.stdout)")
    }

    @Test(arguments: [
        ("mid-connection", "the handshake was not captured (capture started mid-connection)"),
        ("wrong-key", "a record failed authentication (the key log's secret is not this connection's)"),
        ("no-key", "no key in the key log for this connection's client random"),
    ])
    func aConnectionThatCannotBeDecryptedSaysSoOnce(_ name: String, _ reason: String) async throws {
        let follow = try await capture(name, ["--follow"])
        #expect(follow.status == 0, "\(follow.stderr)")
        #expect(follow.stdout.components(separatedBy: "[TLS not decrypted: \(reason)]").count == 2, "\(follow.stdout)")
        #expect(follow.stdout.contains("TLS application_data (TLSv1.2 record, length "), "the records still print")
        #expect(follow.stdout.contains("== stream 1 end: "))
        let decode = try await capture(name, ["--decode", "tls"])
        #expect(decode.stdout.components(separatedBy: "    TLS not decrypted: \(reason)\n").count == 2)
        #expect(decode.stdout.components(separatedBy: "\n").filter { $0.contains(" IP 127.0.0.1.") }.count > 10, "every packet prints")
    }

    /// `-w NAME.pcapng --keylog K` writes the key log as Decryption Secrets Blocks before the
    /// packets: tshark decrypts the file with no key log option, and `capture -r` with no
    /// `--keylog`; the same capture without `--keylog` is not decrypted.
    @Test func pcapngCarriesTheKeysBothWays() async throws {
        let scratch = try Scratch()
        let out = scratch.path("out.pcapng")
        let pcap = Self.directory.appendingPathComponent("tls12-ecdhe-rsa-aes256gcm.pcap").path
        let keys = Self.directory.appendingPathComponent("tls12-ecdhe-rsa-aes256gcm.keylog").path
        let written = try await run(try sockctlPath(), ["capture", "-r", pcap, "--keylog", keys, "-w", out])
        #expect(written.status == 0, "\(written.stderr)")
        let tshark = try await run("/usr/bin/tshark", ["-r", out, "-q", "-z", "follow,tls,raw,0"])
        let hello = Array("hello over tls12-ecdhe-rsa-aes256gcm\n".utf8).map { String(format: "%02x", $0) }.joined()
        #expect(String(decoding: tshark.stdout, as: UTF8.self).contains(hello), "tshark decrypts from the file's secrets alone")
        let follow = try await run(try sockctlPath(), ["capture", "-r", out, "--follow"])
        #expect(String(decoding: follow.stdout, as: UTF8.self).contains("\nhello over tls12-ecdhe-rsa-aes256gcm\n"))
        let plain = try await run(try sockctlPath(), ["capture", "-r", pcap, "--follow"])
        #expect(!String(decoding: plain.stdout, as: UTF8.self).contains("hello over"))
        #expect(!String(decoding: plain.stdout, as: UTF8.self).contains("not decrypted"), "no key log, no secrets: nothing said")
    }

    /// A live capture started before the key log has the connection's lines: openssl
    /// s_client appends them during its handshake, capture reads them when the records need
    /// them, and both directions' text is shown.
    @Test(.enabled(if: geteuid() == 0, "live capture needs root"))
    func aLiveCaptureReadsKeyLogLinesAppendedWhileItRuns() async throws {
        let scratch = try Scratch()
        let keylog = scratch.path("keys.log")
        #expect(FileManager.default.createFile(atPath: keylog, contents: Data()))
        let (server, port) = try await openSSLServer("server", ["-rev", "-naccept", "1"])
        defer { server.signal(SIGKILL) }
        let capture = try await Child(try sockctlPath(), ["capture", "-i", "lo", "-l", "--keylog", keylog, "--follow", "tcp", "port", "\(port)"], name: "capture")
        defer { capture.signal(SIGKILL) }
        _ = try await capture.waitForStderr("listening on")
        let client = try await Child(try tool("openssl"), ["s_client", "-connect", "127.0.0.1:\(port)", "-keylogfile", keylog, "-quiet", "-no_ign_eof"],
                                     stdin: .pipe, name: "s_client")
        defer { client.signal(SIGKILL) }
        try client.send("hello live capture\n")
        _ = try await capture.waitForStdout("\nhello live capture\n")
        _ = try await capture.waitForStdout("\nerutpac evil olleh\n")
        client.closeStdin()
        _ = try await client.wait()
        capture.signal(SIGINT)
        _ = try await capture.wait()
        #expect(!capture.stdoutText.contains("not decrypted"), "\(capture.stdoutText)")
    }

    /// A live capture whose key log cannot be read — missing, a directory, not readable by the
    /// user capture runs as — stops before it listens, with one line saying which and why
    /// (a directory used to open and then read nothing: the capture ran, decrypting nothing).
    @Test(.enabled(if: geteuid() == 0, "live capture needs root"), arguments: ["missing", "directory", "unreadable"])
    func aLiveCaptureWhoseKeyLogCannotBeReadSaysWhyInOneLine(_ kind: String) async throws {
        let scratch = try Scratch()
        var command = [try sockctlPath()]
        let path: String
        let reason: String
        switch kind {
        case "missing":
            path = scratch.path("absent.log")
            reason = "No such file or directory"
        case "directory":
            path = scratch.path("keys")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            reason = "Is a directory"
        default:
            // Root reads any file: the capture runs as nobody, the key log is root's own (0600).
            path = scratch.path("keys.log")
            #expect(FileManager.default.createFile(atPath: path, contents: Data("# keys\n".utf8), attributes: [.posixPermissions: 0o600]))
            #expect(chmod(scratch.url.path, 0o755) == 0)
            command = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command
            reason = "Permission denied"
        }
        let capture = try await Child(command[0], Array(command.dropFirst()) + ["capture", "-i", "lo", "--keylog", path, "--follow", "-c", "1", "udp", "port", "9"], name: "capture")
        defer { capture.signal(SIGKILL) }
        let said = try await capture.waitForStderr("\n")
        #expect(!said.contains("listening on"), "it captured: \(said)")
        if said.contains("listening on") { return }
        #expect(try await capture.wait() == 2)
        #expect(capture.stderr == "sockctl capture: error: --keylog \(path): \(reason)\n")
    }

    @Test func keylogNeedsAViewToDecryptFor() async throws {
        let result = try await capture("tls13-aes128gcm", [])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--keylog decrypts for --decode, --json or --follow"))
    }
}
