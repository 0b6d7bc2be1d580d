import NIOCore
import SocketEngine
import Testing

@testable import SocketEngineTLS
import TestSupport

/// `--pin sha256//BASE64`: the digest of the key, in base64, one or several.
@Suite(.hangGuard) struct PinTests {
    /// The digest of `abc` (FIPS 180-4's first example), written as a pin.
    static let abcDigest: [UInt8] = [
        0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
        0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
    ]

    @Test func aPinIsTheSHA256OfTheKeyInBase64() throws {
        #expect(PublicKeyPin.digest(of: Array("abc".utf8)) == Self.abcDigest)
        let text = PublicKeyPin.text(of: Self.abcDigest)
        #expect(text == "sha256//ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
        #expect(try TLSClientOptions.pins(parsing: text) == [Self.abcDigest])
        let two = try TLSClientOptions.pins(parsing: "\(text); \(PublicKeyPin.text(of: PublicKeyPin.digest(of: [1])))")
        #expect(two.count == 2)
    }

    @Test(arguments: ["", "sha1//AAAA", "sha256//notbase64!", "sha256//AAAA", "sha256//"])
    func badPinsAreUsageErrors(text: String) {
        let error = #expect(throws: SocketEngineError.self) { try TLSClientOptions.pins(parsing: text) }
        #expect(error?.isUsageError == true)
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

/// A TLS file that cannot be used says which file (in the caller's words), its path and why.
@Suite(.hangGuard) struct TLSFileTests {
    func failure(_ make: () throws(SocketEngineError) -> TLSLayer) -> SocketEngineError? {
        do {
            _ = try make()
            return nil
        } catch {
            return error
        }
    }

    @Test func eachCauseIsNamedAndTheFileInTheCallersWords() async throws {
        let dir = try await TestCertificates.shared.directory()
        var missing = TLSClientOptions()
        missing.caFile = "/nonexistent.pem"
        #expect(failure { () throws(SocketEngineError) in try TLSLayer(client: missing) }?.message == "CA file /nonexistent.pem: no such file")
        let named = failure { () throws(SocketEngineError) in try TLSLayer(client: missing) { "the \($0) setting" } }
        #expect(named?.message == "the trustedCAs setting /nonexistent.pem: no such file")
        #expect(named?.isUsageError == true)

        var notPEM = TLSClientOptions()
        notPEM.caFile = "\(dir)/server.key"
        #expect(failure { () throws(SocketEngineError) in try TLSLayer(client: notPEM) }?.message
            == "CA file \(dir)/server.key: not a PEM certificate file (no certificate in it)")

        let mismatched = TLSServerOptions(certificateFile: "\(dir)/server.pem", keyFile: "\(dir)/client.key")
        #expect(failure { () throws(SocketEngineError) in try TLSLayer(server: mismatched) }?.message
            == "key file \(dir)/client.key: the key does not match the certificate (certificate file \(dir)/server.pem)")
        let certificateAsKey = TLSServerOptions(certificateFile: "\(dir)/server.pem", keyFile: "\(dir)/server.pem")
        #expect(failure { () throws(SocketEngineError) in try TLSLayer(server: certificateAsKey) }?.message == "key file \(dir)/server.pem: not a PEM private key")
    }
}
