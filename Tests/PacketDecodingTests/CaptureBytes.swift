import Foundation
import Testing
@testable import PacketDecoding
import TestSupport

/// Capture files built byte by byte, in either byte order.
struct CaptureBytes {
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
struct ReadResult {
    var records: [(header: PacketHeader, bytes: [UInt8])] = []
    var error: PacketDecodingError?
    var reader: CaptureFileReader?
    var errorText: String? { error?.description }
}

func readAll(_ bytes: [UInt8]) -> ReadResult {
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

func readAll(path: String) -> ReadResult {
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

func scratchPath(_ name: String) -> String {
    "/tmp/sockctl-capturefile-\(getpid())-\(name)"
}
