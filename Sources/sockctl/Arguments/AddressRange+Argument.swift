import ArgumentParser
import SocketEngine

/// `--allow` and `--deny`: `10.0.0.0/8`, `192.168.1.7`, `fd00::/8`, read by the engine's
/// ``AddressRange/init(parsing:)``.
extension AddressRange: ExpressibleByArgument {
    public init?(argument: String) {
        guard let range = try? AddressRange(parsing: argument) else { return nil }
        self = range
    }
}
