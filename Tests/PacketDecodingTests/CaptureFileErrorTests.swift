import Foundation
import Testing
@testable import PacketDecoding
import TestSupport

/// Files libpcap refuses: each is refused with libpcap 1.10.3's exact words, after the records
/// before the fault.
@Suite(.hangGuard) struct CaptureFileErrorTests {
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
}
