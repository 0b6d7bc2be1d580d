import Foundation
import TestSupport
import Testing
@testable import PacketDecoding
import WebSocketDeflate

/// The WebSocket view inflates permessage-deflate messages (RFC 7692) with the agreement read
/// from the handshake and the window kept per direction: on a session Python websockets made
/// (scripts/captures/make-websocket-deflate.sh), and on frames built here for what cannot be
/// inflated.
@Suite(.hangGuard) struct WebSocketInflationViewTests {
    static let capture = packageRoot.appendingPathComponent("Tests/Fixtures/WebSocketDeflate/ws-deflate.pcap").path
    static let words = "WebSocket message, text, inflated 46 bytes: \"the same words, the same words, the same words\""

    static func viewLines(_ bytes: [UInt8]? = nil) throws -> [String] {
        let reader = try bytes.map { try CaptureFileReader(bytes: $0) } ?? CaptureFileReader(path: capture)
        var printer = PacketPrinter(options: PrintOptions(dump: .none, timestamps: .none, views: .webSocket))
        var out: [UInt8] = []
        while let record = try reader.next() { printer.print(record.header, record.bytes, into: &out) }
        return String(decoding: out, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("    ") }.map { String($0.dropFirst(4)) }
    }

    @Test func aRecordedCompressedSessionIsInflatedWithContextTakeoverPerDirection() throws {
        let lines = try Self.viewLines()
        let messages = lines.filter { $0.hasPrefix("WebSocket message") }
        // Connection 1 (contexts kept): three times the words each way — the second and third
        // are 6 and 4 bytes on the wire and inflate only with the first one's window —, the
        // message sent in three fragments, 64 binary bytes. Connection 2 (no context takeover):
        // the words twice each way.
        let binary = "WebSocket message, binary, inflated 64 bytes: 0x" + (0..<64).map { String(format: "%02x", $0) }.joined()
        #expect(messages == Array(repeating: Self.words, count: 6) + Array(repeating: "WebSocket message, text, inflated 18 bytes: \"fragmented message\"", count: 2)
            + [binary, binary] + Array(repeating: Self.words, count: 4), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("WebSocket text, FIN, compressed, masked, length 6: ") }, "a message that needs the window")
        #expect(lines.contains("WebSocket continuation, FIN, masked, length 1: 0x00"), "a compressed fragment is shown as bytes")
        #expect(!lines.contains { $0.contains("not inflated") }, "\(lines)")
    }

    @Test func everyBytePrefixOfTheCapturePrintsWithoutATrap() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.capture)))
        for cut in stride(from: 0, through: bytes.count, by: 1) {
            _ = try? Self.viewLines(Array(bytes[..<cut]))
        }
    }

    // MARK: What cannot be inflated

    static let helloFrame: [UInt8] = [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]  // RSV1, text, "Hello" (RFC 7692 §7.2.3.1)

    static func items(_ decoder: inout WebSocketStreamDecoder, _ bytes: [UInt8]) -> [String] {
        ProtocolViewDecoderTests.items(bytes, chunk: 3) { decoder.consume($0, emit: $1) }.map(ProtocolViewDecoderTests.text)
    }

    @Test func withTheAgreementTheRFCsHelloInflatesTwice() {
        var decoder = WebSocketStreamDecoder(payloadLimit: 64, inflation: .agreed(PerMessageDeflate(), sender: .server))
        let items = Self.items(&decoder, Self.helloFrame + [0xC1, 0x05, 0xF2, 0x00, 0x11, 0x00, 0x00])
        #expect(items.filter { $0.hasPrefix("WebSocket message") } == Array(repeating: "WebSocket message, text, inflated 5 bytes: \"Hello\"", count: 2), "\(items)")
    }

    @Test func withoutTheHandshakeOrTheAgreementItSaysSoOnce() {
        var midConnection = WebSocketStreamDecoder(payloadLimit: 64, inflation: .unknown)
        let unknown = Self.items(&midConnection, Self.helloFrame + Self.helloFrame)
        #expect(unknown.filter { $0.hasPrefix("WebSocket compressed message not inflated") } == [
            "WebSocket compressed message not inflated: the handshake was not seen (the capture starts mid-connection)",
        ])
        #expect(unknown.filter { $0.hasPrefix("WebSocket text, FIN, compressed") }.count == 2, "the frames still show")
        var notAgreed = WebSocketStreamDecoder(payloadLimit: 64)
        #expect(Self.items(&notAgreed, Self.helloFrame).last == "WebSocket compressed message not inflated: permessage-deflate was not agreed in the handshake")
        var corrupt = WebSocketStreamDecoder(payloadLimit: 64, inflation: .agreed(PerMessageDeflate(), sender: .client))
        let broken = Self.items(&corrupt, [0xC2, 0x03, 0xFF, 0xFF, 0xFF] + Self.helloFrame)
        #expect(broken.filter { $0.contains("not inflated") }.count == 1, "\(broken)")
        #expect(broken.contains { $0.hasPrefix("WebSocket compressed message not inflated: the payload does not inflate (") })
    }
}
