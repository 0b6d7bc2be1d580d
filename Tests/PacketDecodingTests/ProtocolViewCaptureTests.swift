import Foundation
import TestSupport
import Testing
@testable import PacketDecoding

/// `capture --decode` and `--json` on captures of real servers (scripts/captures/make-live-apps.sh):
/// openssl s_server and s_client with SNI and ALPN over TLS 1.3 and 1.2, curl; python's
/// websockets echo server and client; nghttpd and curl over HTTP/2. The lines users look for are
/// there, and without `--decode` the printer prints exactly what tcpdump does (the goldens).
@Suite(.hangGuard) struct ProtocolViewCaptureTests {
    /// Every line the views printed for `capture` (the indented ones after the header lines).
    static func viewLines(_ capture: String, _ views: ProtocolViews) throws -> [String] {
        let reader = try CaptureFileReader(path: GoldenCase.directory.appendingPathComponent(capture).path)
        var printer = PacketPrinter(options: PrintOptions(dump: .none, timestamps: .none, views: views))
        var out: [UInt8] = []
        while let record = try reader.next() { printer.print(record.header, record.bytes, into: &out) }
        return String(decoding: out, as: UTF8.self).split(separator: "\n")
            .filter { $0.hasPrefix("    ") }.map { String($0.dropFirst(4)) }
    }

    @Test func tlsHandshakesShowNamesProtocolsVersionsAndCiphers() throws {
        let lines = try Self.viewLines("live-app-tls.pcap", .tls)
        #expect(lines.contains { $0.hasPrefix("TLS handshake ClientHello (TLSv1.0 record, length ") && $0.hasSuffix("): SNI www.example.com, ALPN [h2, http/1.1], versions [TLSv1.3]") })
        #expect(lines.contains { $0.hasPrefix("TLS handshake ServerHello (TLSv1.2 record, length ") && $0.hasSuffix("): version TLSv1.3, cipher TLS_AES_256_GCM_SHA384") })
        #expect(lines.contains { $0.hasSuffix("): ALPN [http/1.1], version TLSv1.2, cipher TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384") })
        #expect(lines.contains { $0.hasPrefix("TLS handshake, encrypted (TLSv1.2 record") }, "the TLS 1.2 Finished after change_cipher_spec")
        #expect(lines.contains { $0.hasPrefix("TLS alert fatal ") }, "the TLS 1.1-only client is refused")
        #expect(lines.contains { $0.hasPrefix("TLS application_data (TLSv1.2 record, length ") })
        #expect(!lines.contains { $0.hasPrefix("TLS: lost track") }, "\(lines)")
    }

    @Test func webSocketUpgradesAndFramesAreShown() throws {
        let lines = try Self.viewLines("live-app-websocket.pcap", .webSocket)
        #expect(lines.contains("WebSocket upgrade request GET /chat"))
        #expect(lines.contains("WebSocket upgrade accepted (101)"))
        #expect(lines.contains("WebSocket text, FIN, masked, length 34: \"hello from sockctl's golden corpus\""))
        #expect(lines.contains("WebSocket text, FIN, length 34: \"hello from sockctl's golden corpus\""), "the echo")
        #expect(lines.contains("WebSocket close, FIN, masked, length 2, code 1000 (normal)"))
        #expect(lines.contains { $0.hasPrefix("WebSocket text, FIN, compressed, masked, length ") }, "permessage-deflate")
        #expect(lines.contains("WebSocket ping, FIN, masked, length 6: \"ping-1\""))
    }

    @Test func http2PrefacesSettingsAndStreamsAreShown() throws {
        let lines = try Self.viewLines("live-app-h2.pcap", .http2)
        #expect(lines.filter { $0 == "HTTP/2 connection preface" }.count == 3, "three connections")
        #expect(lines.contains { $0.hasPrefix("HTTP/2 SETTINGS, stream 0, length 6: MAX_CONCURRENT_STREAMS 100") }, "the server speaks first")
        #expect(lines.contains { $0.hasPrefix("HTTP/2 HEADERS, stream 1, length ") && $0.hasSuffix(", flags END_STREAM|END_HEADERS") })
        #expect(lines.contains { $0.hasPrefix("HTTP/2 DATA, stream 1, length ") && $0.hasSuffix(", flags END_STREAM") })
        #expect(lines.contains("HTTP/2 SETTINGS, stream 0, length 0, flags ACK"))
        #expect(lines.contains { $0.hasPrefix("HTTP/2 WINDOW_UPDATE, stream 0, length 4: increment ") })
    }

    @Test func onlyTheViewsAskedForPrint() throws {
        #expect(try Self.viewLines("live-app-tls.pcap", [.webSocket, .http2]).isEmpty)
        #expect(try Self.viewLines("live-app-h2.pcap", .tls).isEmpty)
        #expect(try Self.viewLines("live-lo-tcp4.pcap", .all).isEmpty, "JSON over TCP is none of them")
    }

    @Test func jsonCarriesTheViewsInAnAppArray() throws {
        let reader = try CaptureFileReader(path: GoldenCase.directory.appendingPathComponent("live-app-tls.pcap").path)
        var writer = PacketJSONWriter()
        var out: [UInt8] = []
        while let record = try reader.next() { writer.append(record.header, record.bytes, into: &out) }
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n")
        let hello = try #require(lines.first { $0.contains("\"sni\":") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(hello.utf8)) as? [String: Any])
        let app = try #require(object["app"] as? [[String: Any]])
        #expect(app.first?["proto"] as? String == "tls")
        #expect(app.first?["messages"] as? [String] == ["ClientHello"])
        #expect(app.first?["sni"] as? String == "www.example.com")
        #expect(app.first?["alpn"] as? [String] == ["h2", "http/1.1"])
        for line in lines { _ = try JSONSerialization.jsonObject(with: Data(line.utf8)) }
    }
}

/// The HTTP/2 fixtures (Tests/Fixtures/http2, recorded by scripts/captures/make-h2c-sessions.sh):
/// every byte-prefix of each file prints without a trap through the views (the cut record is
/// refused by the reader; each prefix's records go through one printer, streams and HPACK
/// tables and all), and every prefix of each packet too.
@Suite(.hangGuard) struct HTTP2FixturePrefixTests {
    @Test(arguments: ["h2c-streams", "h2c-sequential", "h2c-table", "h2c-grpc", "h2c-grpc2", "h2c-late"])
    func everyPrefixPrints(session: String) async throws {
        let path = packageRoot.appendingPathComponent("Tests/Fixtures/http2/\(session).pcap").path
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let failure = await firstPrefixThatDoesNotPrint(bytes, name: session)
        #expect(failure == nil, "\(failure ?? "")")
    }
}
