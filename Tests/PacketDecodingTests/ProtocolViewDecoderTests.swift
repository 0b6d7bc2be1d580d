import TestSupport
import Testing
@testable import PacketDecoding

/// The stream decoders behind `capture --decode`, on hand-made records and frames: what each
/// reports, the same whether the bytes come at once or one by one, and how each gives up.
@Suite(.hangGuard) struct ProtocolViewDecoderTests {
    /// Feeds `bytes` to a decoder in chunks of `chunk` bytes and collects the items.
    static func items(_ bytes: [UInt8], chunk: Int, _ consume: (UnsafeRawBufferPointer, (ViewItem) -> Void) -> Void) -> [ViewItem] {
        var items: [ViewItem] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            bytes[start..<end].withUnsafeBytes { consume($0) { items.append($0) } }
            start = end
        }
        return items
    }

    static func text(_ item: ViewItem) -> String {
        var out: [UInt8] = []
        item.appendText(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: TLS

    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    /// A ClientHello record: SNI, ALPN h2 and http/1.1, supported_versions GREASE, 1.3, 1.2.
    static var clientHello: [UInt8] {
        let name = Array("api.example.test".utf8)
        let sni = u16(0) + u16(name.count + 5) + u16(name.count + 3) + [0] + u16(name.count) + name
        let protocols: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)
        let alpn = u16(16) + u16(protocols.count + 2) + u16(protocols.count) + protocols
        let versions = u16(43) + u16(7) + [6, 0x3A, 0x3A, 3, 4, 3, 3]
        let extensions = sni + alpn + versions
        var hello: [UInt8] = [3, 3] + [UInt8](repeating: 7, count: 32) + [0] + u16(2) + [0x13, 0x01] + [1, 0]
        hello += u16(extensions.count) + extensions
        let handshake: [UInt8] = [1, 0] + u16(hello.count) + hello
        return [22, 3, 1] + u16(handshake.count) + handshake
    }

    @Test(arguments: [1, 7, 10_000])
    func aClientHelloShowsItsNameProtocolsAndVersionsHoweverItArrives(chunk: Int) {
        var decoder = TLSStreamDecoder()
        let items = Self.items(Self.clientHello, chunk: chunk) { decoder.consume($0, emit: $1) }
        #expect(items.map(Self.text) == ["TLS handshake ClientHello (TLSv1.0 record, length \(Self.clientHello.count - 5)): SNI api.example.test, ALPN [h2, http/1.1], versions [TLSv1.3, TLSv1.2]"])
    }

    @Test func aServerHelloNamesTheChosenVersionAndCipherAndLaterRecordsAreEncrypted() {
        let extensions = Self.u16(43) + Self.u16(2) + [3, 4]
        let hello: [UInt8] = [3, 3] + [UInt8](repeating: 1, count: 32) + [0] + [0x13, 0x02] + [0] + Self.u16(extensions.count) + extensions
        let handshake: [UInt8] = [2, 0] + Self.u16(hello.count) + hello
        var stream: [UInt8] = [22, 3, 3] + Self.u16(handshake.count) + handshake
        stream += [20, 3, 3, 0, 1, 1]               // change_cipher_spec
        stream += [22, 3, 3, 0, 3, 9, 9, 9]         // an encrypted handshake record
        stream += [23, 3, 3, 0, 2, 5, 5]            // application data
        var decoder = TLSStreamDecoder()
        let items = Self.items(stream, chunk: 3) { decoder.consume($0, emit: $1) }
        #expect(items.map(Self.text) == [
            "TLS handshake ServerHello (TLSv1.2 record, length \(handshake.count)): version TLSv1.3, cipher TLS_AES_256_GCM_SHA384",
            "TLS change_cipher_spec (TLSv1.2 record, length 1)",
            "TLS handshake, encrypted (TLSv1.2 record, length 3)",
            "TLS application_data (TLSv1.2 record, length 2)",
        ])
    }

    @Test func aPlaintextAlertIsNamed() {
        var decoder = TLSStreamDecoder()
        let items = Self.items([21, 3, 3, 0, 2, 2, 70], chunk: 1) { decoder.consume($0, emit: $1) }
        #expect(items.map(Self.text) == ["TLS alert fatal protocol_version (TLSv1.2 record, length 2)"])
    }

    @Test func somethingThatIsNotARecordIsReportedOnceAndThenIgnored() {
        var decoder = TLSStreamDecoder()
        let items = Self.items(Array("GET / HTTP/1.1\r\n\r\n".utf8) + [22, 3, 3, 0, 1, 0], chunk: 4) { decoder.consume($0, emit: $1) }
        #expect(items == [.lostSync(.tls)])
        #expect(decoder.isLost)
    }

    @Test func aRecordLongerThanTLSAllowsIsNotTLS() {
        var decoder = TLSStreamDecoder()
        let items = Self.items([23, 3, 3, 0x48, 0x01], chunk: 5) { decoder.consume($0, emit: $1) }
        #expect(items == [.lostSync(.tls)])
    }

    @Test func aHandshakeMessageLongerThanItsRecordContinues() {
        var decoder = TLSStreamDecoder()
        let items = Self.items([22, 3, 3, 0, 6, 11, 0, 0x10, 0, 1, 2], chunk: 11) { decoder.consume($0, emit: $1) }
        #expect(items.map(Self.text) == ["TLS handshake Certificate (continues) (TLSv1.2 record, length 6)"])
    }

    @Test func aLongHandshakeRecordIsReadInPartAndTheNextRecordIsStillFound() {
        // A 12,000-byte Certificate: only its first 8 KiB are kept; the alert after it is read.
        let certificate: [UInt8] = [11, 0, 0x2E, 0xDC] + [UInt8](repeating: 0x30, count: 11_996)
        let stream: [UInt8] = [22, 3, 3] + Self.u16(certificate.count) + certificate + [21, 3, 3, 0, 2, 1, 0]
        var decoder = TLSStreamDecoder()
        let items = Self.items(stream, chunk: 1448) { decoder.consume($0, emit: $1) }
        #expect(items.map(Self.text) == [
            "TLS handshake Certificate (continues) (TLSv1.2 record, length 12000)",
            "TLS alert warning close_notify (TLSv1.2 record, length 2)",
        ])
    }

    // MARK: WebSocket

    static func frame(_ first: UInt8, payload: [UInt8], mask: [UInt8]?) -> [UInt8] {
        var bytes: [UInt8] = [first]
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [maskBit | 126] + u16(payload.count)
        } else {
            bytes += [maskBit | 127] + (0..<8).map { UInt8(truncatingIfNeeded: payload.count >> ((7 - $0) * 8)) }
        }
        if let mask {
            bytes += mask
            bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        } else {
            bytes += payload
        }
        return bytes
    }

    @Test(arguments: [1, 3, 1000])
    func maskedTextIsUnmaskedAndCloseCodesAreRead(chunk: Int) {
        let mask: [UInt8] = [0x11, 0x22, 0x33, 0x44]
        let stream = Self.frame(0x81, payload: Array("hello".utf8), mask: mask)
            + Self.frame(0x88, payload: [0x03, 0xE9] + Array("bye".utf8), mask: mask)
        var decoder = WebSocketStreamDecoder(payloadLimit: 64)
        let items = Self.items(stream, chunk: chunk) { decoder.consume($0, emit: $1) }
        #expect(items.map(Self.text) == [
            "WebSocket text, FIN, masked, length 5: \"hello\"",
            "WebSocket close, FIN, masked, length 5, code 1001 (going away): \"bye\"",
        ])
    }

    @Test func longFramesKeepOnlyThePayloadLimitAndTheNextFrameIsFound() {
        let big = [UInt8](repeating: 0x41, count: 70_000)
        let stream = Self.frame(0x02, payload: big, mask: nil) + Self.frame(0x80, payload: [1, 2], mask: nil)
            + Self.frame(0x89, payload: [], mask: nil)
        var decoder = WebSocketStreamDecoder(payloadLimit: 4)
        let items = Self.items(stream, chunk: 1500) { decoder.consume($0, emit: $1) }
        #expect(items.map(Self.text) == [
            "WebSocket binary, length 70000: 0x41414141...",
            "WebSocket continuation, FIN, length 2: \"\\x01\\x02\"",
            "WebSocket ping, FIN, length 0",
        ])
    }

    @Test func aLengthThatIsNotMinimalIsNotWebSocket() {
        var decoder = WebSocketStreamDecoder(payloadLimit: 8)
        let items = Self.items([0x81, 126, 0, 5, 1, 2, 3, 4, 5, 0x81, 0], chunk: 2) { decoder.consume($0, emit: $1) }
        #expect(items == [.lostSync(.webSocket)])
    }

    // MARK: HTTP/2

    static func h2Frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        [UInt8(payload.count >> 16), UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF), type, flags]
            + [UInt8(stream >> 24), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    @Test(arguments: [1, 5, 1000])
    func thePrefaceAndEachFrameAreShown(chunk: Int) {
        let settings: [UInt8] = [0, 3, 0, 0, 0, 100, 0, 4, 0, 0, 0xFF, 0xFF]
        let stream = HTTP2StreamDecoder.preface
            + Self.h2Frame(type: 4, flags: 0, stream: 0, payload: settings)
            + Self.h2Frame(type: 1, flags: 0x05, stream: 1, payload: [0x82, 0x86, 0x84])
            + Self.h2Frame(type: 8, flags: 0, stream: 0, payload: [0, 0, 0x10, 0])
            + Self.h2Frame(type: 3, flags: 0, stream: 1, payload: [0, 0, 0, 8])
            + Self.h2Frame(type: 7, flags: 0, stream: 0, payload: [0, 0, 0, 1, 0, 0, 0, 0])
            + Self.h2Frame(type: 6, flags: 1, stream: 0, payload: [1, 2, 3, 4, 5, 6, 7, 8])
        var decoder = HTTP2StreamDecoder(client: true)
        let items = Self.items(stream, chunk: chunk) { decoder.consume($0, emit: $1) }
        #expect(items.map(Self.text) == [
            "HTTP/2 connection preface",
            "HTTP/2 SETTINGS, stream 0, length 12: MAX_CONCURRENT_STREAMS 100, INITIAL_WINDOW_SIZE 65535",
            "HTTP/2 HEADERS, stream 1, length 3, flags END_STREAM|END_HEADERS",
            "HTTP/2 headers, stream 1: :method: GET, :scheme: http, :path: /",
            "HTTP/2 WINDOW_UPDATE, stream 0, length 4: increment 4096",
            "HTTP/2 RST_STREAM, stream 1, length 4: CANCEL",
            "HTTP/2 GOAWAY, stream 0, length 8: last stream 1, NO_ERROR",
            "HTTP/2 PING, stream 0, length 8, flags ACK: 0x0102030405060708",
        ])
    }

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { $0.isHexDigit })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0 }
    }

    /// RFC 7541 C.3: three requests through one dynamic table (the second and third name
    /// entries the first added) — the second split over a padded, prioritized HEADERS and a
    /// CONTINUATION, the third in a PUSH_PROMISE; then a block that is not HPACK stops the
    /// direction's decoding, said once.
    @Test(arguments: [1, 7, 1000])
    func headerBlocksGoThroughTheDirectionsTable(chunk: Int) {
        let first = Self.hex("8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d")
        let second = Self.hex("8286 84be 5808 6e6f 2d63 6163 6865")
        let third = Self.hex("8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65")
        let stream = HTTP2StreamDecoder.preface
            + Self.h2Frame(type: 1, flags: 0x05, stream: 1, payload: first)
            + Self.h2Frame(type: 1, flags: 0x28, stream: 3, payload: [2] + [0, 0, 0, 1, 16] + second.prefix(3) + [0, 0])
            + Self.h2Frame(type: 9, flags: 0x04, stream: 3, payload: Array(second.dropFirst(3)))
            + Self.h2Frame(type: 5, flags: 0x04, stream: 3, payload: [0, 0, 0, 4] + third)
            + Self.h2Frame(type: 1, flags: 0x04, stream: 5, payload: [0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
            + Self.h2Frame(type: 1, flags: 0x04, stream: 7, payload: first)
        var decoder = HTTP2StreamDecoder(client: true)
        let items = Self.items(stream, chunk: chunk) { decoder.consume($0, emit: $1) }
        #expect(items.map(Self.text).filter { !$0.hasPrefix("HTTP/2 HEADERS") && !$0.hasPrefix("HTTP/2 CONTINUATION") && !$0.hasPrefix("HTTP/2 PUSH_PROMISE") } == [
            "HTTP/2 connection preface",
            "HTTP/2 headers, stream 1: :method: GET, :scheme: http, :path: /, :authority: www.example.com",
            "HTTP/2 headers, stream 3: :method: GET, :scheme: http, :path: /, :authority: www.example.com, cache-control: no-cache",
            "HTTP/2 pushed request headers, stream 4 (promised on stream 3): :method: GET, :scheme: https, :path: /index.html, :authority: www.example.com, custom-key: custom-value",
            "HTTP/2 headers of this direction not decoded from stream 5 on: not valid HPACK",
        ])
        #expect(items.contains(.http2Frame(HTTP2FrameSummary(type: 1, flags: 0x04, stream: 7, length: first.count))), "frames go on")
    }

    /// gRPC messages of a stream whose headers say application/grpc: split across padded DATA
    /// frames, a compressed one, an empty one; another stream's DATA is not cut.
    @Test(arguments: [1, 3, 1000])
    func grpcMessagesAreCutFromTheirStreamsData(chunk: Int) {
        let grpcHeaders = [0x83, 0x86, 0x84, 0x5F, 0x10] + Array("application/grpc".utf8)  // content-type, literal
        let plainHeaders: [UInt8] = [0x83, 0x86, 0x84]
        let body: [UInt8] = [0, 0, 0, 0, 5] + Array("hello".utf8) + [1, 0, 0, 0, 2, 0xAB, 0xCD] + [0, 0, 0, 0, 0] + [0, 0, 0, 0, 3, 0xFF, 0x00, 0x01]
        let stream = HTTP2StreamDecoder.preface
            + Self.h2Frame(type: 1, flags: 0x04, stream: 1, payload: grpcHeaders)
            + Self.h2Frame(type: 1, flags: 0x04, stream: 3, payload: plainHeaders)
            + Self.h2Frame(type: 0, flags: 0x08, stream: 1, payload: [3] + body.prefix(8) + [9, 9, 9])
            + Self.h2Frame(type: 0, flags: 0x00, stream: 3, payload: body)
            + Self.h2Frame(type: 0, flags: 0x01, stream: 1, payload: Array(body.dropFirst(8)))
            + Self.h2Frame(type: 0, flags: 0x00, stream: 1, payload: body)
        var decoder = HTTP2StreamDecoder(client: true)
        let items = Self.items(stream, chunk: chunk) { decoder.consume($0, emit: $1) }
        #expect(items.map(Self.text).filter { $0.hasPrefix("gRPC") } == [
            "gRPC message, stream 1, length 5: \"hello\"",
            "gRPC message, stream 1, compressed, length 2",
            "gRPC message, stream 1, length 0",
            "gRPC message, stream 1, length 3: hex ff0001",
        ], "stream 3 is not gRPC; stream 1's DATA after END_STREAM is not cut")
    }

    @Test func aClientThatDoesNotSendThePrefaceIsNotHTTP2() {
        var decoder = HTTP2StreamDecoder(client: true)
        let items = Self.items(Array("PRI * HTTP/1.1\r\n".utf8), chunk: 3) { decoder.consume($0, emit: $1) }
        #expect(items == [.lostSync(.http2)])
    }

    // MARK: Upgrades

    @Test func aWebSocketUpgradeSwitchesBothSidesAfterThe101() {
        var views = ConnectionViews(views: .all, payloadLimit: 16)
        var items: [ViewItem] = []
        let request = Array("GET /chat HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n".utf8)
        let answer = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n".utf8) + Self.frame(0x81, payload: Array("hi".utf8), mask: nil)
        let head = request.withUnsafeBytes { views.consume($0, side: 0) { items.append($0) } }
        #expect(head == request.count)
        _ = answer.withUnsafeBytes { views.consume($0, side: 1) { items.append($0) } }
        _ = Self.frame(0x81, payload: Array("yo".utf8), mask: [1, 2, 3, 4]).withUnsafeBytes { views.consume($0, side: 0) { items.append($0) } }
        #expect(items.map(Self.text) == [
            "WebSocket upgrade request GET /chat",
            "WebSocket upgrade accepted (101)",
            "WebSocket text, FIN, length 2: \"hi\"",
            "WebSocket text, FIN, masked, length 2: \"yo\"",
        ])
    }

    @Test func aRefusedUpgradeLeavesTheConnectionAlone() {
        var views = ConnectionViews(views: .all, payloadLimit: 16)
        var items: [ViewItem] = []
        _ = Array("GET / HTTP/1.1\r\nUpgrade: WebSocket\r\n\r\n".utf8).withUnsafeBytes { views.consume($0, side: 1) { items.append($0) } }
        _ = Array("HTTP/1.1 426 Upgrade Required\r\n\r\n".utf8).withUnsafeBytes { views.consume($0, side: 0) { items.append($0) } }
        _ = [UInt8(0x81), 0].withUnsafeBytes { views.consume($0, side: 1) { items.append($0) } }
        #expect(items.map(Self.text) == ["WebSocket upgrade request GET /", "WebSocket upgrade refused (426)"])
        #expect(!views.isViewed(0) && !views.isViewed(1))
    }

    @Test func viewsThatAreOffRecogniseNothing() {
        var views = ConnectionViews(views: .http2, payloadLimit: 16)
        var items: [ViewItem] = []
        _ = Self.clientHello.withUnsafeBytes { views.consume($0, side: 0) { items.append($0) } }
        #expect(items.isEmpty)
        #expect(!views.isViewed(0))
    }

    @Test func theDecodeListIsRead() {
        #expect(ProtocolViews(list: "tls,ws") == [.tls, .webSocket])
        #expect(ProtocolViews(list: "h2, grpc") == .http2)
        #expect(ProtocolViews(list: "all") == .all)
        #expect(ProtocolViews(list: "tls,quic") == nil)
        #expect(ProtocolViews(list: "") == nil)
    }
}
