import Foundation
import Testing
@testable import PacketDecoding
import TestSupport

/// The pcapng writer and Decryption Secrets Blocks: files read back record for record here, by
/// tcpdump and by tshark, and the TLS key log in them taken by the reader and used by tshark.
@Suite(.hangGuard) struct PcapngWriterTests {
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures/pcapng")

    static func payloads() -> [[UInt8]] {
        (0..<500).map { index in (0..<(index % 1203)).map { UInt8(truncatingIfNeeded: $0 &+ index) } }
    }

    @Test(arguments: [TimestampPrecision.microseconds, .nanoseconds])
    func writtenFileReadsBackRecordForRecord(precision: TimestampPrecision) throws {
        var chunks: [[UInt8]] = []
        var writer = try PcapngWriter(linkType: .linuxSLL2, snapshotLength: 1000, precision: precision) { chunks.append($0) }
        let payloads = Self.payloads()
        for (index, payload) in payloads.enumerated() {
            let header = PacketHeader(seconds: Int64(1_700_000_000 + index), fraction: UInt32(index * 7), precision: precision,
                                      capturedLength: payload.count, originalLength: payload.count + 5, linkType: .linuxSLL2)
            try payload.withUnsafeBytes { try writer.write(header, $0) }
        }
        try writer.flush()
        #expect(chunks.first?.count == (precision == .nanoseconds ? 60 : 48), "the section and interface blocks are written at once")

        let file = chunks.flatMap { $0 }
        let result = readAll(file)
        #expect(result.error == nil)
        #expect(result.reader?.format == .pcapng)
        #expect(result.reader?.linkType == .linuxSLL2)
        #expect(result.reader?.snapshotLength == 1000)
        #expect(result.reader?.precision == precision)
        #expect(result.reader?.takeDecryptionSecrets() == nil)
        try #require(result.records.count == payloads.count)
        for (index, payload) in payloads.enumerated() {
            let (header, bytes) = result.records[index]
            #expect(header.seconds == Int64(1_700_000_000 + index))
            #expect(header.fraction == UInt32(index * 7))
            #expect(bytes == Array(payload.prefix(1000)), "records are clamped to the snapshot length")
            #expect(header.originalLength == payload.count + 5)
            #expect(header.linkType == .linuxSLL2)
        }
        // Every byte prefix reads without a trap: whole records, then one error or a clean end.
        for length in stride(from: 0, through: min(file.count, 6000), by: 1) {
            _ = readAll(Array(file.prefix(length)))
        }
    }

    @Test func writerConvertsTimestampsToItsResolution() throws {
        var file: [UInt8] = []
        var writer = try PcapngWriter(linkType: .ethernet, snapshotLength: 0, precision: .nanoseconds) { file += $0 }
        let micro = PacketHeader(seconds: 5, fraction: 123_456, precision: .microseconds, capturedLength: 1, originalLength: 1, linkType: .ethernet)
        try [UInt8(1)].withUnsafeBytes { try writer.write(micro, $0) }
        var microWriterFile: [UInt8] = []
        var microWriter = try PcapngWriter(linkType: .ethernet, snapshotLength: 0) { microWriterFile += $0 }
        let nano = PacketHeader(seconds: 5, fraction: 123_456_789, precision: .nanoseconds, capturedLength: 1, originalLength: 1, linkType: .ethernet)
        try [UInt8(1)].withUnsafeBytes { try microWriter.write(nano, $0) }
        try writer.flush()
        try microWriter.flush()
        let result = readAll(file)
        #expect(result.reader?.snapshotLength == 262_144, "snapshot length 0 means the maximum")
        #expect(result.records.first?.header.fraction == 123_456_000)
        #expect(result.records.first?.header.precision == .nanoseconds)
        #expect(result.records.first?.header.seconds == 5)
        let truncated = readAll(microWriterFile)
        #expect(truncated.records.first?.header.fraction == 123_456)
        #expect(truncated.records.first?.header.precision == .microseconds)
    }

    /// Key log text between packets comes back from `takeDecryptionSecrets()` once the packet
    /// after it is read, in order, and only once; other secrets types are skipped.
    @Test func decryptionSecretsAreTakenInFileOrder() throws {
        var file: [UInt8] = []
        var writer = try PcapngWriter(linkType: .ethernet, snapshotLength: 0) { file += $0 }
        let first = Array("CLIENT_RANDOM 01 02\n".utf8)  // 20 bytes: no padding
        let second = Array("SERVER_TRAFFIC_SECRET_0 0a0b 0c\n".utf8)  // 31: padded to 32
        try writer.writeDecryptionSecrets(first)
        try [UInt8(1)].withUnsafeBytes { try writer.write(PacketHeader(seconds: 1, fraction: 0, precision: .microseconds, capturedLength: 1, originalLength: 1, linkType: .ethernet), $0) }
        try writer.writeDecryptionSecrets(second)
        try writer.writeDecryptionSecrets(Array("# comment\n".utf8))
        try writer.writeDecryptionSecrets([])
        try [UInt8(2)].withUnsafeBytes { try writer.write(PacketHeader(seconds: 2, fraction: 0, precision: .microseconds, capturedLength: 1, originalLength: 1, linkType: .ethernet), $0) }
        try writer.flush()
        // A Wireguard-key DSB ("WGKL") the reader must skip.
        var other = CaptureBytes()
        other.block(0x0A, [0x4C, 0x4B, 0x47, 0x57, 4, 0, 0, 0, 1, 2, 3, 4])
        file += other.bytes

        let reader = try CaptureFileReader(bytes: file)
        #expect(reader.takeDecryptionSecrets() == nil, "the header holds no secrets")
        let one = try reader.next()
        #expect(one.map { Array($0.bytes) } == [1])
        #expect(reader.takeDecryptionSecrets() == first)
        #expect(reader.takeDecryptionSecrets() == nil)
        _ = try reader.next()
        #expect(reader.takeDecryptionSecrets() == second + Array("# comment\n".utf8))
        #expect(try reader.next() == nil)
        #expect(reader.takeDecryptionSecrets() == nil, "a WGKL block is not a TLS key log")
        // Each block is 4-byte aligned with its length repeated: the file has the expected size.
        let blocks = (28 + 20) + (20 + 20) + 2 * (32 + 4) + (20 + 32) + (20 + 12) + 12 + 12
        #expect(file.count == blocks)
    }

    @Test func longKeyLogsAreSplitAtLineEnds() throws {
        var file: [UInt8] = []
        var writer = try PcapngWriter(linkType: .ethernet, snapshotLength: 0) { file += $0 }
        let line = Array("CLIENT_TRAFFIC_SECRET_0 \(String(repeating: "ab", count: 32)) \(String(repeating: "cd", count: 48))\n".utf8)
        let text = Array([[UInt8]](repeating: line, count: PcapngWriter.maximumSecretsLength / line.count + 10).joined())
        try writer.writeDecryptionSecrets(text)
        try [UInt8(1)].withUnsafeBytes { try writer.write(PacketHeader(seconds: 1, fraction: 0, precision: .microseconds, capturedLength: 1, originalLength: 1, linkType: .ethernet), $0) }
        try writer.flush()
        let reader = try CaptureFileReader(bytes: file)
        _ = try reader.next()
        #expect(reader.takeDecryptionSecrets() == text)
        // Two blocks, the first ending after a whole line.
        let firstLength = Int(file[48 + 12]) | Int(file[48 + 13]) << 8 | Int(file[48 + 14]) << 16
        #expect(firstLength % line.count == 0 && firstLength <= PcapngWriter.maximumSecretsLength)
    }

    /// A recorded TLS 1.3 exchange (scripts/captures/make-tls-keylog.sh: openssl s_server and
    /// s_client -keylogfile, tcpdump -w), rewritten as pcapng with its key log in a Decryption
    /// Secrets Block: tshark decrypts the HTTP request from the file alone, capinfos counts the
    /// block, tcpdump reads every packet, and the reader gives the key log back.
    @Test func tsharkDecryptsWithTheWrittenSecrets() async throws {
        let scratch = try Scratch()
        let keyLog = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("tls13-keylog.keylog")))
        let source = readAll(path: Self.fixtures.appendingPathComponent("tls13-keylog.pcap").path)
        try #require(source.error == nil && source.records.count > 10)
        var file: [UInt8] = []
        var writer = try PcapngWriter(linkType: .ethernet, snapshotLength: 262_144, precision: .nanoseconds) { file += $0 }
        try writer.writeDecryptionSecrets(keyLog)
        for (header, bytes) in source.records {
            try bytes.withUnsafeBytes { try writer.write(header, $0) }
        }
        try writer.flush()
        let path = scratch.path("tls.pcapng")
        try Data(file).write(to: URL(fileURLWithPath: path))

        let decrypted = try await run(try tool("tshark"), ["-r", path, "-d", "tcp.port==6975,tls", "-Y", "http.request", "-T", "fields", "-e", "http.request.method", "-e", "http.request.uri"])
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        #expect(String(decoding: decrypted.stdout, as: UTF8.self) == "GET\t/\n", "tshark decrypts the request with the file's own keys")
        let withoutKeys = try await run(try tool("tshark"), ["-r", Self.fixtures.appendingPathComponent("tls13-keylog.pcap").path, "-d", "tcp.port==6975,tls", "-Y", "http.request"])
        #expect(withoutKeys.stdout.isEmpty, "the pcap alone does not decrypt")
        let info = try await run(try tool("capinfos"), [path])
        #expect(String(decoding: info.stdout, as: UTF8.self).contains("Number of decryption secrets in file: 1"))

        let ours = try await run(try tool("tcpdump"), ["-n", "-r", path])
        let theirs = try await run(try tool("tcpdump"), ["-n", "-r", Self.fixtures.appendingPathComponent("tls13-keylog.pcap").path])
        #expect(ours.status == 0 && !ours.stdout.isEmpty)
        #expect(ours.stdout == theirs.stdout)

        let reader = try CaptureFileReader(path: path)
        _ = try reader.next()
        #expect(reader.takeDecryptionSecrets() == keyLog)
    }
}
