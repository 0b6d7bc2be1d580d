import Foundation
import TestSupport
import Testing

import Glibc

/// The test harness's nginx (``Nginx``) does what each preset says, seen by curl: the HTTP tests
/// rely on these answers, so they are checked against a client that is not sockctl.
@Suite("nginx peer", .hangGuard)
struct NginxPeerTests {
    /// curl's headers (`-D -`) and `-w` line for `arguments`; its body goes to `body` when given.
    func curl(_ arguments: [String], body: String = "/dev/null") async throws -> (status: Int32, headers: String, body: Data) {
        let result = try await run(try tool("curl"), ["-sS", "-D", "-", "-o", body] + arguments)
        let bytes = body == "/dev/null" ? Data() : try Data(contentsOf: URL(fileURLWithPath: body))
        return (result.status, String(decoding: result.stdout, as: UTF8.self) + result.stderr, bytes)
    }

    @Test func aStaticFileIsAnsweredWithItsContentLength() async throws {
        var site = Nginx.Site()
        let bytes = Array("hello from nginx\n".utf8)
        site.file("/file", bytes)
        let nginx = try await Nginx.start(site)
        let scratch = try Scratch()
        let result = try await curl([nginx.url("/file")], body: scratch.path("body"))
        #expect(result.status == 0, "\(result.headers)")
        #expect(result.headers.hasPrefix("HTTP/1.1 200 OK"), "\(result.headers)")
        #expect(result.headers.lowercased().contains("content-length: \(bytes.count)\r\n"), "\(result.headers)")
        #expect(result.body == Data(bytes))
        #expect(try await nginx.stop() == 0, "\(nginx.master.stderr)")
    }

    @Test func aGzipDirectoryAnswersGzipChunkedOnlyWhenAsked() async throws {
        var site = Nginx.Site()
        let text = Array(String(repeating: "compressible line\n", count: 200).utf8)
        site.gzipDirectory("/gz/", files: ["text": text])
        let nginx = try await Nginx.start(site)
        let scratch = try Scratch()
        let gzipped = try await curl(["--compressed", nginx.url("/gz/text")], body: scratch.path("gzipped"))
        let headers = gzipped.headers.lowercased()
        #expect(headers.contains("transfer-encoding: chunked\r\n"), "\(gzipped.headers)")
        #expect(headers.contains("content-encoding: gzip\r\n"), "\(gzipped.headers)")
        #expect(!headers.contains("content-length:"), "\(gzipped.headers)")
        #expect(gzipped.body == Data(text), "curl --compressed decodes it back")
        let plain = try await curl([nginx.url("/gz/text")], body: scratch.path("plain"))
        #expect(plain.headers.lowercased().contains("content-length: \(text.count)\r\n"), "\(plain.headers)")
        #expect(plain.body == Data(text))
    }

    @Test func pathsEndingIn5AreAnswered503() async throws {
        var site = Nginx.Site()
        site.file("/r4", Array("four".utf8))
        site.file("/r5", Array("five".utf8))
        site.serviceUnavailableForPathsEndingIn5()
        let nginx = try await Nginx.start(site)
        let result = try await run(try tool("curl"), ["-s", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
                                                      "-w", "%{http_code}\n", nginx.url("/r4"), nginx.url("/r5"), nginx.url("/r15"), nginx.url("/r51")])
        #expect(String(decoding: result.stdout, as: UTF8.self) == "200\n503\n503\n404\n")
    }

    @Test func theConnectionIsClosedAfterKeepaliveRequests() async throws {
        var site = Nginx.Site()
        site.keepaliveRequests = 2
        site.file("/file", Array("x".utf8))
        let nginx = try await Nginx.start(site)
        // One curl, five transfers, reusing its connection where it may: nginx closes it after
        // every second request, so the 1st, 3rd and 5th transfers connect anew.
        let url = nginx.url("/file")
        let result = try await run(try tool("curl"), ["-s"] + Array(repeating: ["-o", "/dev/null"], count: 5).flatMap { $0 }
                                   + ["-w", "%{num_connects}\n"] + Array(repeating: url, count: 5))
        #expect(String(decoding: result.stdout, as: UTF8.self) == "1\n0\n1\n0\n1\n", "\(result.stderr)")
        let closing = try await run(try tool("curl"), ["-s", "-D", "-", "-o", "/dev/null", "-o", "/dev/null", url, url])
        let headers = String(decoding: closing.stdout, as: UTF8.self).components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.lowercased() }
        #expect(headers.count == 2)
        #expect(headers.first?.contains("connection: keep-alive") == true, "\(headers)")
        #expect(headers.last?.contains("connection: close") == true, "\(headers)")
    }

    @Test func aSparseFileGivesA100MBBody() async throws {
        var site = Nginx.Site()
        let size = 100 << 20
        site.sparseFile("/big", size: size)
        let nginx = try await Nginx.start(site)
        let result = try await run(try tool("curl"), ["-s", "-D", "-", "-o", "/dev/null", "-w", "%{size_download}\n", nginx.url("/big")])
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(text.lowercased().contains("content-length: \(size)\r\n"), "\(text)")
        #expect(text.hasSuffix("\r\n\r\n\(size)\n"), "\(text)")
    }

    @Test func tlsServesTheTestCertificate() async throws {
        var site = Nginx.Site()
        site.tls = true
        site.file("/file", Array("secret".utf8))
        let nginx = try await Nginx.start(site)
        #expect(nginx.url("/file").hasPrefix("https://127.0.0.1:"))
        let certificates = try await TestCertificates.shared.directory()
        let result = try await run(try tool("curl"), ["-sS", "--cacert", "\(certificates)/ca.pem", nginx.url("/file")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "secret")
    }

    @Test func lettingGoKillsTheMasterAndItsWorkers() async throws {
        var site = Nginx.Site()
        site.file("/file", Array("x".utf8))
        var nginx: Nginx? = try await Nginx.start(site)
        let master = try #require(nginx?.master)
        #expect(readProcFile("/proc/\(master.pid)/task/\(master.pid)/children").split(separator: " ").count == 1)
        nginx = nil
        // The wait ends only when its stderr does, which the worker holds too: a worker left
        // running (orphaned nginx workers keep serving) would hold this wait up.
        #expect(try await master.wait() == 128 + SIGKILL)
    }
}
