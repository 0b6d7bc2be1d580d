import Foundation
import TestSupport
@testable import PacketDecoding

/// Prints every byte prefix of a capture file through the views (every length in the first
/// 4 KiB, then every 61st: a 20 KB file would print 200 M bytes), each record also cut in half:
/// the cut record is refused by the reader, each prefix's records go through one printer
/// (streams, HPACK tables and all). Returns the first prefix whose output does not end in a
/// newline, nil when every one prints; a trap fails the test run.
func firstPrefixThatDoesNotPrint(_ bytes: [UInt8], name: String) async -> String? {
    await onOwnThread { () -> String? in
        for length in 0...bytes.count where length <= 4096 || length % 61 == 0 || length == bytes.count {
            guard let reader = try? CaptureFileReader(bytes: Array(bytes.prefix(length))) else { continue }
            var printer = PacketPrinter(options: PrintOptions(dump: .none, timestamps: .none, views: .all))
            var out: [UInt8] = []
            while let record = try? reader.next() {
                let count = min(record.bytes.count, record.header.capturedLength)
                var header = record.header
                for cut in [count / 2, count] {
                    header.capturedLength = cut
                    printer.print(header, UnsafeRawBufferPointer(rebasing: record.bytes[0..<cut]), into: &out)
                }
            }
            if !out.isEmpty && out.last != 0x0A { return "\(name) cut at \(length): output does not end in a newline" }
        }
        return nil
    }
}
