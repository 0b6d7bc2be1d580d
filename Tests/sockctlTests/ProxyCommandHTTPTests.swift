import Foundation
import TestSupport
import Testing

import Glibc

/// `sockctl proxy --print-messages` in front of a real nginx, driven by curl: each request and
/// response shown as HTTP, HEAD answers relayed without waiting for a body they do not have.
@Suite("sockctl proxy, HTTP", .hangGuard)
struct ProxyCommandHTTPTests {
    static func site() -> Nginx.Site {
        var site = Nginx.Site()
        site.file("/file", Array("hello from nginx\n".utf8))
        site.file("/data.json", Array(#"{"a":1,"b":[1,2]}"#.utf8))
        site.gzipDirectory("/gz/", files: ["text": Array(String(repeating: "compressible line\n", count: 100).utf8)])
        return site
    }

    /// curl → proxy (an http:// upstream, so HTTP framing without --framing) → nginx, four
    /// requests on one keep-alive connection: GET, HEAD, GET of JSON, GET of a gzip-chunked body.
    @Test func printsHTTPMessages() async throws {
        let nginx = try await Nginx.start(Self.site())
        let proxy = try await RunningProxy(to: "http://127.0.0.1:\(nginx.port)", ["--print-messages"])
        let base = "http://127.0.0.1:\(proxy.port)"
        let each = ["-s", "-m", "20", "-o", "/dev/null"]
        let fetched = try await run(try tool("curl"), each + ["\(base)/file", "--next"] + each + ["-I", "\(base)/file", "--next"]
            + each + ["\(base)/data.json", "--next"] + each + ["--compressed", "\(base)/gz/text"])
        #expect(fetched.status == 0, "curl: \(fetched.stderr)")
        try await proxy.child.waitForStdout("  Content-Encoding: gzip\n")
        #expect(try await proxy.interrupt() == 0)
        #expect(try await nginx.stop() == 0)
        let shown = proxy.child.stdoutText.replacing(#/[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} /#, with: "")
        #expect(shown.contains("client 1 > GET /file HTTP/1.1\n  Host: 127.0.0.1:\(proxy.port)\n  User-Agent: curl/"), "\(shown)")
        #expect(shown.contains("client 1 > HEAD /file HTTP/1.1\n"), "\(shown)")
        #expect(shown.contains("client 1 > GET /gz/text HTTP/1.1\n"), "\(shown)")
        #expect(shown.components(separatedBy: "client 1 < HTTP/1.1 200 OK\n  Server: nginx/").count == 5, "four answers: \(shown)")
        #expect(shown.contains("  Content-Length: 17\n"), "\(shown)")
        #expect(shown.contains("\n\n  hello from nginx\\n\n"), "the text body after an empty line: \(shown)")
        #expect(shown.contains("\n\n  {\n    \"a\": 1,\n    \"b\": [\n      1,\n      2\n    ]\n  }\n"), "JSON pretty-printed: \(shown)")
        #expect(shown.contains("  Transfer-Encoding: chunked\n"), "\(shown)")
        #expect(shown.contains(" bytes\n\t0x0000:  1f8b"), "the gzip body de-chunked, as a hex dump: \(shown)")
        #expect(!shown.contains("client 2"), "one keep-alive connection: \(shown)")
    }
}
