import Foundation
import Testing
@testable import PacketDecoding
import TestSupport

/// Capture files built byte by byte, in either byte order.
private struct CaptureBytes {
    var bigEndian = false
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) {
        let ordered = bigEndian ? value.bigEndian : value.littleEndian
        withUnsafeBytes(of: ordered) { bytes += $0 }
    }
    mutating func u32(_ value: UInt32) {
        let ordered = bigEndian ? value.bigEndian : value.littleEndian
        withUnsafeBytes(of: ordered) { bytes += $0 }
    }
    mutating func u64(_ value: UInt64) {
        let ordered = bigEndian ? value.bigEndian : value.littleEndian
        withUnsafeBytes(of: ordered) { bytes += $0 }
    }
    mutating func raw(_ data: [UInt8]) { bytes += data }

    // Classic pcap.
    static func pcap(bigEndian: Bool = false, magic: UInt32 = 0xA1B2_C3D4, major: UInt16 = 2, minor: UInt16 = 4, snaplen: UInt32 = 262_144, linkType: UInt32 = 1) -> CaptureBytes {
        var file = CaptureBytes(bigEndian: bigEndian)
        file.u32(magic); file.u16(major); file.u16(minor); file.u32(0); file.u32(0); file.u32(snaplen); file.u32(linkType)
        return file
    }

    mutating func record(seconds: UInt32 = 1, fraction: UInt32 = 2, caplen: UInt32? = nil, len: UInt32? = nil, _ data: [UInt8] = packet) {
        u32(seconds); u32(fraction); u32(caplen ?? UInt32(data.count)); u32(len ?? UInt32(data.count)); raw(data)
    }

    // pcapng.
    mutating func block(_ type: UInt32, _ body: [UInt8], totalLength: UInt32? = nil, trailer: UInt32? = nil) {
        let total = UInt32(12 + body.count)
        u32(type); u32(totalLength ?? total); raw(body); u32(trailer ?? total)
    }

    static func pcapng(bigEndian: Bool = false, major: UInt16 = 1, minor: UInt16 = 0) -> CaptureBytes {
        var file = CaptureBytes(bigEndian: bigEndian)
        file.section(major: major, minor: minor)
        return file
    }

    mutating func section(major: UInt16 = 1, minor: UInt16 = 0, byteOrderMagic: UInt32 = 0x1A2B_3C4D) {
        var body = CaptureBytes(bigEndian: bigEndian)
        body.u32(byteOrderMagic); body.u16(major); body.u16(minor); body.u64(UInt64.max)
        block(0x0A0D_0D0A, body.bytes)
    }

    /// An option: code, length, value padded to 4 bytes.
    func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
        var option = CaptureBytes(bigEndian: bigEndian)
        option.u16(code); option.u16(UInt16(value.count)); option.raw(value)
        option.raw([UInt8](repeating: 0, count: (4 - value.count % 4) % 4))
        return option.bytes
    }

    mutating func interface(linkType: UInt16 = 1, snaplen: UInt32 = 262_144, options: [UInt8] = []) {
        var body = CaptureBytes(bigEndian: bigEndian)
        body.u16(linkType); body.u16(0); body.u32(snaplen); body.raw(options)
        block(1, body.bytes)
    }

    mutating func enhancedPacket(interface: UInt32 = 0, timestamp: UInt64 = 1_000_002, caplen: UInt32? = nil, len: UInt32? = nil, _ data: [UInt8] = packet) {
        var body = CaptureBytes(bigEndian: bigEndian)
        body.u32(interface); body.u32(UInt32(timestamp >> 32)); body.u32(UInt32(truncatingIfNeeded: timestamp))
        body.u32(caplen ?? UInt32(data.count)); body.u32(len ?? UInt32(data.count))
        body.raw(data); body.raw([UInt8](repeating: 0, count: (4 - data.count % 4) % 4))
        block(6, body.bytes)
    }

    mutating func simplePacket(len: UInt32? = nil, _ data: [UInt8] = packet) {
        var body = CaptureBytes(bigEndian: bigEndian)
        body.u32(len ?? UInt32(data.count)); body.raw(data); body.raw([UInt8](repeating: 0, count: (4 - data.count % 4) % 4))
        block(3, body.bytes)
    }

    mutating func obsoletePacket(interface: UInt16 = 0, timestamp: UInt64 = 1_000_002, _ data: [UInt8] = packet) {
        var body = CaptureBytes(bigEndian: bigEndian)
        body.u16(interface); body.u16(0); body.u32(UInt32(timestamp >> 32)); body.u32(UInt32(truncatingIfNeeded: timestamp))
        body.u32(UInt32(data.count)); body.u32(UInt32(data.count)); body.raw(data)
        body.raw([UInt8](repeating: 0, count: (4 - data.count % 4) % 4))
        block(2, body.bytes)
    }

    /// Ethernet + IPv4 + UDP 127.0.0.1:1000 → 127.0.0.1:2000, 42 bytes.
    static let packet: [UInt8] = [UInt8](repeating: 0, count: 12) + [0x08, 0x00,
        0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 127, 0, 0, 1, 127, 0, 0, 1,
        0x03, 0xe8, 0x07, 0xd0, 0x00, 0x08, 0x00, 0x00]
}

/// What reading a whole capture gives: the records (copied) and the error that ended it, if any.
private struct ReadResult {
    var records: [(header: PacketHeader, bytes: [UInt8])] = []
    var error: PacketDecodingError?
    var reader: CaptureFileReader?
    var errorText: String? { error?.description }
}

private func readAll(_ bytes: [UInt8]) -> ReadResult {
    var result = ReadResult()
    do {
        let reader = try CaptureFileReader(bytes: bytes)
        result.reader = reader
        while let record = try reader.next() {
            result.records.append((record.header, Array(record.bytes)))
        }
    } catch {
        result.error = error
    }
    return result
}

private func readAll(path: String) -> ReadResult {
    var result = ReadResult()
    do {
        let reader = try CaptureFileReader(path: path)
        result.reader = reader
        while let record = try reader.next() {
            result.records.append((record.header, Array(record.bytes)))
        }
    } catch {
        result.error = error
    }
    return result
}

private func scratchPath(_ name: String) -> String {
    "/tmp/sockctl-capturefile-\(getpid())-\(name)"
}

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

    // MARK: robustness.md §1.4 — file-level errors, libpcap 1.10.3's exact words

    struct Malformed: CustomTestStringConvertible, Sendable {
        var name: String
        var file: [UInt8]
        var recordsBefore: Int
        var message: String
        var phase: PacketDecodingError.Phase
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = {
        var cases: [Malformed] = []
        func add(_ name: String, _ file: [UInt8], _ recordsBefore: Int, _ phase: PacketDecodingError.Phase, _ message: String) {
            cases.append(Malformed(name: name, file: file, recordsBefore: recordsBefore, message: message, phase: phase))
        }
        let header = CaptureBytes.pcap().bytes
        var one = CaptureBytes.pcap()
        one.record()
        // Row 7: magic, file header, version.
        add("empty file", [], 0, .open, "truncated dump file; tried to read 4 file header bytes, only got 0")
        add("three bytes", Array(header.prefix(3)), 0, .open, "truncated dump file; tried to read 4 file header bytes, only got 3")
        add("file header cut at 10", Array(header.prefix(10)), 0, .open, "truncated dump file; tried to read 24 file header bytes, only got 6")
        add("bad magic", [1, 2, 3, 4] + header.dropFirst(4), 0, .open, "unknown file format")
        add("text file", Array("hello, world, this is not a capture\n".utf8), 0, .open, "unknown file format")
        add("version 9.9", CaptureBytes.pcap(major: 9, minor: 9).bytes, 0, .open, "unsupported pcap savefile version 9.9")
        add("version 2.5", CaptureBytes.pcap(minor: 5).bytes, 0, .open, "unsupported pcap savefile version 2.5")
        add("version 1.0", CaptureBytes.pcap(major: 1, minor: 0).bytes, 0, .open, "archaic pcap savefile format")
        // Row 6: record header or data cut short.
        add("record header cut", one.bytes + Array(one.bytes[24..<29]), 1, .record, "truncated dump file; tried to read 16 header bytes, only got 5")
        add("record data cut", one.bytes + Array(one.bytes[24..<60]), 1, .record, "truncated dump file; tried to read 42 captured bytes, only got 20")
        var clamped = CaptureBytes.pcap(snaplen: 30)
        clamped.record()
        add("clamped record cut before snaplen", Array(clamped.bytes.prefix(24 + 16 + 20)), 0, .record, "truncated dump file; tried to read 30 captured bytes, only got 20")
        add("clamped record cut after snaplen", Array(clamped.bytes.prefix(24 + 16 + 35)), 0, .record, "truncated dump file; tried to read 42 captured bytes, only got 35")
        // Row 5: huge caplen in a short file — an error, never an allocation.
        var huge = one
        huge.record(caplen: 0x7FFF_FFFF, Array(CaptureBytes.packet.prefix(8)))
        add("caplen 0x7fffffff", huge.bytes, 1, .record, "invalid packet capture length 2147483647, bigger than snaplen of 262144")
        var big = CaptureBytes.pcap()
        big.record(caplen: 300_000)
        add("caplen 300000", big.bytes, 0, .record, "invalid packet capture length 300000, bigger than snaplen of 262144")
        var bigSmallSnap = CaptureBytes.pcap(snaplen: 100)
        bigSmallSnap.record(caplen: 300_000)
        add("caplen 300000, snaplen 100", bigSmallSnap.bytes, 0, .record, "invalid packet capture length 300000, bigger than snaplen of 100")
        var patched = CaptureBytes.pcap(magic: 0xA1B2_CD34)
        patched.record(caplen: 262_150, Array(CaptureBytes.packet.prefix(8)))
        add("patched format caplen 262150", patched.bytes, 0, .record, "invalid packet capture length 262150, bigger than maximum of 262144")

        // Row 11: pcapng.
        var ok = CaptureBytes.pcapng()
        ok.interface()
        ok.enhancedPacket()
        add("pcapng SHB cut inside its header", Array(CaptureBytes.pcapng().bytes.prefix(10)), 0, .open, "unknown file format")
        add("pcapng SHB cut inside its body", Array(CaptureBytes.pcapng().bytes.prefix(20)), 0, .open, "truncated pcapng dump file; tried to read 16 bytes, only got 8")
        var badOrder = CaptureBytes(); badOrder.u32(0x0A0D_0D0A); badOrder.u32(28); badOrder.u32(0x1122_3344); badOrder.raw([UInt8](repeating: 0, count: 16))
        add("pcapng bad byte-order magic", badOrder.bytes, 0, .open, "unknown file format")
        var shortSection = CaptureBytes(); shortSection.u32(0x0A0D_0D0A); shortSection.u32(20); shortSection.u32(0x1A2B_3C4D); shortSection.raw([UInt8](repeating: 0, count: 12))
        add("pcapng SHB length 20", shortSection.bytes, 0, .open, "Section Header Block in pcapng dump file has invalid length 28 < _20_ < 1048576 (BT_SHB_INSANE_MAX)")
        var hugeSection = shortSection; hugeSection.bytes[4..<8] = [0, 0, 0x20, 0]
        add("pcapng SHB length 2 MiB", hugeSection.bytes, 0, .open, "Section Header Block in pcapng dump file has invalid length 28 < _2097152_ < 1048576 (BT_SHB_INSANE_MAX)")
        add("pcapng version 2.0", CaptureBytes.pcapng(major: 2).bytes, 0, .open, "unsupported pcapng savefile version 2.0")
        add("pcapng version 1.1", CaptureBytes.pcapng(minor: 1).bytes, 0, .open, "unsupported pcapng savefile version 1.1")
        add("pcapng without IDB", CaptureBytes.pcapng().bytes, 0, .open, "the capture file has no Interface Description Blocks")
        var packetFirst = CaptureBytes.pcapng(); packetFirst.enhancedPacket(); packetFirst.interface()
        add("pcapng packet before IDB", packetFirst.bytes, 0, .open, "the capture file has a packet block before any Interface Description Blocks")
        var shortIDB = CaptureBytes.pcapng(); shortIDB.block(1, [1, 0, 0, 0])
        add("pcapng IDB too short", shortIDB.bytes, 0, .open, "block of type 1 in pcapng dump file is too short")
        var badEnd = CaptureBytes.pcapng(); badEnd.interface(options: badEnd.option(0, [0, 0, 0, 0]))
        add("pcapng opt_endofopt with length", badEnd.bytes, 0, .open, "Interface Description Block has opt_endofopt option with length 4 != 0")
        var badRes = CaptureBytes.pcapng(); badRes.interface(options: badRes.option(9, [9, 0]))
        add("pcapng if_tsresol length 2", badRes.bytes, 0, .open, "Interface Description Block has if_tsresol option with length 2 != 1")
        var twoRes = CaptureBytes.pcapng(); twoRes.interface(options: twoRes.option(9, [6]) + twoRes.option(9, [6]))
        add("pcapng two if_tsresol", twoRes.bytes, 0, .open, "Interface Description Block has more than one if_tsresol option")
        var res20 = CaptureBytes.pcapng(); res20.interface(options: res20.option(9, [20]))
        add("pcapng if_tsresol 10^-20", res20.bytes, 0, .open, "Interface Description Block if_tsresol option resolution 10^-20 is too high")
        var res64 = CaptureBytes.pcapng(); res64.interface(options: res64.option(9, [0x80 | 64]))
        add("pcapng if_tsresol 2^-64", res64.bytes, 0, .open, "Interface Description Block if_tsresol option resolution 2^-64 is too high")
        var badOffset = CaptureBytes.pcapng(); badOffset.interface(options: badOffset.option(14, [1, 0, 0, 0]))
        add("pcapng if_tsoffset length 4", badOffset.bytes, 0, .open, "Interface Description Block has if_tsoffset option with length 4 != 8")
        var cutOption = CaptureBytes.pcapng(); cutOption.interface(options: [2, 0, 16, 0, 0x61, 0x62, 0x63, 0x64])
        add("pcapng option longer than its block", cutOption.bytes, 0, .open, "block of type 1 in pcapng dump file is too short")

        var unknownIf = ok; unknownIf.enhancedPacket(interface: 1)
        add("pcapng EPB interface out of range", unknownIf.bytes, 1, .record, "a packet arrived on interface 1, but there's no Interface Description Block for that interface")
        var notFour = ok; notFour.block(6, [UInt8](repeating: 0, count: 22))
        add("pcapng block length not a multiple of 4", notFour.bytes, 1, .record, "block in pcapng dump file has a length of 34 that is not a multiple of 4")
        var tiny = ok; tiny.u32(6); tiny.u32(8); tiny.raw([UInt8](repeating: 0, count: 20))
        add("pcapng block length 8", tiny.bytes, 1, .record, "block in pcapng dump file has a length of 8 < 12")
        var mismatch = ok; mismatch.block(6, [UInt8](repeating: 0, count: 20), trailer: 40)
        add("pcapng header/trailer mismatch", mismatch.bytes, 1, .record, "block total length in header and trailer don't match")
        var enormous = ok; enormous.u32(6); enormous.u32(0xFFFF_FFF0); enormous.raw([UInt8](repeating: 0, count: 40))
        add("pcapng block length 0xFFFFFFF0", enormous.bytes, 1, .record, "pcapng block size 4294967280 > maximum 16777216")
        var over = ok; over.u32(6); over.u32(17 * 1024 * 1024); over.raw([UInt8](repeating: 0, count: 40))
        add("pcapng block length 17 MiB", over.bytes, 1, .record, "pcapng block size 17825792 > maximum 16777216")
        var caplenBeyond = ok; caplenBeyond.enhancedPacket(caplen: 100)
        add("pcapng EPB caplen beyond its block", caplenBeyond.bytes, 1, .record, "block of type 6 in pcapng dump file is too short")
        var shortEPB = ok; shortEPB.block(6, [UInt8](repeating: 0, count: 8))
        add("pcapng EPB too short", shortEPB.bytes, 1, .record, "block of type 6 in pcapng dump file is too short")
        var aboveSnap = CaptureBytes.pcapng(); aboveSnap.interface(snaplen: 30); aboveSnap.enhancedPacket()
        add("pcapng EPB caplen above snaplen", aboveSnap.bytes, 0, .record, "invalid packet capture length 42, bigger than snaplen of 30")
        var shortSPB = ok; shortSPB.simplePacket(len: 100)
        add("pcapng SPB longer than its block", shortSPB.bytes, 1, .record, "block of type 3 in pcapng dump file is too short")
        var cutHeader = ok; cutHeader.raw(Array(ok.bytes[48..<53]))
        add("pcapng block header cut", cutHeader.bytes, 1, .record, "truncated pcapng dump file; tried to read 8 bytes, only got 5")
        var cutBody = ok; cutBody.raw(Array(ok.bytes[48..<78]))
        add("pcapng block body cut", cutBody.bytes, 1, .record, "truncated pcapng dump file; tried to read 68 bytes, only got 22")
        var noIDB = ok; noIDB.section(); noIDB.enhancedPacket()
        add("pcapng second section without IDB", noIDB.bytes, 1, .record, "a packet arrived on interface 0, but there's no Interface Description Block for that interface")
        var badMagic2 = ok; badMagic2.section(byteOrderMagic: 0x1111_1111)
        add("pcapng second section bad byte-order magic", badMagic2.bytes, 1, .record, "the file has a section with a bad byte order magic field")
        var flipped = ok; flipped.section(byteOrderMagic: 0x4D3C_2B1A)
        add("pcapng second section other byte order", flipped.bytes, 1, .record, "the file has sections with different byte orders")
        var v2 = ok; v2.section(major: 2)
        add("pcapng second section version 2", v2.bytes, 1, .record, "unknown pcapng savefile major version number 2")
        var swappedSection = ok
        var bigEndian = CaptureBytes.pcapng(bigEndian: true); bigEndian.interface(); bigEndian.enhancedPacket()
        swappedSection.raw(bigEndian.bytes)
        add("pcapng big-endian section after a little-endian one", swappedSection.bytes, 1, .record, "pcapng block size 469762048 > maximum 16777216")
        var shortSHB2 = ok; shortSHB2.block(0x0A0D_0D0A, [0x4D, 0x3C, 0x2B, 0x1A])
        add("pcapng second SHB too short", shortSHB2.bytes, 1, .record, "block of type 168627466 in pcapng dump file is too short")
        return cases
    }()

    /// Every case was checked against `tcpdump -n -r` (4.99.3 / libpcap 1.10.3) on a file with the
    /// same bytes: same number of packets printed, same message.
    @Test(arguments: malformed)
    func malformedFileEndsWithLibpcapsMessage(_ example: Malformed) throws {
        let result = readAll(example.file)
        #expect(result.records.count == example.recordsBefore)
        let error = try #require(result.error)
        #expect(error.description == example.message)
        #expect(error.phase == example.phase)
    }

    @Test func errorIsStickyAfterTheFirstFailure() throws {
        var file = CaptureBytes.pcap()
        file.record()
        file.raw([1, 2, 3])
        let reader = try CaptureFileReader(bytes: file.bytes)
        #expect(try reader.next() != nil)
        for _ in 0..<2 {
            #expect(throws: PacketDecodingError.self) { _ = try reader.next() }
        }
    }

    @Test(arguments: ["pcap", "pcapng"])
    func fileCutAtEveryOffsetGivesItsWholeRecordsThenEndOrAnError(format: String) {
        var file: CaptureBytes
        var boundaries: [Int]  // file length after each complete record
        var firstInterfaceEnd = -1  // pcapng: a file may also end cleanly after its first IDB
        if format == "pcap" {
            file = CaptureBytes.pcap(bigEndian: true, snaplen: 40)
            boundaries = [24]
            for index in 0..<4 {
                file.record(seconds: UInt32(index), Array(CaptureBytes.packet.prefix(10 + 10 * index)))
                boundaries.append(file.bytes.count)
            }
        } else {
            file = CaptureBytes.pcapng()
            file.interface(options: file.option(9, [9]) + file.option(2, Array("lo".utf8)) + file.option(0, []))
            firstInterfaceEnd = file.bytes.count
            file.interface(linkType: 101)
            boundaries = [file.bytes.count]
            file.enhancedPacket(interface: 1, Array(CaptureBytes.packet.prefix(13)))
            boundaries.append(file.bytes.count)
            file.simplePacket()
            boundaries.append(file.bytes.count)
            file.block(0x1234, [1, 2, 3, 4, 5, 6, 7, 8])
            file.obsoletePacket(Array(CaptureBytes.packet.prefix(3)))
            boundaries.append(file.bytes.count)
        }
        let full = readAll(file.bytes)
        #expect(full.error == nil)
        #expect(full.records.count == boundaries.count - 1)
        for length in 0...file.bytes.count {
            let prefix = readAll(Array(file.bytes.prefix(length)))
            let complete = boundaries.filter { $0 <= length }.count - 1
            #expect(prefix.records.count == max(complete, 0), "cut at \(length)")
            for (index, record) in prefix.records.enumerated() {
                #expect(record.header == full.records[index].header && record.bytes == full.records[index].bytes)
            }
            let afterUnknownBlock = format == "pcapng" && length == boundaries[2] + 20
            let endsCleanly = boundaries.contains(length) || length == firstInterfaceEnd || afterUnknownBlock
            #expect((prefix.error == nil) == endsCleanly, "cut at \(length): \(prefix.errorText ?? "no error")")
        }
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
