import Foundation
import Synchronization
import TestSupport
import Testing

import Glibc

/// TLS against real peers on loopback: `openssl s_server` / `s_client` and `ncat --ssl`, with
/// certificates made at test time by `scripts/make-test-certs.sh` (the openssl CLI): a CA, a
/// server certificate for localhost/127.0.0.1/::1, an expired one, one for another host, a
/// self-signed one and a client certificate.
@Suite("TLS", .hangGuard)
struct TLSCommandTests {
    func certs() async throws -> String { try await TestCertificates.shared.directory() }

    func send(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try await run(try sockctlPath(), ["send"] + arguments)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    @Test func aServerSignedByTheGivenCAIsVerifiedAndDescribed() async throws {
        let (server, port) = try await openSSLServer("server")
        defer { server.signal(SIGKILL) }
        let result = try await send(["tls://127.0.0.1:\(port)", "--cafile", "\(try await certs())/ca.pem", "--responses", "0", "-v", "hello"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("TLS: TLSv1.3, TLS_"), "\(result.stderr)")
        #expect(result.stderr.contains("peer CN=localhost, verified (chain and host name)"))
        try await server.waitForStdout("hello")
    }

    @Test(arguments: [
        ("selfsigned", [] as [String], "self-signed certificate (subject CN=localhost): trust it with --cafile, or skip verification with --insecure"),
        ("server", [] as [String], "certificate signed by an unknown CA (issuer CN=sockctl test CA): give that CA with --cafile"),
        ("expired", ["--cafile"], "certificate expired on 2020-01-02 00:00:00 UTC (subject CN=localhost)"),
        ("wronghost", ["--cafile"], "certificate is not valid for 127.0.0.1 (it names wrong.example)"),
    ])
    func defaultVerificationRefusesWithTheReason(certificate: String, options: [String], reason: String) async throws {
        let (server, port) = try await openSSLServer(certificate)
        defer { server.signal(SIGKILL) }
        let extra = options.isEmpty ? [] : [options[0], "\(try await certs())/ca.pem"]
        let result = try await send(["tls://127.0.0.1:\(port)", "--responses", "0", "hello"] + extra)
        #expect(result.status == 1)
        #expect(result.stderr == "sockctl send: error: TLS handshake failed: \(reason)\n", "\(result.stderr)")
        // send --json says the same, flags and all.
        let json = try await send(["tls://127.0.0.1:\(port)", "--responses", "0", "--json", "hello"] + extra)
        #expect(json.stdout.contains(#""message":"TLS handshake failed: \#(reason)""#), "\(json.stdout)")
    }

    /// loadtest's report gives the first refusal of each kind as send words it, flags and all.
    @Test func loadtestReportsTheRefusalWithItsRemedy() async throws {
        let (server, port) = try await openSSLServer("selfsigned")
        defer { server.signal(SIGKILL) }
        let result = try await run(try sockctlPath(), ["loadtest", "tls://127.0.0.1:\(port)", "-c", "1", "--requests", "1"])
        let report = String(decoding: result.stdout, as: UTF8.self)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(report.contains("\n            tls: TLS handshake failed: self-signed certificate (subject CN=localhost): trust it with --cafile, or skip verification with --insecure\n"), "\(report)")
    }

    /// A refused certificate is diagnosed from the handshake that refused it, against openssl
    /// s_server: the server is told to accept two connections and exit (`-naccept 2`); after the
    /// refusal a second client still gets through — had the refusal cost a second, diagnostic
    /// connection, the server would have gone and the second client been refused.
    @Test func aRefusedCertificateCostsOpenSSLOneConnection() async throws {
        let (server, port) = try await openSSLServer("selfsigned", ["-naccept", "2"])
        defer { server.signal(SIGKILL) }
        let refused = try await send(["tls://127.0.0.1:\(port)", "--responses", "0", "hello"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("TLS handshake failed: self-signed certificate (subject CN=localhost)"), "\(refused.stderr)")
        let second = try await send(["tls://127.0.0.1:\(port)", "--insecure", "--responses", "0", "second"])
        #expect(second.status == 0, "the second client was refused: the refusal cost two connections: \(second.stderr)")
        try await server.waitForStdout("second")
    }

    @Test func insecureConnectsAndSaysSo() async throws {
        let (server, port) = try await openSSLServer("selfsigned")
        defer { server.signal(SIGKILL) }
        let result = try await send(["tls://127.0.0.1:\(port)", "--insecure", "--responses", "0", "--json", "hello"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: --insecure: the server's certificate was not verified"))
        #expect(result.stdout.contains(#""verification":"not verified (--insecure)""#))
        #expect(result.stdout.contains(#""version":"TLSv1.3""#))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let timings = try #require(json["timings_ms"] as? [String: Any])
        #expect((timings["tls"] as? Double ?? 0) > 0, "the TLS handshake time is reported")
    }

    /// curl's `--pinnedpubkey` model: SHA-256 of the SubjectPublicKeyInfo, on top of normal
    /// verification. The pin is computed here with the openssl CLI, not with our code.
    @Test func aPinnedKeyMustMatch() async throws {
        let dir = try await certs()
        let pin = try await run("/bin/sh", ["-c", "openssl x509 -in \(dir)/server.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"])
        let digest = String(decoding: pin.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(digest.count == 44)
        let (server, port) = try await openSSLServer("server")
        defer { server.signal(SIGKILL) }
        let right = try await send(["tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--pin", "sha256//\(digest)", "--responses", "0", "-v", "x"])
        #expect(right.status == 0, "\(right.stderr)")
        #expect(right.stderr.contains("verified (chain and host name), pin matched"))
        let wrong = try await send(["tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--pin", "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "--responses", "0", "x"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr == "sockctl send: error: pin mismatch: the server's public key is sha256//\(digest), not one of the --pin values\n", "\(wrong.stderr)")
    }

    @Test func tlsTwelveServersAreSpokenTo() async throws {
        let (server, port) = try await openSSLServer("server", ["-tls1_2"])
        defer { server.signal(SIGKILL) }
        let result = try await send(["tls://127.0.0.1:\(port)", "--cafile", "\(try await certs())/ca.pem", "--responses", "0", "-v", "x"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("TLS: TLSv1.2, TLS_ECDHE_"), "\(result.stderr)")
    }

    /// A client certificate for a server that asks for one (openssl s_server -Verify).
    @Test func clientCertificatesForServersThatRequireThem() async throws {
        let dir = try await certs()
        let (server, port) = try await openSSLServer("server", ["-Verify", "1", "-CAfile", "\(dir)/ca.pem"])
        defer { server.signal(SIGKILL) }
        let with = try await send(["tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--cert", "\(dir)/client.pem", "--key", "\(dir)/client.key", "--responses", "0", "signed"])
        #expect(with.status == 0, "\(with.stderr)")
        try await server.waitForStdout("signed")
        #expect(server.stderr.contains("CN = sockctl client") || server.stdoutText.contains("CN = sockctl client") || server.stdoutText.contains("CN=sockctl client"))
    }

    /// `listen tls://` with --client-ca: openssl s_client with the client certificate gets the
    /// echo; sockctl without one is refused, and both ends say why.
    @Test func listenRequiresClientCertificatesWithClientCA() async throws {
        let dir = try await certs()
        let listener = try await Child(try sockctlPath(), ["listen", "tls://127.0.0.1:0", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key",
                                                     "--client-ca", "\(dir)/ca.pem", "--echo", "-k", "--framing", "line"], name: "listener")
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        // openssl s_client as a child of its own (its stdin held open until the echo is back).
        let client = try await Child(try tool("openssl"), ["s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", "\(dir)/ca.pem",
                                                       "-cert", "\(dir)/client.pem", "-key", "\(dir)/client.key", "-quiet"],
                               stdin: .pipe, name: "s_client")
        defer { client.signal(SIGKILL) }
        try client.send("mutual\n")
        try await client.waitForStdout("mutual\n")
        let refused = try await send(["tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--framing", "line", "x"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "sockctl send: error: TLS: the server requires a client certificate (--cert and --key)\n", "\(refused.stderr)")
        // Waits for the refusal (the event), then reads its words: a wording that changed fails
        // here at once rather than leaving the test waiting for a line that cannot come.
        func refusals() -> [Substring] { listener.stderr.split(separator: "\n").filter { $0.hasPrefix("sockctl listen: refused 127.0.0.1:") } }
        try await listener.waitForStderr("refused 127.0.0.1:", count: 1)
        #expect(refusals().count == 1 && refusals()[0].hasSuffix(": TLS handshake failed: the client sent no certificate (--client-ca requires one)"), "\(listener.stderr)")
        // A certificate the listener's CA did not sign: refused, and both ends say why.
        let strange = try await send(["tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--cert", "\(dir)/selfsigned.pem", "--key", "\(dir)/selfsigned.key", "--framing", "line", "x"])
        #expect(strange.status == 1)
        #expect(strange.stderr == "sockctl send: error: TLS: the server refused our client certificate (unknown ca)\n", "\(strange.stderr)")
        try await listener.waitForStderr("refused 127.0.0.1:", count: 2)
        #expect(refusals().count == 2 && refusals()[1].hasSuffix(": TLS handshake failed: the client's certificate was refused (not signed by a CA of --client-ca, expired, or not for client use)"), "\(listener.stderr)")
        let accepted = try await send(["tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--cert", "\(dir)/client.pem", "--key", "\(dir)/client.key", "--framing", "line", "ours"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout == "ours\n")
    }

    /// ncat's TLS against sockctl in both directions.
    @Test func ncatInterop() async throws {
        let dir = try await certs()
        let listener = try await Child(try sockctlPath(), ["listen", "tls://127.0.0.1:0", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key", "--echo", "--framing", "line"], name: "listener")
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        // ncat matches host names only (not IP addresses) against the certificate.
        let ncat = try await Child(try tool("ncat"), ["-4", "--ssl", "--ssl-verify", "--ssl-trustfile", "\(dir)/ca.pem", "localhost", "\(port)"],
                             stdin: .pipe, name: "ncat")
        defer { ncat.signal(SIGKILL) }
        try ncat.send("from ncat\n")
        try await ncat.waitForStdout("from ncat\n")
        ncat.closeStdin()
        #expect(try await ncat.wait() == 0, "\(ncat.stderr)")

        let ncatServer = try await Child(try tool("ncat"), ["-v", "--ssl", "--ssl-cert", "\(dir)/server.pem", "--ssl-key", "\(dir)/server.key", "-l", "127.0.0.1", "0"], name: "ncat-server")
        defer { ncatServer.signal(SIGKILL) }
        try await ncatServer.waitForStderr("Ncat: Listening on")
        let ncatPort = try ncatServer.listeningTCPPort()
        let sent = try await send(["tls://localhost:\(ncatPort)", "-4", "--cafile", "\(dir)/ca.pem", "--responses", "0", "to ncat"])
        #expect(sent.status == 0, "\(sent.stderr)")
        try await ncatServer.waitForStdout("to ncat")
    }

    /// A regular file on stdin goes through TLS whole (plain TCP sends it with sendfile, which
    /// TLS cannot use: this once crashed).
    @Test func aFileOnStdinGoesThroughTLS() async throws {
        let scratch = try Scratch()
        let dir = try await certs()
        let payload = try await randomFile(scratch.path("payload"), bytes: 10 << 20)
        let listener = try await Child(try sockctlPath(), ["listen", "tls://127.0.0.1:0", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key", "--recv-only"], name: "listener")
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        let sender = try await run(try sockctlPath(), ["connect", "tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--send-only"],
                                   stdin: .file(scratch.path("payload")))
        #expect(sender.status == 0, "\(sender.stderr)")
        #expect(try await listener.wait() == 0)
        try await listener.waitForEndOfStdout()
        #expect(listener.stdout == payload)
    }

    /// TLS options without a TLS endpoint, and bad TLS files, are usage errors (exit 2 before
    /// any connection) that name the option, the path and what is wrong with it.
    @Test(arguments: [
        (["send", "127.0.0.1:9", "--insecure", "x"], "TLS options need a tls://, wss:// or https:// endpoint"),
        (["send", "tls://127.0.0.1:9", "--cafile", "/nonexistent.pem", "x"], "--cafile /nonexistent.pem: no such file"),
        (["send", "tls://127.0.0.1:9", "--cafile", "/", "x"], "--cafile /: is a directory"),
        (["send", "tls://127.0.0.1:9", "--cafile", "@DIR/server.key", "x"], "--cafile @DIR/server.key: not a PEM certificate file"),
        (["send", "tls://127.0.0.1:9", "--cert", "@DIR/client.pem", "--key", "@DIR/client.pem", "x"], "--key @DIR/client.pem: not a PEM private key"),
        (["send", "tls://127.0.0.1:9", "--cert", "@DIR/client.pem", "--key", "@DIR/server.key", "x"],
         "--key @DIR/server.key: the key does not match the certificate (--cert @DIR/client.pem)"),
        (["send", "tls://127.0.0.1:9", "--pin", "md5//abc", "x"], "invalid pin 'md5//abc'"),
        (["send", "tls://127.0.0.1:9", "--cert", "/tmp/c.pem", "x"], "--cert needs --key"),
        (["listen", "tls://127.0.0.1:0"], "listening on tls:// needs --cert and --key"),
        (["listen", "tls://127.0.0.1:0", "--cert", "@DIR/server.pem", "--key", "@DIR/client.key"],
         "--key @DIR/client.key: the key does not match the certificate (--cert @DIR/server.pem)"),
        (["listen", "tls://127.0.0.1:0", "--cert", "@DIR/server.pem", "--key", "@DIR/server.key", "--client-ca", "/nonexistent.pem"],
         "--client-ca /nonexistent.pem: no such file"),
        (["proxy", "127.0.0.1:0", "tls://127.0.0.1:9", "--upstream-cafile", "/nonexistent.pem"], "--upstream-cafile /nonexistent.pem: no such file"),
        (["proxy", "127.0.0.1:0", "tls://127.0.0.1:9", "--upstream-cert", "@DIR/client.pem", "--upstream-key", "@DIR/server.key"],
         "--upstream-key @DIR/server.key: the key does not match the certificate (--upstream-cert @DIR/client.pem)"),
    ] as [([String], String)])
    func tlsUsageErrors(arguments: [String], message: String) async throws {
        let dir = try await certs()
        let result = try await run(try sockctlPath(), arguments.map { $0.replacingOccurrences(of: "@DIR", with: dir) })
        #expect(result.status == 2)
        #expect(result.stderr.contains(message.replacingOccurrences(of: "@DIR", with: dir)), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    /// Against a real openssl s_server that serves one connection and exits (`-naccept 1`): a
    /// missing CA file, a directory, a key for another certificate are refused with the cause,
    /// exit 2, before any connection — the server's one connection is still there for the client
    /// that gets its files right.
    @Test func tlsSetUpErrorsAreNamedBeforeOpenSSLSeesAConnection() async throws {
        let dir = try await certs()
        let (server, port) = try await openSSLServer("server", ["-naccept", "1"])
        defer { server.signal(SIGKILL) }
        let target = "tls://127.0.0.1:\(port)"
        for (options, cause) in [
            (["--cafile", "/nonexistent.pem"], "--cafile /nonexistent.pem: no such file"),
            (["--cafile", "/"], "--cafile /: is a directory"),
            (["--cafile", "\(dir)/ca.pem", "--cert", "\(dir)/client.pem", "--key", "\(dir)/server.key"],
             "--key \(dir)/server.key: the key does not match the certificate (--cert \(dir)/client.pem)"),
        ] {
            let refused = try await send([target, "--responses", "0", "x"] + options)
            #expect(refused.status == 2, "\(options): \(refused.stderr)")
            #expect(refused.stderr == "sockctl send: error: \(cause)\n", "\(options): \(refused.stderr)")
        }
        let served = try await send([target, "--cafile", "\(dir)/ca.pem", "--responses", "0", "the one connection"])
        #expect(served.status == 0, "s_server's one connection was taken: \(served.stderr)")
        try await server.waitForStdout("the one connection")
    }

    /// A file the user may not read says so (as `nobody`, the test CA readable by root only).
    @Test func anUnreadableFileIsPermissionDenied() async throws {
        let scratch = try Scratch()
        let dir = try await certs()
        let unreadable = scratch.path("ca.pem")
        try FileManager.default.copyItem(atPath: "\(dir)/ca.pem", toPath: unreadable)
        #expect(chmod(unreadable, 0o600) == 0 && chmod(scratch.path(""), 0o755) == 0)
        let result = try await run(try tool("setpriv"), ["--reuid=65534", "--regid=65534", "--clear-groups", "--",
                                                         try sockctlPath(), "send", "tls://127.0.0.1:9", "--cafile", unreadable, "x"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--cafile \(unreadable): permission denied"), "\(result.stderr)")
    }

    /// loadtest over tls://: messages are timed per round trip, the handshakes apart.
    @Test func loadtestOverTLSReportsHandshakesApart() async throws {
        let scratch = try Scratch()
        let dir = try await certs()
        let listener = try await Child(try sockctlPath(), ["listen", "tls://127.0.0.1:0", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key", "--echo", "-k", "--framing", "line"], name: "listener")
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        let json = scratch.path("tls.json")
        let result = try await run(try sockctlPath(), ["loadtest", "tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "-c", "4", "--requests", "400",
                                                       "--framing", "line", "--json", json])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        #expect((report["messages"] as? [String: Int])?["received"] == 400)
        let handshake = try #require(report["tls_handshake"] as? [String: Any])
        #expect(handshake["count"] as? Int == 4)
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("tls         4 handshakes: "))
        // A server whose certificate is refused: `tls` errors, not a hang.
        let refused = try await run(try sockctlPath(), ["loadtest", "tls://127.0.0.1:\(port)", "-c", "2", "--requests", "10", "--framing", "line", "--json", scratch.path("refused.json")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("only 0 of 2 connections could be opened"), "\(refused.stderr)")
        let errors = (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("refused.json")))) as? [String: Any])?["errors"] as? [String: Int] ?? [:]
        #expect((errors["tls"] ?? 0) >= 2, "\(errors)")
    }
}
