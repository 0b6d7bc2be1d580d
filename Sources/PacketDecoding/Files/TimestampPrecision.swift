/// Timestamp resolution of a capture file's records.
public enum TimestampPrecision: Sendable, Equatable {
    case microseconds
    case nanoseconds
}

extension TimestampPrecision {
    /// A record's sub-second `fraction`, given in `source` precision, in this one: µs → ns
    /// multiplies, ns → µs truncates; a fraction of 1 s or more is converted as given, not an
    /// error. Shared by the pcap and pcapng writers.
    package func fraction(_ fraction: UInt32, from source: TimestampPrecision) -> UInt64 {
        switch (source, self) {
        case (.microseconds, .nanoseconds): UInt64(fraction) * 1000
        case (.nanoseconds, .microseconds): UInt64(fraction) / 1000
        default: UInt64(fraction)
        }
    }
}
