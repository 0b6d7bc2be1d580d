import NIOCore
import Recording
import Testing
import TestSupport

/// `replay --verify` of HTTP frames: compared as messages — de-chunked bodies, the default
/// patterns leaving out Date-like header lines — and still different when they differ.
@Suite(.hangGuard) struct ReplayVerifierHTTPTests {
    static let recorded = "HTTP/1.1 200 OK\r\nDate: Sat, 28 Nov 2026 00:00:00 GMT\r\nServer: nginx/1.22.1\r\nETag: \"a-1\"\r\n"
        + "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3;x=1\r\ndef\r\n0\r\n\r\n"
    static let later = "HTTP/1.1 200 OK\r\ndate: Sat, 28 Nov 2026 00:00:07 GMT\r\nServer: nginx/1.22.1\r\nETag: \"a-2\"\r\n"
        + "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n0\r\n\r\n"

    func verify(_ received: String, http: Bool = true, defaults: Bool = true) throws -> ReplayVerifier.Mismatch? {
        let ignore = try IgnorePatterns(parsing: defaults ? IgnorePatterns.httpVolatileHeaders : [])
        var verifier = ReplayVerifier(plan: ReplayPlan(sends: [], expected: [ByteBuffer(string: Self.recorded)]), framed: true, http: http, ignore: ignore)
        verifier.receive(ByteBuffer(string: received))
        verifier.finish()
        return verifier.mismatch
    }

    @Test func otherDatesETagsAndChunksAreNotADifference() throws {
        #expect(try verify(Self.later) == nil)
        // A Content-Length answer with the same body is the same answer.
        let unchunked = "HTTP/1.1 200 OK\r\nDate: x\r\nServer: nginx/1.22.1\r\nETag: y\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nabcdef"
        #expect(try verify(unchunked) == nil)
    }

    @Test func withoutTheDefaultsOrAsBytesTheyDiffer() throws {
        #expect(try verify(Self.later, defaults: false) != nil)
        #expect(try verify(Self.later, http: false) != nil)
    }

    @Test func aDifferentBodyOrStatusIsStillAMismatch() throws {
        let body = try #require(try verify(Self.later.replacingOccurrences(of: "abcdef", with: "abcdeX")))
        #expect(body.reason.hasPrefix("differs at byte "))
        #expect(String(decoding: body.received, as: UTF8.self).hasSuffix("\r\n\r\nabcdeX"), "shown de-chunked")
        #expect(try verify(Self.later.replacingOccurrences(of: "200 OK", with: "503 Service Unavailable")) != nil)
        #expect(try verify(Self.later.replacingOccurrences(of: "text/plain", with: "text/html")) != nil)
    }
}
