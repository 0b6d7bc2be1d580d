import Foundation
import TestSupport
import Testing

import Glibc

/// `send http://` against `listen http://` (and nginx): the body alone on stdout, the heads
/// with -v, --fail, --json.
@Suite(.hangGuard)
struct SendHTTPTests {
    static func listen(_ arguments: [String], scheme: String = "http") async throws -> (Child, Int) {
        let listener = try await Child(try sockctlPath(), ["listen", "\(scheme)://127.0.0.1:0", "-k"] + arguments, name: "listen")
        return (listener, try await listener.listeningPort())
    }

    static func stop(_ listener: Child) async throws {
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    @Test func theBodyAloneGoesToStdoutByteExact() async throws {
        let scratch = try Scratch()
        let data = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = scratch.path("body.bin")
        try data.write(to: URL(fileURLWithPath: file))
        let (listener, port) = try await Self.listen(["--respond", file])
        let got = try await run(try sockctlPath(), ["send", "http://127.0.0.1:\(port)/file"])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(got.stdout == data)
        try await Self.stop(listener)
        #expect(listener.stderr.contains("GET /file -> 200 (5000 bytes)"))
    }

    @Test func verboseShowsTheHeadsAsCurlDoes() async throws {
        let (listener, port) = try await Self.listen(["--echo"])
        let got = try await run(try sockctlPath(), ["send", "http://127.0.0.1:\(port)/v", "hello", "-v"])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(String(decoding: got.stdout, as: UTF8.self) == "hello")
        #expect(got.stderr.contains("> POST /v HTTP/1.1\n"), "\(got.stderr)")
        #expect(got.stderr.contains("> Host: 127.0.0.1:\(port)\n"))
        #expect(got.stderr.contains("> User-Agent: sockctl/"))
        #expect(got.stderr.contains("> Content-Length: 5\n"))
        #expect(got.stderr.contains("< HTTP/1.1 200 OK\n"), "\(got.stderr)")
        #expect(got.stderr.contains("< Content-Length: 5\n"))
        // The totals count requests and responses, not messages.
        #expect(got.stderr.contains("sent 1 request ("), "\(got.stderr)")
        #expect(got.stderr.contains("), received 1 response ("), "\(got.stderr)")
        #expect(!got.stderr.contains(" message"), "\(got.stderr)")
        // 'name:' with nothing after it sends no such header, a default one included (as curl).
        let bare = try await run(try sockctlPath(), ["send", "http://127.0.0.1:\(port)/v", "-v", "-H", "User-Agent:", "-H", "Accept:"])
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(bare.stderr.contains("> GET /v HTTP/1.1\n> Host: 127.0.0.1:\(port)\n> \n"), "\(bare.stderr)")
        #expect(!bare.stderr.contains("User-Agent") && !bare.stderr.contains("Accept"), "\(bare.stderr)")
        try await Self.stop(listener)
    }

    @Test func eachMessageIsOneRequestOnOneConnection() async throws {
        let (listener, port) = try await Self.listen(["--echo"])
        let got = try await run(try sockctlPath(), ["send", "http://127.0.0.1:\(port)/m", "one", "two", "three"])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(String(decoding: got.stdout, as: UTF8.self) == "onetwothree")
        try await Self.stop(listener)
        #expect(listener.stderr.contains("summary: 1 client, 3 requests (3 2xx)"), "\(listener.stderr)")
    }

    @Test func failExitsOneOnANon2xxStatusOnly() async throws {
        let (listener, port) = try await Self.listen(["--status", "404"])
        let plain = try await run(try sockctlPath(), ["send", "http://127.0.0.1:\(port)/missing"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let failing = try await run(try sockctlPath(), ["send", "http://127.0.0.1:\(port)/missing", "--fail"])
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("HTTP/1.1 404 Not Found"), "\(failing.stderr)")
        try await Self.stop(listener)
    }

    @Test func jsonCarriesTheStatusAndHeaders() async throws {
        let (listener, port) = try await Self.listen(["--status", "503"])
        let got = try await run(try sockctlPath(), ["send", "http://127.0.0.1:\(port)/j", "--json"])
        #expect(got.status == 0, "\(got.stderr)")
        let object = try JSONSerialization.jsonObject(with: got.stdout) as? [String: Any]
        #expect(object?["status"] as? Int == 503)
        let http = object?["http"] as? [[String: Any]]
        #expect(http?.first?["status"] as? Int == 503)
        let headers = http?.first?["headers"] as? [[String]]
        #expect(headers?.contains(["Content-Length", "0"]) == true, "\(String(describing: headers))")
        try await Self.stop(listener)
    }

    @Test func otherFramingsAndFailElsewhereAreRefused() async throws {
        let framing = try await run(try sockctlPath(), ["send", "http://127.0.0.1:9/", "--framing", "line"])
        #expect(framing.status == 2)
        #expect(framing.stderr.contains("does not apply to http://"), "\(framing.stderr)")
        let fail = try await run(try sockctlPath(), ["send", "127.0.0.1:9", "x", "--fail"])
        #expect(fail.status == 2)
        #expect(fail.stderr.contains("--fail needs an http:// or https:// endpoint"), "\(fail.stderr)")
    }

    /// https://: listen rides the TLS carrier with its TLS options; curl and send verify it.
    @Test func httpsOverTheTLSCarrier() async throws {
        let dir = try await TestCertificates.shared.directory()
        let (listener, port) = try await Self.listen(["--echo", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key"], scheme: "https")
        let curl = try await run(try tool("curl"), ["-s", "--cacert", "\(dir)/ca.pem", "--data-binary", "secret", "https://localhost:\(port)/s", "--resolve", "localhost:\(port):127.0.0.1"])
        #expect(curl.status == 0, "\(curl.stderr)")
        #expect(String(decoding: curl.stdout, as: UTF8.self) == "secret")
        let send = try await run(try sockctlPath(), ["send", "https://127.0.0.1:\(port)/s", "--cafile", "\(dir)/ca.pem", "over tls"])
        #expect(send.status == 0, "\(send.stderr)")
        #expect(String(decoding: send.stdout, as: UTF8.self) == "over tls")
        try await Self.stop(listener)
        #expect(listener.stderr.contains("listening on 127.0.0.1:\(port) (https)"), "\(listener.stderr)")
    }
}

/// `send http://` against a real nginx: Content-Length and gzip-chunked bodies, HEAD, 404.
@Suite(.hangGuard)
struct SendNginxTests {
    static let bytes: [UInt8] = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 / 7) }
    static let text: [UInt8] = Array(String(repeating: "sockctl speaks HTTP/1.1 to nginx. ", count: 2000).utf8)

    static func site() -> Nginx.Site {
        var site = Nginx.Site()
        site.file("/file", bytes)
        site.gzipDirectory("/gz/", files: ["text": text])
        return site
    }

    @Test func bodiesHeadsAnd404() async throws {
        let nginx = try await Nginx.start(Self.site())
        let body = try await run(try sockctlPath(), ["send", nginx.url("/file")])
        #expect(body.status == 0, "\(body.stderr)")
        #expect(body.stdout == Data(Self.bytes))
        let verbose = try await run(try sockctlPath(), ["send", nginx.url("/file"), "-v"])
        #expect(verbose.stderr.contains("< HTTP/1.1 200 OK\n"), "\(verbose.stderr)")
        #expect(verbose.stderr.contains("< Content-Length: 20000\n"), "\(verbose.stderr)")
        let head = try await run(try sockctlPath(), ["send", nginx.url("/file"), "-X", "HEAD"])
        #expect(head.status == 0, "\(head.stderr)")
        #expect(head.stdout.isEmpty)
        let missing = try await run(try sockctlPath(), ["send", nginx.url("/missing")])
        #expect(missing.status == 0, "\(missing.stderr)")
        let failing = try await run(try sockctlPath(), ["send", nginx.url("/missing"), "--fail"])
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("404 Not Found"), "\(failing.stderr)")
        let json = try await run(try sockctlPath(), ["send", nginx.url("/missing"), "--json"])
        let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        #expect(object?["status"] as? Int == 404)
        #expect(try await nginx.stop() == 0)
    }

    /// A gzip body comes chunked: de-chunked, its bytes are curl's raw bytes, and they inflate
    /// to what `curl --compressed` prints.
    @Test func aGzipChunkedBodyIsDechunkedByteExact() async throws {
        let nginx = try await Nginx.start(Self.site())
        let got = try await run(try sockctlPath(), ["send", nginx.url("/gz/text"), "-H", "Accept-Encoding: gzip", "-v"])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(got.stderr.contains("< Transfer-Encoding: chunked\n"), "\(got.stderr)")
        let raw = try await run(try tool("curl"), ["-s", "-H", "Accept-Encoding: gzip", nginx.url("/gz/text")])
        #expect(got.stdout == raw.stdout)
        let scratch = try Scratch()
        let file = scratch.path("body.gz")
        try got.stdout.write(to: URL(fileURLWithPath: file))
        let inflated = try await run("/bin/gzip", ["-dc", file])
        let compressed = try await run(try tool("curl"), ["-s", "--compressed", nginx.url("/gz/text")])
        #expect(inflated.stdout == compressed.stdout)
        #expect(inflated.stdout == Data(Self.text))
        #expect(try await nginx.stop() == 0)
    }
}
