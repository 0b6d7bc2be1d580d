import Glibc

/// When a long capture switches files, what the next file is called and when it stops: the
/// rules of tcpdump 4.99.3's `-C`, `-G` and `-W` (its `dump_packet_and_trunc` and
/// `MakeFilename`), with the time given by the caller.
///
/// ```
/// var schedule = CaptureFileSchedule(pattern: "trace-%H%M%S.pcap", fileSize: nil, seconds: 60, fileCount: 3, now: time)
/// open(schedule.currentName)
/// // before each packet is written:
/// switch schedule.beforePacket(now: time, fileBytes: bytesWrittenToTheCurrentFile) { … }
/// ```
///
/// - Time (`seconds`, tcpdump's `-G`): the name is an `strftime(3)` pattern, expanded in local
///   time at the start and at each switch. The check is made when a packet arrives, as tcpdump
///   makes it: the first packet `seconds` or more after the current file began switches files
///   (a quiet period switches nothing). With `fileCount` and no `fileSize`, the `fileCount`-th
///   switch stops the capture instead (the packet is not written): `fileCount` files in all.
/// - Size (`fileSize` in bytes, tcpdump's `-C` × 1,000,000): before writing a packet, if the
///   current file already holds more than `fileSize` bytes, the next file is opened: the name
///   followed by 1, 2, 3 … (the first file has the name as given). With `fileCount` the numbers
///   go round, 0 … `fileCount`−1, zero-padded to the width of `fileCount`−1 (a ring: the first
///   file is NAME0 and is overwritten after the last one). A time switch starts the numbering
///   again at 0 and wins when both fall on the same packet.
///
/// Not checked here (the caller's job): `fileSize` and `seconds` positive, `fileCount` at least 1.
public struct CaptureFileSchedule: Sendable, Equatable {
    /// What happens before a packet is written.
    public enum Decision: Sendable, Equatable {
        /// Write it to the current file.
        case write
        /// Close `finished` (run `-z` on it), open `next` (truncated) and write the packet there.
        case rotate(finished: String, next: String)
        /// Close `finished` (run `-z` on it) and stop without writing the packet: the file limit
        /// is reached.
        case stop(finished: String)
    }

    /// The file name as given: an `strftime` pattern when ``seconds`` is set.
    public let pattern: String
    /// Bytes after which the next packet goes to a new file (tcpdump's `-C` in bytes).
    public let fileSize: Int64?
    /// Seconds after which the next packet goes to a new file (`-G`).
    public let seconds: Int64?
    /// The ring size with ``fileSize``, else the number of time periods before stopping (`-W`).
    public let fileCount: Int?
    /// The file packets are written to now.
    public private(set) var currentName: String

    /// When the current time period began (tcpdump's `Gflag_time`).
    private var periodStart: Int64
    /// Time periods finished (`Gflag_count`).
    private var periods = 0
    /// The current file's number in the size sequence (`Cflag_count`).
    private var sizeIndex = 0
    /// Digits of the ring numbers (`WflagChars`): those of `fileCount - 1`.
    private let digits: Int

    /// The schedule of a capture starting at `now` (seconds since the epoch; tcpdump reads
    /// `time(NULL)` when it parses `-G`).
    public init(pattern: String, fileSize: Int64?, seconds: Int64?, fileCount: Int?, now: Int64) {
        self.pattern = pattern
        self.fileSize = fileSize
        self.seconds = seconds
        self.fileCount = fileCount
        periodStart = now
        var count = (fileCount ?? 0) - 1
        var digits = 0
        while count > 0 {
            digits += 1
            count /= 10
        }
        self.digits = digits
        currentName = ""
        currentName = Self.name(pattern, time: seconds == nil ? nil : now, number: 0, digits: fileSize == nil ? 0 : digits)
    }

    /// Whether files are switched at all (a size or a time was given).
    public var rotates: Bool { fileSize != nil || seconds != nil }

    /// Decides, before a packet is written at `now`, whether it goes to the current file
    /// (holding `fileBytes` bytes so far, buffered ones included), to a new one, or nowhere.
    public mutating func beforePacket(now: Int64, fileBytes: Int64) -> Decision {
        if let seconds, now &- periodStart >= seconds {
            periodStart = now
            periods += 1
            let finished = currentName
            if fileSize == nil, let fileCount, periods >= fileCount {
                return .stop(finished: finished)
            }
            sizeIndex = 0
            currentName = Self.name(pattern, time: now, number: 0, digits: fileSize == nil ? 0 : digits)
            // The new file holds only its header: the size rule cannot apply to this packet.
            return .rotate(finished: finished, next: currentName)
        }
        if let fileSize, fileBytes > fileSize {
            let finished = currentName
            sizeIndex += 1
            if let fileCount, sizeIndex >= fileCount { sizeIndex = 0 }
            currentName = Self.name(pattern, time: seconds == nil ? nil : periodStart, number: sizeIndex, digits: digits)
            return .rotate(finished: finished, next: currentName)
        }
        return .write
    }

    /// tcpdump's `MakeFilename`: the pattern through `strftime` (local time) when `time` is
    /// given, then the number, zero-padded to `digits`, unless both are 0.
    static func name(_ pattern: String, time: Int64?, number: Int, digits: Int) -> String {
        var base = pattern
        if let time {
            var seconds = time_t(time)
            var broken = tm()
            if localtime_r(&seconds, &broken) != nil {
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let count = buffer.withUnsafeMutableBufferPointer { raw -> Int in
                    guard let start = raw.baseAddress else { return 0 }
                    return strftime(start, Int(PATH_MAX), pattern, &broken)
                }
                base = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        if number == 0 && digits == 0 { return base }
        let text = String(number)
        return base + String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
