import Foundation
import TestSupport
import Testing

import Glibc

/// The name a client checks in the server's certificate, on every client path: `--servername`
/// (`--upstream-servername`) alone when given, else the endpoint's host — never "the name, or
/// else the address connected to". curl is the reference; the certificates come from
/// `scripts/make-test-certs.sh` (server: `DNS:localhost, IP:127.0.0.1, IP:::1`; wildcard:
/// `DNS:*.sockctl.test`; selfsigned).
@Suite("TLS server name", .hangGuard)
struct TLSServerNameTests {
    func certs() async throws -> String { try await TestCertificates.shared.directory() }

    func sockctl(_ arguments: [String], stdin: Child.StandardInput = .null) async throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try await run(try sockctlPath(), arguments, stdin: stdin)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    /// A sockctl TLS (or wss) echo listener with the test server certificate, and its port.
    func echoListener(_ endpoint: String, certificate: String = "server", _ extra: [String] = []) async throws -> (Child, Int) {
        let dir = try await certs()
        let child = try await Child(try sockctlPath(), ["listen", endpoint, "--cert", "\(dir)/\(certificate).pem", "--key", "\(dir)/\(certificate).key", "--echo", "-k"] + extra,
                                    stdin: .pipe, name: "listen")
        return (child, try await child.listeningPort())
    }

    /// `openssl s_server -www` with each certificate; for each name, curl (`--resolve NAME:P:127.0.0.1`,
    /// so it connects to 127.0.0.1 and checks NAME) and `sockctl send tls://127.0.0.1:P
    /// --servername NAME` both accept or both refuse — and the expected one. Without a name,
    /// both check the host they were given.
    @Test(arguments: [
        ("server", "evil.example", false), ("server", "localhost", true), ("server", "LOCALHOST", true),
        ("server", nil, true), ("wildcard", nil, false),
        ("wildcard", "a.sockctl.test", true), ("wildcard", "A.Sockctl.Test", true),
        ("wildcard", "sockctl.test", false), ("wildcard", "a.b.sockctl.test", false), ("wildcard", "localhost", false),
    ] as [(String, String?, Bool)])
    func theNameCheckedIsTheOneCurlChecks(certificate: String, name: String?, valid: Bool) async throws {
        let dir = try await certs()
        let (server, port) = try await openSSLServer(certificate, ["-www"])
        defer { server.signal(SIGKILL) }
        let curlTarget = name.map { ["--resolve", "\($0):\(port):127.0.0.1", "https://\($0):\(port)/"] } ?? ["https://127.0.0.1:\(port)/"]
        let curl = try await run(try tool("curl"), ["-s", "-o", "/dev/null", "--noproxy", "*", "--cacert", "\(dir)/ca.pem"] + curlTarget)
        #expect((curl.status == 0) == valid, "curl exited \(curl.status)")
        let send = try await sockctl(["send", "tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--responses", "0", "-v", "GET / HTTP/1.0\\r\\n\\r\\n"]
                                     + (name.map { ["--servername", $0] } ?? []))
        #expect((send.status == 0) == valid, "sockctl exited \(send.status): \(send.stderr)")
        if valid {
            #expect(send.stderr.contains("verified (chain and host name)"), "\(send.stderr)")
        } else {
            let names = certificate == "server" ? "localhost, 127.0.0.1, ::1" : "*.sockctl.test"
            #expect(send.stderr.contains("error: TLS handshake failed: certificate is not valid for \(name ?? "127.0.0.1") (it names \(names))"), "\(send.stderr)")
        }
    }

    /// connect, loadtest (event loops, and `--io threads`, whose TLS layer runs in an
    /// EmbeddedChannel), replay, over tls:// and wss:// to 127.0.0.1: `--servername
    /// evil.example` is refused with the reason, `--servername localhost` is accepted.
    @Test(arguments: ["connect tls", "connect wss", "loadtest tls", "loadtest wss events", "loadtest wss threads", "replay tls"])
    func everyClientPathChecksTheServerNameAlone(path: String) async throws {
        let scratch = try Scratch()
        let dir = try await certs()
        let secureWebSocket = path.contains("wss")
        let (listener, port) = try await secureWebSocket ? echoListener("wss://127.0.0.1:0/e") : echoListener("tls://127.0.0.1:0", ["--framing", "line"])
        defer { listener.signal(SIGKILL) }
        let target = secureWebSocket ? "wss://127.0.0.1:\(port)/e" : "tls://127.0.0.1:\(port)"
        try "hello\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        var capture = CraftedCapture()
        capture.add(capture.connection.open())
        capture.add(capture.segments("hello\n", from: .client), after: 1)
        capture.add(capture.segments("hello\n", from: .server), after: 1)
        capture.add(capture.connection.close(first: .client), after: 1)
        try capture.write(to: scratch.path("hello.pcap"))

        for (name, valid) in [("evil.example", false), ("localhost", true)] {
            let tls = ["--cafile", "\(dir)/ca.pem", "--servername", name]
            let json = scratch.path("\(name).json")
            let arguments: [String] = switch path {
            case "connect tls", "connect wss": ["connect", target] + tls
            case "loadtest tls": ["loadtest", target, "-c", "1", "--requests", "3", "--framing", "line", "--json", json] + tls
            case "loadtest wss events": ["loadtest", target, "-c", "1", "--requests", "3", "--framing", "raw", "--io", "events", "--json", json] + tls
            case "loadtest wss threads": ["loadtest", target, "-c", "1", "--requests", "3", "--framing", "raw", "--io", "threads", "--json", json] + tls
            default: ["replay", scratch.path("hello.pcap"), target, "--framing", "line", "--verify"] + tls
            }
            let result = try await sockctl(arguments, stdin: .file(scratch.path("input")))
            let reason = "TLS handshake failed: certificate is not valid for evil.example (it names localhost, 127.0.0.1, ::1)"
            if valid {
                #expect(result.status == 0, "\(path) \(name): \(result.stderr)")
                if path.hasPrefix("connect") { #expect(result.stdout == "hello\n") }
            } else {
                #expect(result.status == 1, "\(path) \(name): \(result.stderr)")
                if path.hasPrefix("loadtest") {
                    let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
                    #expect((report["error_examples"] as? [String: String])?["tls"] == reason, "\(String(describing: report["error_examples"]))")
                } else {
                    #expect(result.stderr.contains(reason), "\(path): \(result.stderr)")
                }
            }
        }
    }

    /// `proxy … tls://127.0.0.1:P --upstream-servername NAME`: the upstream's certificate must
    /// carry NAME; a refusal closes the client and the log says why.
    @Test func theProxysUpstreamServerNameAloneIsChecked() async throws {
        let dir = try await certs()
        let (upstream, upstreamPort) = try await echoListener("tls://127.0.0.1:0")
        defer { upstream.signal(SIGKILL) }
        for (name, valid) in [("evil.example", false), ("localhost", true)] {
            let proxy = try await Child(try sockctlPath(), ["proxy", "127.0.0.1:0", "tls://127.0.0.1:\(upstreamPort)", "--upstream-cafile", "\(dir)/ca.pem",
                                                            "--upstream-servername", name], stdin: .pipe, name: "proxy")
            defer { proxy.signal(SIGKILL) }
            let port = try await proxy.listeningPort()
            let result = try await sockctl(["send", "127.0.0.1:\(port)", "--framing", "line", "through"])
            let log = try await proxy.waitForStderr("disconnected after")
            if valid {
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout == "through\n")
            } else {
                #expect(result.status == 1, "\(result.stderr)")
                #expect(log.contains("certificate is not valid for evil.example (it names localhost, 127.0.0.1, ::1)"), "\(log)")
            }
        }
    }

    /// A refused certificate is diagnosed from the handshake that refused it: the server sees
    /// one connection, not a second one made to look at its certificate. The listener reports a
    /// failed handshake as one refusal and numbers the clients it serves, so the next client
    /// after the refused one is client 1 — a second, diagnostic handshake would have been.
    @Test func aRefusedClientIsOneConnection() async throws {
        let (listener, port) = try await echoListener("tls://127.0.0.1:0", certificate: "selfsigned")
        defer { listener.signal(SIGKILL) }
        let refused = try await sockctl(["send", "tls://127.0.0.1:\(port)", "--responses", "0", "x"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("TLS handshake failed: self-signed certificate (subject CN=localhost)"), "\(refused.stderr)")
        let marker = try await sockctl(["send", "tls://127.0.0.1:\(port)", "--insecure", "--responses", "0", "marker"])
        #expect(marker.status == 0, "\(marker.stderr)")
        let log = try await listener.waitForStderr("(6 bytes in, 6 bytes out)")
        #expect(log.contains("client 1 from 127.0.0.1:") && !log.contains("client 2"), "\(log)")
        #expect(log.components(separatedBy: "connected from").count == 2, "\(log)")
        #expect(log.components(separatedBy: ": TLS handshake failed: ").count == 2, "one refusal: \(log)")
    }

    /// On `--io threads` (no socket loop: the TLS layer runs in an EmbeddedChannel) a refusal
    /// is named too, as on event loops.
    @Test(arguments: ["events", "threads"])
    func loadtestNamesARefusedCertificateOnBothIOPaths(io: String) async throws {
        let scratch = try Scratch()
        let (listener, port) = try await echoListener("wss://127.0.0.1:0/e", certificate: "selfsigned")
        defer { listener.signal(SIGKILL) }
        let result = try await sockctl(["loadtest", "wss://127.0.0.1:\(port)/e", "-c", "1", "--requests", "3", "--framing", "raw", "--io", io,
                                        "--json", scratch.path("r.json")])
        #expect(result.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("r.json")))) as? [String: Any])
        let example = (report["error_examples"] as? [String: String])?["tls"] ?? ""
        #expect(example.hasPrefix("TLS handshake failed: self-signed certificate (subject CN=localhost)"), "\(example)")
    }
}
