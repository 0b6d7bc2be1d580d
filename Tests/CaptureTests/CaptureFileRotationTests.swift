import Capture
import Foundation
@testable import PacketDecoding
import TestSupport
import Testing

import Glibc

/// Rotated files in memory, the time set by the test: each file is whole on its own (its own
/// header; pcapng: its own section and interface blocks and the key log so far), and the
/// finished-file command runs on each closed file.
@Suite(.hangGuard) struct CaptureFileRotationTests {
    final class Files {
        var contents: [String: [UInt8]] = [:]
        var order: [String] = []
        var closed: [String] = []
        var time: Int64 = 1_000

        func open(pcapng: Bool) -> (String) throws(CaptureError) -> CaptureFileOutput {
            { name throws(CaptureError) in
                self.contents[name] = []
                self.order.append(name)
                return try CaptureFileOutput(
                    name: name, linkType: .ethernet, snapshotLength: 0, nanoseconds: true, pcapng: pcapng,
                    write: { self.contents[name, default: []] += $0 }, close: { self.closed.append(name) })
            }
        }
    }

    static func header(_ seconds: Int64) -> PacketHeader {
        PacketHeader(seconds: seconds, fraction: 0, precision: .nanoseconds, capturedLength: 100, originalLength: 100, linkType: .ethernet)
    }

    @Test(arguments: [false, true])
    func everyFileReadsOnItsOwn(pcapng: Bool) throws {
        let files = Files()
        let schedule = CaptureFileSchedule(pattern: "r", fileSize: 1_000_000, seconds: nil, fileCount: 3, now: files.time)
        let rotation = try CaptureFileRotation(schedule: schedule, command: nil, now: { files.time }, open: files.open(pcapng: pcapng))
        let secrets = Array("CLIENT_RANDOM 00 11\n".utf8)
        try rotation.writeDecryptionSecrets(secrets)
        let payload = [UInt8](repeating: 0xAB, count: 100)
        for index in 0..<40_000 {
            let written = try payload.withUnsafeBytes { try rotation.write(Self.header(Int64(index)), $0) }
            #expect(written)
        }
        try rotation.finish()
        // 40,000 records of 116 (pcap) or 132 (pcapng) bytes: 4.6 or 5.3 MB, the ring reused.
        #expect(files.order.prefix(4) == ["r0", "r1", "r2", "r0"])
        #expect(Set(files.contents.keys) == ["r0", "r1", "r2"])
        #expect(files.closed.count == files.order.count)
        var total = 0
        for name in ["r0", "r1", "r2"] {
            let bytes = try #require(files.contents[name])
            let reader = try CaptureFileReader(bytes: bytes)
            #expect(reader.format == (pcapng ? .pcapng : .pcap))
            var count = 0
            var last: Int64 = -1
            while let record = try reader.next() {
                #expect(record.header.seconds > last, "records in order")
                last = record.header.seconds
                count += 1
            }
            total += count
            if name != files.order.last {
                #expect(bytes.count > 1_000_000 && bytes.count < 1_000_200, "\(name): one record past the size")
            }
            #expect(reader.takeDecryptionSecrets() == (pcapng ? secrets : nil), "\(name) carries the key log")
        }
        #expect(total < 40_000, "the ring dropped the oldest files")
    }

    @Test func theCommandRunsOnEachFinishedFileNotTheLast() async throws {
        let scratch = try Scratch()
        var time: Int64 = 0
        let schedule = CaptureFileSchedule(pattern: scratch.path("g-%s.pcap"), fileSize: nil, seconds: 2, fileCount: 3, now: time)
        let rotation = try CaptureFileRotation(schedule: schedule, command: FinishedFileCommand(command: "gzip"), now: { time }) { name throws(CaptureError) in
            guard let file = fopen(name, "w") else { throw CaptureError(.writeFailed, name) }
            return try CaptureFileOutput(
                name: name, linkType: .ethernet, snapshotLength: 0, nanoseconds: false,
                write: { chunk in _ = chunk.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) } }, close: { fclose(file) })
        }
        let payload = [UInt8](repeating: 1, count: 60)
        var written = 0
        for second in Int64(0)..<20 {
            time = second
            guard try payload.withUnsafeBytes({ try rotation.write(Self.header(second), $0) }) else { break }
            written += 1
        }
        try rotation.finish()
        #expect(written == 6, "two packets in each of three 2-second files, then the stop")
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(names == ["g-0.pcap.gz", "g-2.pcap.gz", "g-4.pcap.gz"])
        for name in names {
            let unzipped = try await run(try tool("gzip"), ["-dc", scratch.path(name)])
            let reader = try CaptureFileReader(bytes: Array(unzipped.stdout))
            var count = 0
            while try reader.next() != nil { count += 1 }
            #expect(count == 2)
        }
    }

    @Test func aCommandThatCannotStartIsAWarning() throws {
        let files = Files()
        let schedule = CaptureFileSchedule(pattern: "f", fileSize: 1_000_000, seconds: nil, fileCount: nil, now: 0)
        let rotation = try CaptureFileRotation(
            schedule: schedule, command: FinishedFileCommand(command: "/nonexistent/sockctl-no-such-command"), now: { 0 }, open: files.open(pcapng: false))
        var warnings: [String] = []
        let payload = [UInt8](repeating: 0, count: 1000)
        for _ in 0..<2000 {
            _ = try payload.withUnsafeBytes { try rotation.write(Self.header(0), $0) { warnings.append($0.description) } }
        }
        try rotation.finish()
        #expect(files.order == ["f", "f1", "f2"])
        #expect(warnings == [
            "cannot run '/nonexistent/sockctl-no-such-command f': No such file or directory",
            "cannot run '/nonexistent/sockctl-no-such-command f1': No such file or directory",
        ])
    }
}
