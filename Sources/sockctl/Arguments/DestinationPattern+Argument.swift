import ArgumentParser
import SocketEngine

/// `--allow-destination` and `--deny-destination`: `10.0.0.0/8`, `example.com:443`, `*.internal`,
/// read by the engine's ``DestinationPattern/init(parsing:)``.
extension DestinationPattern: ExpressibleByArgument {
    public init?(argument: String) {
        guard let pattern = try? DestinationPattern(parsing: argument) else { return nil }
        self = pattern
    }
}
