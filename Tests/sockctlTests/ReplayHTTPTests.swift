import Foundation
import TestSupport
import Testing

import Glibc

/// `sockctl replay --verify` of an HTTP session recorded by `proxy --record` in front of nginx,
/// replayed against the same nginx once its Date has changed.
@Suite("sockctl replay, HTTP", .hangGuard)
struct ReplayHTTPTests {
    /// nginx's `Date` header for `url`, by `curl -sI`.
    static func date(_ url: String) async throws -> String {
        let head = try await run(try tool("curl"), ["-sI", "-m", "10", url])
        let headers = String(decoding: head.stdout, as: UTF8.self)
        return headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("date:") }.map(String.init) ?? ""
    }

    /// GET, HEAD and a gzip-chunked GET on one connection; the replay's answers differ from the
    /// recorded ones only in Date, which the default patterns leave out (and in nothing when
    /// compared de-chunked).
    @Test func httpVerifyIgnoresDate() async throws {
        let scratch = try Scratch()
        let nginx = try await Nginx.start(ProxyCommandHTTPTests.site())
        let recording = scratch.path("http.pcap")
        let proxy = try await RunningProxy(to: "http://127.0.0.1:\(nginx.port)", ["--record", recording])
        let base = "http://127.0.0.1:\(proxy.port)"
        let each = ["-s", "-m", "20", "-o", "/dev/null"]
        let fetched = try await run(try tool("curl"), each + ["\(base)/file", "--next"] + each + ["-I", "\(base)/file", "--next"]
            + each + ["--compressed", "\(base)/gz/text"])
        #expect(fetched.status == 0, "curl: \(fetched.stderr)")
        #expect(try await proxy.interrupt() == 0, "\(proxy.child.stderr)")

        // The event: nginx's Date has moved on from what it said after the recording (polled, bounded).
        let recorded = try await Self.date(nginx.url("/file"))
        var changed = false
        for _ in 0..<100 where !changed {
            try await Task.sleep(for: .milliseconds(50))
            changed = try await Self.date(nginx.url("/file")) != recorded
        }
        #expect(changed, "nginx's Date never changed from \(recorded)")

        let replayed = try await run(try sockctlPath(), ["replay", recording, "http://127.0.0.1:\(nginx.port)/", "--verify", "--topspeed"])
        #expect(replayed.status == 0, "\(String(decoding: replayed.stdout, as: UTF8.self))\(replayed.stderr)")
        #expect(replayed.stderr.contains("verify: 3 frames expected, 3 matched, 0 mismatched"), "\(replayed.stderr)")
        #expect(try await nginx.stop() == 0)
    }
}
