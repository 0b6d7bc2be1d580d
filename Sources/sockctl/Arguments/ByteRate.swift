import ArgumentParser
import SocketEngine

/// Bytes a second on the command line: `500`, `500/s`, `500B/s`, `4KiB/s`, `1MiB/s` (the sizes of
/// ``ByteSize``, with or without `/s`); `0` is allowed (the option says what it means). Shown
/// back as `500B/s`, `4KiB/s`.
struct ByteRate: ExpressibleByArgument, Sendable, Equatable, CustomStringConvertible {
    let bytesPerSecond: Int

    init(bytesPerSecond: Int) {
        self.bytesPerSecond = bytesPerSecond
    }

    init?(argument: String) {
        let size = argument.hasSuffix("/s") ? String(argument.dropLast(2)) : argument
        guard let bytes = ByteSize(argument: size) else { return nil }
        bytesPerSecond = bytes.bytes
    }

    var description: String {
        let size = ByteSize(bytes: bytesPerSecond).description
        return size.allSatisfy(\.isNumber) ? "\(size)B/s" : "\(size)/s"
    }

    var defaultValueDescription: String { description }
}
