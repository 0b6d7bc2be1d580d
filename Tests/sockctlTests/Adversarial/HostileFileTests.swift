import Foundation
import TestSupport
import Testing

/// The adversarial suite, files: capture files made to break a reader, fed to every command that
/// reads one (`capture -r`, `replay --list`, `replay` towards a live echo, `loadtest
/// --from-pcap`). Each ends with the packets it could read printed or replayed and a one-line
/// error or warning — exit status 0, 1 or 2, never a Swift trap (status 132/133), a signal or a
/// hang.
/// The decoder's own every-prefix and mutation checks run in PacketDecodingTests and under the
/// fuzzer (`make fuzz`).
@Suite("adversarial: hostile files", .hangGuard)
struct HostileFileTests {
    /// A real capture of a TCP exchange on lo (tcpdump's own file).
    static let real = [UInt8]((try? Data(contentsOf: GoldenCase.directory.appendingPathComponent("live-lo-tcp4.pcap"))) ?? Data())

    static func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    /// A file that lies: its name says how.
    struct HostileFile: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        var testDescription: String { name }
    }

    /// Files that lie: their name says how.
    static var hostile: [HostileFile] {
        let header = Array(real.prefix(24))
        let firstRecord = Array(real[24..<min(real.count, 40)])
        var cases: [(String, [UInt8])] = [
            ("empty", []),
            ("a cut file header", Array(real.prefix(13))),
            ("a bad magic", [0xDE, 0xAD, 0xBE, 0xEF] + Array(real.dropFirst(4))),
            ("a record of 2 GiB in a short file", header + Array(firstRecord.prefix(8)) + le32(0x7FFF_FFFF) + le32(0x7FFF_FFFF) + [1, 2, 3]),
            ("caplen above len", header + Array(firstRecord.prefix(8)) + le32(60) + le32(20) + [UInt8](repeating: 0, count: 60)),
            ("caplen zero", header + Array(firstRecord.prefix(8)) + le32(0) + le32(0)),
            ("a snapshot length of 0", Array(header.prefix(16)) + le32(0) + Array(header[20..<24]) + Array(real.dropFirst(24))),
            ("an unknown link type", Array(header.prefix(20)) + le32(0xBEEF) + Array(real.dropFirst(24))),
            ("a pcapng block of 4 GiB", [0x0A, 0x0D, 0x0D, 0x0A] + le32(0xFFFF_FFF0) + [0x4D, 0x3C, 0x2B, 0x1A] + [UInt8](repeating: 0, count: 20)),
        ]
        // The real file cut inside each of its records, and at every record boundary.
        for cut in stride(from: 30, to: real.count, by: 97) { cases.append(("the file cut at byte \(cut)", Array(real.prefix(cut)))) }
        return cases.map { HostileFile(name: $0.0, bytes: $0.1) }
    }

    static func write(_ bytes: [UInt8], in scratch: Scratch, _ name: String) throws -> String {
        let path = scratch.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Exit 0 (read what could be read, perhaps with a warning), 1 (the file failed) or 2 (the
    /// file given to an option is unusable), and a failure's last line says so in sockctl's name.
    static func expectCleanEnd(_ result: (status: Int32, stdout: Data, stderr: String), _ what: String) {
        #expect((0...2).contains(result.status), "\(what): exit \(result.status): \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"), "\(what): \(result.stderr)")
        if result.status != 0 {
            let last = result.stderr.split(separator: "\n").last ?? ""
            #expect(last.hasPrefix("sockctl "), "\(what): a failure says why: \(result.stderr)")
        }
    }

    @Test(arguments: hostile)
    func everyReaderEndsCleanly(on file: HostileFile) async throws {
        #expect(Self.real.count > 200, "the real capture is there")
        let scratch = try Scratch()
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k"], name: "echo")
        let port = try await echo.listeningPort()
        let path = try Self.write(file.bytes, in: scratch, "hostile.pcap")
        let what = file.name
        Self.expectCleanEnd(try await run(try sockctlPath(), ["capture", "-r", path]), "capture -r (\(what))")
        Self.expectCleanEnd(try await run(try sockctlPath(), ["replay", path, "--list"]), "replay --list (\(what))")
        Self.expectCleanEnd(try await run(try sockctlPath(), ["replay", path, "127.0.0.1:\(port)", "--topspeed"]), "replay (\(what))")
        Self.expectCleanEnd(
            try await run(try sockctlPath(), ["loadtest", "127.0.0.1:\(port)", "--from-pcap", path, "--requests", "10"]),
            "loadtest --from-pcap (\(what))")
        echo.signal(SIGINT)
        #expect(try await echo.wait() == 0)
    }
}
