/// Timestamp resolution of a capture file's records.
public enum TimestampPrecision: Sendable, Equatable {
    case microseconds
    case nanoseconds
}
