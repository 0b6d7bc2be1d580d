import ArgumentParser
import SocketEngine

/// A size on the command line: `1048576`, `64k`, `64KiB`, `16M`, `16MiB`, `1G` (multiples of
/// 1024; `b` and the `kb`/`mb`/`gb` spellings are accepted too). Shown back in the largest unit
/// that divides it: `16MiB`. Ranges are checked by the option that takes it.
struct ByteSize: ExpressibleByArgument, Sendable, Equatable, CustomStringConvertible {
    let bytes: Int

    init(bytes: Int) {
        self.bytes = bytes
    }

    static func mebibytes(_ count: Int) -> ByteSize { ByteSize(bytes: count << 20) }

    init?(argument: String) {
        guard let bytes = ByteCount.parse(argument) else { return nil }
        self.bytes = bytes
    }

    var description: String { ByteCount.format(bytes) }

    var defaultValueDescription: String { description }

    /// The size, or a usage error naming `option` when it is outside `range`.
    func checked(_ option: String, within range: ClosedRange<Int>) throws -> Int {
        guard range.contains(bytes) else {
            throw UsageError("\(option) \(self) is out of range (\(range.lowerBound)-\(range.upperBound) bytes)")
        }
        return bytes
    }
}
