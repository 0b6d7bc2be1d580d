import NIOCore
import Recording
import SocketEngine
import Testing
import TestSupport

/// How one HTTP message is shown by `capture --follow --framing http` and `proxy --print-messages`.
@Suite(.hangGuard) struct MessageRendererHTTPTests {
    func rendered(_ bytes: [UInt8], framing: Framing? = .http) -> String {
        var out: [UInt8] = []
        MessageRenderer.append(ByteBuffer(bytes: bytes), framing: framing, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func rendered(_ text: String, framing: Framing? = .http) -> String { rendered(Array(text.utf8), framing: framing) }

    @Test func startLineHeadersBodyAndTrailers() {
        let text = rendered("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n[1,2\r\n1\r\n]\r\n0\r\nX-Sum: 3\r\n\r\n")
        #expect(text == " HTTP/1.1 200 OK\n  Content-Type: application/json\n  Transfer-Encoding: chunked\n\n  [\n    1,\n    2\n  ]\n  X-Sum: 3\n")
    }

    @Test func aMessageWithoutBodyIsItsHeadOnly() {
        #expect(rendered("GET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\n") == " GET /a?b=1 HTTP/1.1\n  Host: x\n")
    }

    @Test func aBinaryBodyIsADumpAndControlsInFieldsAreEscaped() {
        let text = rendered(Array("HTTP/1.1 200 OK\r\nX: a".utf8) + [0xC2, 0x85, 0xC2, 0x9B] + Array("b\r\nContent-Length: 3\r\n\r\n".utf8) + [0, 1, 0xFF])
        #expect(text.hasPrefix(" HTTP/1.1 200 OK\n  X: a\\x85\\x9bb\n  Content-Length: 3\n\n  3 bytes\n\t0x0000:  0001 ff"), "\(text)")
    }

    /// Bytes that are not one HTTP message (a framing error's rest, a cut message) show as any message.
    @Test func whatIsNotHTTPShowsAsToday() {
        #expect(rendered("not http at all") == rendered("not http at all", framing: nil))
        #expect(rendered("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc") == " HTTP/1.1 200 OK\\r\\nContent-Length: 9\\r\\n\\r\\nabc\n")
        #expect(rendered("GET / HTTP/1.1\r\nHost: x\r\n\r\n", framing: .crlf) == " GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n\n")
    }
}
