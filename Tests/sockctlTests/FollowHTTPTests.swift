import Foundation
import PacketDecoding
import TestSupport
import Testing

/// `capture -r FILE --follow --framing http`: each request and response of a keep-alive
/// connection as HTTP — start line, headers, body (JSON pretty-printed, de-chunked), trailers —
/// with the answer to a HEAD cut without its announced body.
@Suite("sockctl capture --follow --framing http", .hangGuard)
struct FollowHTTPTests {
    /// GET with a text answer, HEAD answered with a Content-Length and no body, GET answered with
    /// chunked JSON split across segments and chunks, with a trailer.
    static func session(_ scratch: Scratch) throws -> String {
        var capture = CraftedCapture(serverPort: 8080)
        capture.add(capture.connection.open())
        capture.add(capture.segments("GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n", from: .client), after: 1)
        capture.add(capture.segments("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nhello\n", from: .server), after: 1)
        capture.add(capture.segments("HEAD /big HTTP/1.1\r\nHost: x\r\n\r\n", from: .client), after: 1)
        capture.add(capture.segments("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", from: .server), after: 1)
        capture.add(capture.segments("GET /api HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n", from: .client), after: 1)
        capture.add(capture.segments(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n9;part=1\r\n{\"a\":1,\"b", from: .server), after: 1)
        capture.add(capture.segments("\r\n8\r\n\":[1,2]}\r\n0\r\nX-Checksum: 7\r\n\r\n", from: .server), after: 1)
        capture.add(capture.connection.close(first: .client), after: 1)
        let path = scratch.path("http.pcap")
        try capture.write(to: path)
        return path
    }

    static let golden = """
        == stream 1: 127.0.0.1.40000 > 127.0.0.1.8080 (tcp)
        [1] >> GET /index.html HTTP/1.1
          Host: x
        [1] << HTTP/1.1 200 OK
          Content-Type: text/plain
          Content-Length: 6

          hello\\n
        [1] >> HEAD /big HTTP/1.1
          Host: x
        [1] << HTTP/1.1 200 OK
          Content-Length: 1234
        [1] >> GET /api HTTP/1.1
          Host: x
          Accept: application/json
        [1] << HTTP/1.1 200 OK
          Content-Type: application/json
          Transfer-Encoding: chunked

          {
            "a": 1,
            "b": [
              1,
              2
            ]
          }
          X-Checksum: 7
        == stream 1 end: FIN

        """

    @Test func requestsAndResponsesShowAsHTTP() async throws {
        let scratch = try Scratch()
        let path = try Self.session(scratch)
        let result = try await run(try sockctlPath(), ["capture", "-r", path, "--follow", "--framing", "http"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == Self.golden)
    }

    /// Without `--framing http` the same capture shows the bytes as they came.
    @Test func withoutHTTPFramingTheBytesShowRaw() async throws {
        let scratch = try Scratch()
        let result = try await run(try sockctlPath(), ["capture", "-r", try Self.session(scratch), "--follow"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("[1] >>\nGET /index.html HTTP/1.1\r\nHost: x\r\n"))
    }
}
