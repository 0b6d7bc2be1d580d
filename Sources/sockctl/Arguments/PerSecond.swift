import ArgumentParser

/// A rate on the command line: `2000` or `2000/s`, from 0 to a billion per second.
struct PerSecond: ExpressibleByArgument, Sendable, Equatable {
    let value: Double

    init(_ value: Double) {
        self.value = value
    }

    init?(argument: String) {
        let digits = argument.hasSuffix("/s") ? String(argument.dropLast(2)) : argument
        guard let value = Double(digits), value.isFinite, value >= 0, value <= 1e9 else { return nil }
        self.value = value
    }

    var defaultValueDescription: String {
        value == value.rounded() ? "\(Int(value))/s" : "\(value)/s"
    }
}
