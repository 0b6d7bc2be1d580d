import SocketEngine
import TestSupport
import Testing

@testable import sockctl

/// `-H` and `-X` as the option groups parse and check them: which headers sockctl sets itself
/// depends on where they go, and the method follows curl's default. (The commands' refusals, one
/// line each, are in BadInputTests.)
@Suite("header and method options", .hangGuard)
struct HeaderOptionsTests {
    @Test func headersKeepTheirOrderAndTrimTheValue() throws {
        let options = try HeaderOptions.parse(["-H", "Authorization: Bearer T", "--header", "X-Trace:\t 7 ", "-H", "Accept:"])
        let headers = try options.httpRequestHeaders()
        #expect(headers.map(\.name) == ["Authorization", "X-Trace", "Accept"])
        #expect(headers.map(\.value) == ["Bearer T", "7", ""])
    }

    @Test(arguments: [
        (HeaderUse.httpRequest, "content-length: 3", "invalid --header 'content-length: 3': 'content-length' is set by sockctl from the body it sends"),
        (.httpResponse, "Transfer-Encoding: chunked", "invalid --header 'Transfer-Encoding: chunked': 'Transfer-Encoding' is set by sockctl: it sends every body with a Content-Length"),
        (.webSocketHandshake, "Connection: close", "invalid --header 'Connection: close': 'Connection' is set by the WebSocket handshake itself"),
    ])
    func aHeaderSockctlSetsThereIsRefusedSayingWhy(use: HeaderUse, header: String, message: String) throws {
        let field = try HeaderField(parsing: header)
        #expect(throws: UsageError.self) { try [field].checked(for: use) }
        do {
            _ = try [field].checked(for: use)
        } catch let error as UsageError {
            #expect(error.message == message)
        }
    }

    @Test func whatOneUseReservesAnotherTakes() throws {
        // Connection is the handshake's own, but an HTTP request may ask for a close; and
        // Content-Length is HTTP's own, meaningless to a WebSocket handshake (which has no body).
        let connection = try HeaderField(parsing: "Connection: close")
        #expect(try [connection].checked(for: .httpRequest).first?.value == "close")
        let length = try HeaderField(parsing: "Content-Length: 0")
        #expect(try [length].checked(for: .webSocketHandshake).first?.name == "Content-Length")
    }

    @Test func originIsTheWebSocketHandshakes() throws {
        let options = try HeaderOptions.parse(["--origin", "http://app.example"])
        #expect(throws: UsageError.self) { try options.httpRequestHeaders() }
        var webSocket = WebSocketOptions()
        try options.apply(to: &webSocket)
        #expect(webSocket.origin == "http://app.example")
    }

    @Test func theMethodIsCurlsDefaultUnlessGiven() throws {
        #expect(try HTTPRequestOptions.parse([]).method(hasBody: false) == "GET")
        #expect(try HTTPRequestOptions.parse([]).method(hasBody: true) == "POST")
        #expect(try HTTPRequestOptions.parse(["-X", "PUT"]).method(hasBody: false) == "PUT")
        #expect(try HTTPRequestOptions.parse(["--method", "PURGE"]).method(hasBody: true) == "PURGE")
        #expect(throws: (any Error).self) { try HTTPRequestOptions.parse(["-X", "GE T"]) }
        #expect(throws: (any Error).self) { try HTTPRequestOptions.parse(["-X", ""]) }
    }
}
