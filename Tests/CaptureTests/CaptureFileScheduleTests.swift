import Capture
import Foundation
@testable import PacketDecoding
import TestSupport
import Testing

import Glibc

/// tcpdump 4.99.3's -C, -G and -W decisions (`dump_packet_and_trunc`, `MakeFilename`) in
/// virtual time: the clock is a number the test sets, so no test waits for a second to pass.
@Suite(.hangGuard) struct CaptureFileScheduleTests {
    /// Packets of `size` bytes (record header included) at the given times; the names written
    /// to, in order, and the decisions that were not `.write`.
    static func play(_ schedule: inout CaptureFileSchedule, times: [Int64], recordSize: Int64 = 1000, headerSize: Int64 = 24)
        -> (files: [String], events: [CaptureFileSchedule.Decision])
    {
        var files = [schedule.currentName]
        var events: [CaptureFileSchedule.Decision] = []
        var bytes = headerSize
        for time in times {
            let decision = schedule.beforePacket(now: time, fileBytes: bytes)
            switch decision {
            case .write: break
            case .rotate(_, let next):
                files.append(next)
                bytes = headerSize
                events.append(decision)
            case .stop:
                events.append(decision)
                return (files, events)
            }
            bytes += recordSize
        }
        return (files, events)
    }

    @Test func sizeWithoutCountNumbersFilesFromOne() {
        // -C 1: more than 1,000,000 bytes before a packet → the next file: NAME, NAME1, NAME2…
        var schedule = CaptureFileSchedule(pattern: "out.pcap", fileSize: 1_000_000, seconds: nil, fileCount: nil, now: 0)
        let played = Self.play(&schedule, times: Array(repeating: 0, count: 3500))
        #expect(played.files == ["out.pcap", "out.pcap1", "out.pcap2", "out.pcap3"])
        // 24 + 1000 × 1000 = 1,000,024 > 1,000,000 after 1000 packets: the 1001st starts file 1.
        #expect(played.events.first == .rotate(finished: "out.pcap", next: "out.pcap1"))
    }

    @Test func sizeBoundaryIsStrictlyMore() {
        var schedule = CaptureFileSchedule(pattern: "f", fileSize: 1_000_000, seconds: nil, fileCount: nil, now: 0)
        #expect(schedule.beforePacket(now: 0, fileBytes: 1_000_000) == .write)
        #expect(schedule.beforePacket(now: 0, fileBytes: 1_000_001) == .rotate(finished: "f", next: "f1"))
    }

    @Test(arguments: [
        (1, ["ring", "ring", "ring"]),  // WflagChars 0: one file, overwritten
        (2, ["ring0", "ring1", "ring0", "ring1", "ring0"]),
        (10, ["ring0", "ring1", "ring2"]),
        (11, ["ring00", "ring01", "ring02"]),
        (101, ["ring000", "ring001", "ring002"]),
    ])
    func sizeWithCountIsARingWithZeroPaddedNumbers(count: Int, expected: [String]) {
        var schedule = CaptureFileSchedule(pattern: "ring", fileSize: 1_000_000, seconds: nil, fileCount: count, now: 0)
        var names = [schedule.currentName]
        while names.count < expected.count {
            if case .rotate(_, let next) = schedule.beforePacket(now: 0, fileBytes: 2_000_000) { names.append(next) }
        }
        #expect(names == expected)
    }

    @Test func timeNamesAreStrftimePatternsAndSwitchAtTheFirstPacketAfterThePeriod() {
        // -G 2 -w 'g-%s.pcap': %s is the epoch second, whatever the time zone.
        var schedule = CaptureFileSchedule(pattern: "g-%s.pcap", fileSize: nil, seconds: 2, fileCount: nil, now: 1_700_000_000)
        #expect(schedule.currentName == "g-1700000000.pcap")
        #expect(schedule.beforePacket(now: 1_700_000_001, fileBytes: 24) == .write)
        #expect(schedule.beforePacket(now: 1_700_000_002, fileBytes: 99) == .rotate(finished: "g-1700000000.pcap", next: "g-1700000002.pcap"))
        // A quiet period switches nothing: the next packet, 7 s later, starts one new file named
        // after its own arrival, and the period counts from there.
        #expect(schedule.beforePacket(now: 1_700_000_009, fileBytes: 99) == .rotate(finished: "g-1700000002.pcap", next: "g-1700000009.pcap"))
        #expect(schedule.beforePacket(now: 1_700_000_010, fileBytes: 99) == .write)
        #expect(schedule.beforePacket(now: 1_700_000_011, fileBytes: 99) == .rotate(finished: "g-1700000009.pcap", next: "g-1700000011.pcap"))
    }

    @Test func timeWithCountStopsAfterCountFiles() {
        // -G 2 -W 3: the third switch closes the third file and stops; that packet is not written.
        var schedule = CaptureFileSchedule(pattern: "g-%s", fileSize: nil, seconds: 2, fileCount: 3, now: 100)
        let played = Self.play(&schedule, times: Array(stride(from: Int64(100), to: 120, by: 1)))
        #expect(played.files == ["g-100", "g-102", "g-104"])
        #expect(played.events.last == .stop(finished: "g-104"))
        #expect(played.events.count == 3)
    }

    @Test func timeAndSizeNumberWithinEachPeriodAndTimeWins() {
        // -G 10 -C 1 -W 3: numbered 0-2 within a period, the period's strftime name, back to 0
        // at each time switch; -W does not stop the capture when -C is given.
        var schedule = CaptureFileSchedule(pattern: "t%s-", fileSize: 1_000_000, seconds: 10, fileCount: 3, now: 50)
        #expect(schedule.currentName == "t50-0")
        #expect(schedule.beforePacket(now: 51, fileBytes: 1_500_000) == .rotate(finished: "t50-0", next: "t50-1"))
        #expect(schedule.beforePacket(now: 52, fileBytes: 1_500_000) == .rotate(finished: "t50-1", next: "t50-2"))
        #expect(schedule.beforePacket(now: 53, fileBytes: 1_500_000) == .rotate(finished: "t50-2", next: "t50-0"))
        // Both due on one packet: the time switch alone.
        #expect(schedule.beforePacket(now: 60, fileBytes: 1_500_000) == .rotate(finished: "t50-0", next: "t60-0"))
        #expect(schedule.beforePacket(now: 61, fileBytes: 100) == .write)
        for time in Int64(70)...Int64(200) where time % 10 == 0 {
            guard case .rotate = schedule.beforePacket(now: time, fileBytes: 100) else {
                Issue.record("with -C, -W never stops the capture")
                return
            }
        }
    }

    @Test func withoutSizeOrTimeNothingRotates() {
        var schedule = CaptureFileSchedule(pattern: "plain.pcap", fileSize: nil, seconds: nil, fileCount: nil, now: 0)
        #expect(!schedule.rotates)
        #expect(schedule.currentName == "plain.pcap")
        #expect(schedule.beforePacket(now: 1 << 40, fileBytes: 1 << 50) == .write)
    }
}
