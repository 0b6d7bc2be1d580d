import NIOCore
import SocketEngine
import Testing

@testable import SocketEngineTLS
import TestSupport

@Suite(.hangGuard) struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// FIPS 180-4 examples, and the block-boundary lengths where padding changes.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    ])
    func knownDigests(message: String, digest: String) {
        #expect(Self.hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func aMillionAs() {
        let digest = SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000))
        #expect(Self.hex(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

@Suite(.hangGuard) struct PinTests {
    @Test func pinsAreBase64OfThirtyTwoBytes() throws {
        let digest = SHA256.hash(Array("key".utf8))
        let text = "sha256//" + Base64.encode(digest)
        #expect(try TLSClientOptions.pins(parsing: text) == [digest])
        let two = try TLSClientOptions.pins(parsing: "\(text); sha256//\(Base64.encode(SHA256.hash([1])))")
        #expect(two.count == 2)
    }

    @Test(arguments: ["", "sha1//AAAA", "sha256//notbase64!", "sha256//AAAA", "sha256//"])
    func badPinsAreUsageErrors(text: String) {
        let error = #expect(throws: SocketEngineError.self) { try TLSClientOptions.pins(parsing: text) }
        #expect(error?.isUsageError == true)
    }

    @Test func base64RoundTrips() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
    }
}

@Suite(.hangGuard) struct ServerHelloTests {
    /// A TLS 1.3 ServerHello record: type, version, length, handshake header, version, random,
    /// session id (32 bytes), cipher suite 0x1302.
    static func serverHello(sessionLength: Int = 32, suite: UInt16 = 0x1302) -> [UInt8] {
        var body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 0xAB, count: 32)
        body += [UInt8(sessionLength)] + [UInt8](repeating: 0x11, count: sessionLength)
        body += [UInt8(suite >> 8), UInt8(suite & 0xFF), 0x00]
        let handshake: [UInt8] = [0x02, 0x00, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        return [0x16, 0x03, 0x03, UInt8(handshake.count >> 8), UInt8(handshake.count & 0xFF)] + handshake
    }

    @Test func theCipherSuiteIsReadFromTheServerHello() {
        #expect(ServerHelloObserver.parse(ByteBuffer(bytes: Self.serverHello())) == .found(0x1302))
        #expect(ServerHelloObserver.parse(ByteBuffer(bytes: Self.serverHello(sessionLength: 0, suite: 0xC02F))) == .found(0xC02F))
        #expect(ServerHelloObserver.name(of: 0x1302) == "TLS_AES_256_GCM_SHA384")
        #expect(ServerHelloObserver.name(of: 0x0A0A) == "0x0A0A")
    }

    /// Cut anywhere: more is needed, never a wrong answer or a trap.
    @Test func everyPrefixNeedsMoreUntilTheSuiteIsThere() {
        let record = Self.serverHello()
        let suiteEnd = 5 + 4 + 2 + 32 + 1 + 32 + 2
        for length in 0..<record.count {
            let outcome = ServerHelloObserver.parse(ByteBuffer(bytes: record.prefix(length)))
            #expect(outcome == (length >= suiteEnd ? .found(0x1302) : .needMore), "cut at \(length)")
        }
    }

    @Test func otherRecordsAreNotAServerHello() {
        #expect(ServerHelloObserver.parse(ByteBuffer(bytes: [0x17, 0x03, 0x03, 0x00, 0x01, 0x00])) == .notServerHello)
        #expect(ServerHelloObserver.parse(ByteBuffer(bytes: [0x16, 0x03, 0x03, 0x00, 0x01, 0x01])) == .notServerHello)
        #expect(ServerHelloObserver.parse(ByteBuffer(string: "HTTP/1.1 400 Bad Request\r\n")) == .notServerHello)
    }
}
