import Foundation
import TestSupport
import Testing
@testable import PacketDecoding

/// `capture --keylog` against tshark: sessions recorded from openssl s_server/s_client, curl
/// (HTTP/1.1, and HTTP/2 with many streams against nghttpd) and Python websockets (with
/// permessage-deflate and without) with their key logs (scripts/tls-sessions/record.sh), and
/// tshark's decrypted bytes of each
/// (`-z follow,tls,raw,N`). For every connection and direction, the bytes the decryptor hands
/// out equal tshark's; the sessions tshark cannot decrypt (mid-connection, wrong key, no key)
/// say why once per connection.
@Suite(.hangGuard) struct TLSDecryptionTests {
    static let directory = packageRoot.appendingPathComponent("Tests/Fixtures/TLS")

    static let decryptable = [
        "tls13-aes128gcm", "tls13-aes256gcm", "tls13-chacha20",
        "tls12-ecdhe-rsa-aes128gcm", "tls12-ecdhe-rsa-aes256gcm", "tls12-ecdhe-rsa-chacha20",
        "tls12-ecdhe-ecdsa-aes128gcm", "tls12-ecdhe-ecdsa-aes256gcm", "tls12-ecdhe-ecdsa-chacha20",
        "curl-http11", "h2-tls-streams", "ws-tls-deflate", "ws-tls-plain",
    ]
    static let undecryptable: [(String, TLSDecryptionFailure)] = [
        ("mid-connection", .handshakeNotSeen), ("wrong-key", .authenticationFailed), ("no-key", .noKey),
    ]

    /// Per connection in order of opening: the decrypted bytes client → server and back, and
    /// the failures said.
    struct Decrypted: Equatable {
        var toServer: [UInt8] = []
        var toClient: [UInt8] = []
        var failures: [TLSDecryptionFailure] = []
        /// tshark: the port of `Node 0`, whose bytes are the lines not indented.
        var nodeZeroPort: Int?
    }

    static func keys(_ name: String) throws -> TLSKeyStore {
        var log = TLSKeyLog()
        log.add(try [UInt8](Data(contentsOf: directory.appendingPathComponent("\(name).keylog"))))
        log.finish()
        return TLSKeyStore(log: log)
    }

    /// The session's connections reassembled and decrypted.
    static func decrypt(_ name: String) throws -> [Decrypted] {
        let keys = try keys(name)
        let reader = try CaptureFileReader(path: directory.appendingPathComponent("\(name).pcap").path)
        var reassembler = TCPReassembler()
        var order: [Int] = []
        var decryptors: [Int: TLSConnectionDecryptor] = [:]
        var results: [Int: Decrypted] = [:]
        var clientPorts: [Int: Int] = [:]
        func handle(_ event: TCPReassembler.Event) {
            let side = event.direction == .clientToServer ? 0 : 1
            switch event.kind {
            case .opened(let client, _):
                clientPorts[event.stream] = Int(client.port)
                order.append(event.stream)
                decryptors[event.stream] = TLSConnectionDecryptor(keys: keys)
                results[event.stream] = Decrypted()
            case .data(let bytes):
                decryptors[event.stream]?.consume(bytes, side: side) { output in
                    switch output {
                    case .data(let side, let plaintext):
                        if side == 0 { results[event.stream]?.toServer += plaintext } else { results[event.stream]?.toClient += plaintext }
                    case .failure(let failure): results[event.stream]?.failures.append(failure)
                    }
                }
            case .gap:
                decryptors[event.stream]?.gap(side: side) { output in
                    if case .failure(let failure) = output { results[event.stream]?.failures.append(failure) }
                }
            case .closed:
                break
            }
        }
        while let record = try reader.next() {
            let captured = UnsafeRawBufferPointer(rebasing: record.bytes[0..<min(record.bytes.count, record.header.capturedLength)])
            guard let segment = TransportSegment.parse(record.header, captured) else { continue }
            reassembler.process(segment, payload: segment.payload(in: captured), handle)
        }
        reassembler.finish(handle)
        return order.compactMap { stream in results[stream].map { var result = $0; result.nodeZeroPort = clientPorts[stream]; return result } }
    }

    /// tshark's `follow,tls,raw` blocks: per stream, the bytes of `Node 0` (lines not indented)
    /// and of the other node (tab-indented), hex-decoded; which is the client is found by
    /// `clientPorts` (the connections' client ports, in order).
    static func tshark(_ name: String, clientPorts: [Int?]) throws -> [Decrypted] {
        let text = try String(contentsOf: directory.appendingPathComponent("\(name).tshark"), encoding: .utf8)
        var streams: [Decrypted] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("Follow: ") {
                streams.append(Decrypted())
                continue
            }
            if line.hasPrefix("Node 0: "), let port = line.split(separator: ":").last.flatMap({ Int($0) }), !streams.isEmpty {
                streams[streams.count - 1].nodeZeroPort = port
                continue
            }
            let indented = line.hasPrefix("\t")
            let hex = indented ? line.dropFirst() : line[...]
            guard !hex.isEmpty, hex.allSatisfy(\.isHexDigit), let bytes = TLSKeyLog.hex(Array(hex.utf8)), !streams.isEmpty else { continue }
            let index = streams.count - 1
            let fromClient = indented != (index < clientPorts.count && streams[index].nodeZeroPort == clientPorts[index])
            if fromClient { streams[index].toServer += bytes } else { streams[index].toClient += bytes }
        }
        return streams
    }

    @Test(arguments: decryptable)
    func decryptedBytesEqualTsharks(_ name: String) throws {
        let ours = try Self.decrypt(name)
        let expected = try Self.tshark(name, clientPorts: ours.map(\.nodeZeroPort))
        #expect(ours.count == expected.count, "connections")
        for (index, (mine, theirs)) in zip(ours, expected).enumerated() {
            #expect(!theirs.toServer.isEmpty && !theirs.toClient.isEmpty, "tshark decrypted \(name) connection \(index)")
            #expect(mine.failures.isEmpty, "\(name) connection \(index): \(mine.failures)")
            let toServer = mine.toServer == theirs.toServer
            let toClient = mine.toClient == theirs.toClient
            #expect(toServer, "\(name) connection \(index) client → server: \(mine.toServer.count) vs \(theirs.toServer.count) bytes")
            #expect(toClient, "\(name) connection \(index) server → client: \(mine.toClient.count) vs \(theirs.toClient.count) bytes")
        }
    }

    @Test(arguments: undecryptable)
    func undecryptableSessionsSaySoOncePerConnection(_ name: String, _ failure: TLSDecryptionFailure) throws {
        let ours = try Self.decrypt(name)
        let expected = try Self.tshark(name, clientPorts: ours.map(\.nodeZeroPort))
        #expect(!ours.isEmpty && ours.count == expected.count)
        for (mine, theirs) in zip(ours, expected) {
            #expect(theirs.toServer.isEmpty && theirs.toClient.isEmpty, "tshark decrypts nothing either")
            #expect(mine.toServer.isEmpty && mine.toClient.isEmpty)
            #expect(mine.failures == [failure])
        }
    }

    @Test func keyLogReadsLinesAsTheyArriveAndCountsMalformedOnes() throws {
        var log = TLSKeyLog()
        let random = String(repeating: "ab", count: 32)
        let line = "CLIENT_RANDOM \(random) \(String(repeating: "01", count: 48))\n"
        let bytes = Array(("# comment\n\nGARBAGE\n" + line).utf8)
        log.add(bytes[..<30])
        #expect(log.malformedLines == 1 && log.count == 0)
        log.add(bytes[30..<(bytes.count - 1)])
        #expect(log.count == 0, "a partial line waits for its end")
        log.add(bytes[(bytes.count - 1)...])
        #expect(log.count == 1)
        #expect(log.secrets(for: TLSKeyLog.hex(Array(random.utf8)) ?? [])?.masterSecret == [UInt8](repeating: 1, count: 48))
        log.add(Array(("SERVER_TRAFFIC_SECRET_0 \(random) zz\nEXPORTER_SECRET \(random) 0102\n" + String(repeating: "x", count: 5000) + "\n").utf8))
        #expect(log.malformedLines == 3 && log.count == 1)
        log.add(Array("CLIENT_TRAFFIC_SECRET_0 \(random) 0a0b".utf8))
        #expect(log.secrets(for: TLSKeyLog.hex(Array(random.utf8)) ?? [])?.clientTraffic == nil)
        log.finish()
        #expect(log.secrets(for: TLSKeyLog.hex(Array(random.utf8)) ?? [])?.clientTraffic == [0x0A, 0x0B], "the last line without a newline")
    }

    @Test func aLiveKeyLogIsReadAgainWhenAClientRandomIsMissing() throws {
        let text = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent("tls13-chacha20.keylog")))
        var delivered = false
        let keys = TLSKeyStore(reload: {
            defer { delivered = true }
            return delivered ? [] : text
        })
        #expect(keys.isLive)
        let reader = try CaptureFileReader(path: Self.directory.appendingPathComponent("tls13-chacha20.pcap").path)
        var tracker = ApplicationViewTracker(views: .tls, keys: keys)
        var items: [ViewItem] = []
        while let record = try reader.next() {
            let captured = UnsafeRawBufferPointer(rebasing: record.bytes[0..<min(record.bytes.count, record.header.capturedLength)])
            guard let segment = TransportSegment.parse(record.header, captured) else { continue }
            items += tracker.items(for: segment, payload: segment.payload(in: captured))
        }
        #expect(delivered)
        #expect(items.contains { if case .tlsDecrypted(_, let bytes) = $0 { bytes.starts(with: Array("hello over tls13-chacha20".utf8)) } else { false } })
        #expect(!items.contains { if case .tlsNotDecrypted = $0 { true } else { false } })
    }
}

/// Every byte prefix of each recorded TLS session prints with its key log, in every format
/// (`--decode all`, `--json`, `--follow`), without a trap. The reader yields the whole records
/// of a prefix and stops at the cut (a truncated record is an error, never a packet), so the
/// formats run once per distinct record sequence: every prefix is read, each sequence printed.
@Suite(.hangGuard) struct TLSDecryptionPrefixTests {
    @Test(arguments: TLSDecryptionTests.decryptable + TLSDecryptionTests.undecryptable.map(\.0))
    func everyBytePrefixPrintsWithTheKeyLog(_ name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: TLSDecryptionTests.directory.appendingPathComponent("\(name).pcap")))
        let keys = try TLSDecryptionTests.keys(name)
        var printed = Set<Int>()
        for length in 0...bytes.count {
            var records: [(header: PacketHeader, bytes: [UInt8])] = []
            if let reader = try? CaptureFileReader(bytes: Array(bytes[0..<length])) {
                while let record = try? reader.next() { records.append((record.header, Array(record.bytes))) }
            }
            guard printed.insert(records.count).inserted else { continue }
            var printer = PacketPrinter(options: PrintOptions(dump: .none, timestamps: .none, views: .all), keys: keys)
            var json = PacketJSONWriter(keys: keys)
            var tracker = ApplicationViewTracker(views: .all, keys: keys)
            var out: [UInt8] = []
            for record in records {
                record.bytes.withUnsafeBytes { raw in
                    printer.print(record.header, raw, into: &out)
                    json.append(record.header, raw, into: &out)
                    let captured = UnsafeRawBufferPointer(rebasing: raw[0..<min(raw.count, record.header.capturedLength)])
                    if let segment = TransportSegment.parse(record.header, captured) {
                        _ = tracker.items(for: segment, payload: segment.payload(in: captured))
                    }
                }
            }
            #expect(records.isEmpty || !out.isEmpty)
        }
        #expect(printed.count > 10)
    }
}
