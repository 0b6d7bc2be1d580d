import Foundation
import Testing
@testable import PacketDecoding
import TestSupport

@Suite(.hangGuard) struct CaptureFileReaderTests {
    // MARK: Round trips and formats

    @Test(arguments: [TimestampPrecision.microseconds, .nanoseconds])
    func writtenFileReadsBackRecordForRecord(precision: TimestampPrecision) throws {
        var chunks: [[UInt8]] = []
        var writer = try PcapWriter(linkType: .linuxSLL2, snapshotLength: 1000, precision: precision) { chunks.append($0) }
        let payloads: [[UInt8]] = (0..<3000).map { index in (0..<(index % 1200)).map { UInt8(truncatingIfNeeded: $0 &+ index) } }
        for (index, payload) in payloads.enumerated() {
            let header = PacketHeader(seconds: Int64(1_700_000_000 + index), fraction: UInt32(index * 7), precision: precision,
                                      capturedLength: payload.count, originalLength: payload.count + 5, linkType: .linuxSLL2)
            try payload.withUnsafeBytes { try writer.write(header, $0) }
        }
        try writer.flush()
        #expect(chunks.first?.count == 24, "the file header is written at once")
        #expect(chunks.dropFirst().dropLast().allSatisfy { $0.count >= PcapWriter.chunkLength })

        let result = readAll(chunks.flatMap { $0 })
        #expect(result.error == nil)
        #expect(result.reader?.format == .pcap)
        #expect(result.reader?.linkType == .linuxSLL2)
        #expect(result.reader?.snapshotLength == 1000)
        #expect(result.reader?.precision == precision)
        try #require(result.records.count == payloads.count)
        for (index, payload) in payloads.enumerated() {
            let (header, bytes) = result.records[index]
            #expect(header.seconds == Int64(1_700_000_000 + index))
            #expect(header.fraction == UInt32(index * 7))
            #expect(header.precision == precision)
            #expect(bytes == Array(payload.prefix(1000)), "records are clamped to the snapshot length")
            #expect(header.capturedLength == min(payload.count, 1000))
            #expect(header.originalLength == payload.count + 5)
            #expect(header.linkType == .linuxSLL2)
        }
    }

    @Test func writerConvertsTimestampsToItsPrecision() throws {
        var file: [UInt8] = []
        var writer = try PcapWriter(linkType: .ethernet, snapshotLength: 0, precision: .nanoseconds) { file += $0 }
        let micro = PacketHeader(seconds: 5, fraction: 123_456, precision: .microseconds, capturedLength: 1, originalLength: 1, linkType: .ethernet)
        try [UInt8(1)].withUnsafeBytes { try writer.write(micro, $0) }
        try writer.flush()
        let result = readAll(file)
        #expect(result.reader?.snapshotLength == 262_144, "snapshot length 0 means the maximum")
        #expect(result.records.first?.header.fraction == 123_456_000)
        #expect(result.records.first?.header.precision == .nanoseconds)
    }

    @Test(arguments: [false, true])
    func pcapInEitherByteOrderReadsTheSame(bigEndian: Bool) {
        var file = CaptureBytes.pcap(bigEndian: bigEndian)
        file.record(seconds: 10, fraction: 999_999)
        file.record(seconds: 0x8000_0000, fraction: 2_000_000, caplen: 20, len: 60, Array(CaptureBytes.packet.prefix(20)))
        let result = readAll(file.bytes)
        #expect(result.error == nil)
        #expect(result.records.count == 2)
        #expect(result.records[0].header == PacketHeader(seconds: 10, fraction: 999_999, precision: .microseconds, capturedLength: 42, originalLength: 42, linkType: .ethernet))
        #expect(result.records[0].bytes == CaptureBytes.packet)
        // Seconds are libpcap's signed 32 bits; an invalid fraction is kept for the printer.
        #expect(result.records[1].header.seconds == -2_147_483_648)
        #expect(result.records[1].header.fraction == 2_000_000)
        #expect(result.records[1].header.capturedLength == 20)
        #expect(result.records[1].header.originalLength == 60)
    }

    @Test(arguments: [false, true])
    func nanosecondMagicKeepsNanoseconds(bigEndian: Bool) {
        var file = CaptureBytes.pcap(bigEndian: bigEndian, magic: 0xA1B2_3C4D)
        file.record(fraction: 123_456_789)
        let result = readAll(file.bytes)
        #expect(result.reader?.precision == .nanoseconds)
        #expect(result.records.first?.header.fraction == 123_456_789)
        #expect(result.records.first?.header.precision == .nanoseconds)
    }

    @Test func headerOnlyFileHasNoRecordsAndNoError() {
        let result = readAll(CaptureBytes.pcap().bytes)
        #expect(result.error == nil)
        #expect(result.records.isEmpty)
    }

    @Test func pcapngInterfacesOfDifferentLinkTypesGiveEachRecordItsOwn() throws {
        var file = CaptureBytes.pcapng()
        file.interface(linkType: 1)
        file.interface(linkType: 101, snaplen: 100, options: file.option(9, [9]) + file.option(0, []))
        file.enhancedPacket(interface: 0, timestamp: 1_500_000_001)
        file.enhancedPacket(interface: 1, timestamp: 2_123_456_789, len: 60, Array(CaptureBytes.packet.dropFirst(14)))
        let result = readAll(file.bytes)
        #expect(result.error == nil)
        #expect(result.reader?.format == .pcapng)
        #expect(result.reader?.linkType == .ethernet)
        #expect(result.reader?.interfaces.count == 2)
        #expect(result.reader?.interfaces.last?.snapshotLength == 100)
        try #require(result.records.count == 2)
        #expect(result.records[0].header == PacketHeader(seconds: 1500, fraction: 1, precision: .microseconds, capturedLength: 42, originalLength: 42, interfaceID: 0, linkType: .ethernet))
        #expect(result.records[1].header == PacketHeader(seconds: 2, fraction: 123_456_789, precision: .nanoseconds, capturedLength: 28, originalLength: 60, interfaceID: 1, linkType: .raw))
        #expect(result.records[1].bytes == Array(CaptureBytes.packet.dropFirst(14)))
    }

    @Test func bigEndianPcapngWithSimpleAndObsoletePacketBlocksAndUnknownBlocks() throws {
        var file = CaptureBytes.pcapng(bigEndian: true)
        file.block(0x0BAD_0001, [1, 2, 3, 4])
        file.interface(snaplen: 30)
        file.block(5, [UInt8](repeating: 0, count: 16))
        file.simplePacket()
        file.obsoletePacket(timestamp: 7_000_003, Array(CaptureBytes.packet.prefix(30)))
        file.block(0x8000_0001, [UInt8](repeating: 9, count: 8))
        let result = readAll(file.bytes)
        #expect(result.error == nil)
        try #require(result.records.count == 2)
        // A Simple Packet Block has no timestamp and is cut to the snapshot length.
        #expect(result.records[0].header == PacketHeader(seconds: 0, fraction: 0, precision: .microseconds, capturedLength: 30, originalLength: 42, linkType: .ethernet))
        #expect(result.records[0].bytes == Array(CaptureBytes.packet.prefix(30)))
        #expect(result.records[1].header.seconds == 7)
        #expect(result.records[1].header.fraction == 3)
    }

    @Test func timestampResolutionsConvertToMicrosecondsOrNanoseconds() {
        var file = CaptureBytes.pcapng()
        file.interface(options: file.option(9, [3]))                                   // ms → µs
        file.interface(options: file.option(9, [0x94]))                                // 2^-20 → ns
        file.interface(options: file.option(9, [0x8A]) + file.option(14, [100, 0, 0, 0, 0, 0, 0, 0])) // 2^-10 → µs, +100 s
        file.interface(options: file.option(9, [12]))                                  // ps → ns
        file.enhancedPacket(interface: 0, timestamp: 1123)
        file.enhancedPacket(interface: 1, timestamp: (1 << 20) + (1 << 19))
        file.enhancedPacket(interface: 2, timestamp: 1024 + 512)
        file.enhancedPacket(interface: 3, timestamp: 1_123_456_789_999)
        let headers = readAll(file.bytes).records.map(\.header)
        #expect(headers.map(\.seconds) == [1, 1, 101, 1])
        #expect(headers.map(\.fraction) == [123_000, 500_000_000, 500_000, 123_456_789])
        #expect(headers.map(\.precision) == [.microseconds, .nanoseconds, .microseconds, .nanoseconds])
    }

    @Test func newSectionStartsItsOwnInterfaceNumbering() {
        var file = CaptureBytes.pcapng()
        file.interface(linkType: 1)
        file.enhancedPacket()
        file.section()
        file.interface(linkType: 113)
        file.enhancedPacket(timestamp: 5_000_000)
        let result = readAll(file.bytes)
        #expect(result.error == nil)
        #expect(result.records.map(\.header.linkType) == [.ethernet, .linuxSLL])
        #expect(result.reader?.interfaces.map(\.linkType) == [.linuxSLL])
        #expect(result.reader?.linkType == .ethernet)
    }

    // MARK: robustness.md §1.4 — records that are odd but not errors

    @Test func caplenZeroAndCaplenAboveLenAreHandedToThePrinter() {
        var file = CaptureBytes.pcap()
        file.record(caplen: 0, len: 0, [])
        file.record(len: 20)
        let result = readAll(file.bytes)
        #expect(result.error == nil)
        #expect(result.records.map(\.header.capturedLength) == [0, 42])
        #expect(result.records.map(\.header.originalLength) == [0, 20])
    }

    @Test func caplenAboveTheFileSnaplenIsClampedAndTheRestSkipped() {
        var file = CaptureBytes.pcap(snaplen: 30)
        file.record(seconds: 1)
        file.record(seconds: 3)
        let result = readAll(file.bytes)
        #expect(result.error == nil)
        #expect(result.records.map(\.header.seconds) == [1, 3])
        #expect(result.records.map(\.header.capturedLength) == [30, 30])
        #expect(result.records.map(\.header.originalLength) == [42, 42])
        #expect(result.records[0].bytes == Array(CaptureBytes.packet.prefix(30)))
    }

    @Test(arguments: [UInt32(0), 0xFFFF_FFFF])
    func fileSnaplenZeroOrHugeMeansTheMaximum(snaplen: UInt32) {
        var file = CaptureBytes.pcap(snaplen: snaplen)
        file.record()
        let result = readAll(file.bytes)
        #expect(result.reader?.snapshotLength == 262_144)
        #expect(result.records.count == 1)
    }

    @Test func oldVersionsWithSwappedLengthFieldsAreUnswapped() {
        var old = CaptureBytes.pcap(minor: 2)
        old.record(caplen: 60, len: 42)  // stored as len, caplen
        #expect(readAll(old.bytes).records.map(\.header.capturedLength) == [42])
        #expect(readAll(old.bytes).records.map(\.header.originalLength) == [60])
    }

    @Test func fcsBitsInTheLinkTypeAreIgnored() {
        var file = CaptureBytes.pcap(linkType: 1 | 0x1400_0000)
        file.record()
        #expect(readAll(file.bytes).reader?.linkType == .ethernet)
    }

    // MARK: Reading from files

    @Test func largeFileReadInChunksMatchesTheInMemoryRead() throws {
        var file = CaptureBytes.pcapng()
        file.interface()
        // 3 MiB of an unknown block forces the buffer to grow past its 256 KiB chunk.
        file.block(0x0BAD_F00D, [UInt8](repeating: 0x5A, count: 3 * 1024 * 1024))
        for index in 0..<5_000 {
            file.enhancedPacket(timestamp: UInt64(index), (0..<(index % 1500)).map { UInt8(truncatingIfNeeded: $0 ^ index) })
        }
        file.enhancedPacket([UInt8](repeating: 7, count: 262_144))
        let path = scratchPath("large.pcapng")
        defer { unlink(path) }
        try Data(file.bytes).write(to: URL(fileURLWithPath: path))
        let fromFile = readAll(path: path)
        let fromMemory = readAll(file.bytes)
        #expect(fromFile.error == nil)
        #expect(fromFile.records.count == 5_001)
        #expect(fromFile.records.count == fromMemory.records.count)
        for (left, right) in zip(fromFile.records, fromMemory.records) where left.header != right.header || left.bytes != right.bytes {
            Issue.record("record \(left.header) differs from \(right.header)")
            break
        }
    }

    @Test func missingFileAndDirectoryFailLikeLibpcap() {
        #expect(readAll(path: "/nonexistent/sockctl.pcap").errorText == "/nonexistent/sockctl.pcap: No such file or directory")
        #expect(readAll(path: "/tmp").errorText == "error reading dump file: Is a directory")
        #expect(readAll(path: "/tmp").error?.code == .io)
    }

    @Test func readsFromAPipe() throws {
        var file = CaptureBytes.pcap()
        for index in 0..<500 { file.record(seconds: UInt32(index)) }
        var descriptors: [Int32] = [-1, -1]
        try #require(pipe(&descriptors) == 0)
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        let bytes = file.bytes
        // Small writes, so records arrive split across reads.
        let writer = Thread {
            var offset = 0
            while offset < bytes.count {
                let count = min(1000, bytes.count - offset)
                let written = bytes.withUnsafeBytes { write(writeEnd, $0.baseAddress! + offset, count) }
                if written <= 0 { break }
                offset += written
            }
            close(writeEnd)
        }
        writer.start()
        let reader = try CaptureFileReader(fileDescriptor: readEnd, closeOnDeinit: true)
        var seconds: [Int64] = []
        while let record = try reader.next() { seconds.append(record.header.seconds) }
        #expect(seconds == (0..<500).map(Int64.init))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tcpdump")))
    func tcpdumpReadsTheWrittenFile() throws {
        let path = scratchPath("written.pcap")
        defer { unlink(path) }
        var output: [UInt8] = []
        var writer = try PcapWriter(linkType: .ethernet, snapshotLength: 262_144, precision: .nanoseconds) { output += $0 }
        for index in 0..<7 {
            let header = PacketHeader(seconds: 1_700_000_000 + Int64(index), fraction: 5, precision: .nanoseconds, capturedLength: 42, originalLength: 42, linkType: .ethernet)
            try CaptureBytes.packet.withUnsafeBytes { try writer.write(header, $0) }
        }
        try writer.flush()
        try Data(output).write(to: URL(fileURLWithPath: path))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tcpdump")
        process.arguments = ["-n", "-tt", "--nano", "-r", path]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = Pipe()
        try process.run()
        let text = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 7)
        #expect(lines.first == "1700000000.000000005 IP 127.0.0.1.1000 > 127.0.0.1.2000: UDP, length 0")
    }
}
