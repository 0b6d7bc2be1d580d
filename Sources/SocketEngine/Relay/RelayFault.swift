/// One fault a relay injects into the traffic it forwards (`proxy --fault`, the control
/// socket's `add`), on one or both directions, for a share of the clients.
///
/// The specification is a kind with its value, then `key=value` settings, comma-separated:
///
/// ```
/// latency=50ms[,jitter=20ms]          hold every chunk or message this long (± jitter), in order
/// bandwidth=64KiB/s                   forward at most this many bytes per second
/// slice=16[,delay=10ms]               cut the byte stream into pieces of 16 bytes, delay between
/// stall=5s,every=64KiB|100msg|30s     hold the traffic 5 s after every 64 KiB, 100 messages or 30 s
/// timeout[=10s]                       forward nothing more; close after 10 s (never without a time)
/// reset-after=10KiB|5msg|3s           reset (RST) both sides after 10 KiB, 5 messages or 3 s
/// limit=1MiB                          forward 1 MiB, then close both sides
/// drop=2%                             drop 2 % of the messages (UDP datagrams, WebSocket messages,
///                                     or --framing messages)
/// close-after-messages=10             close both sides after 10 messages
/// ```
///
/// Every kind takes `dir=up|down|both` (towards the upstream, back to the client, or both; the
/// default is both) and `p=50%` (the share of clients it applies to, decided once per client;
/// the default is every client).
public struct RelayFault: Sendable, Equatable, CustomStringConvertible {
    /// When a periodic or one-off fault acts.
    public enum Trigger: Sendable, Equatable, CustomStringConvertible {
        /// After this many bytes forwarded in the direction.
        case bytes(Int)
        /// After this many messages (chunks without `--framing`) forwarded in the direction.
        case messages(Int)
        /// After this much time: since the client connected, or since the last stall.
        case time(Duration)

        /// The trigger as written: `64KiB`, `100msg`, `30s`.
        public var description: String {
            switch self {
            case .bytes(let count): return ByteCount.format(count)
            case .messages(let count): return "\(count)msg"
            case .time(let duration):
                // Whole minutes show as `2m`, which a trigger reads as 2 MiB: seconds instead.
                let text = duration.formatted
                return text.hasSuffix("m") ? "\(duration.components.seconds)s" : text
            }
        }
    }

    /// What the fault does.
    public enum Kind: Sendable, Equatable {
        case latency(Duration, jitter: Duration)
        case bandwidth(bytesPerSecond: Int)
        case slice(size: Int, delay: Duration)
        case stall(Duration, every: Trigger)
        /// `nil`: never close.
        case timeout(closeAfter: Duration?)
        case resetAfter(Trigger)
        case limit(bytes: Int)
        /// A share of messages, 0 ... 1.
        case drop(share: Double)
        case closeAfterMessages(Int)
    }

    /// What it does.
    public var kind: Kind
    /// The directions it acts on.
    public var directions: Set<RelayDirection>
    /// The share of clients it applies to, 0 ... 1, decided once per client.
    public var probability: Double

    /// A fault on both directions for every client.
    public init(_ kind: Kind, directions: Set<RelayDirection> = [.up, .down], probability: Double = 1) {
        self.kind = kind
        self.directions = directions
        self.probability = probability
    }

    /// True for the kinds that only make sense on whole messages.
    package var needsMessages: Bool {
        switch kind {
        case .drop, .closeAfterMessages: return true
        default: return false
        }
    }

    /// The specification that parses back to this fault.
    public var description: String {
        var text: String
        switch kind {
        case .latency(let delay, let jitter):
            text = "latency=\(delay.formatted)"
            if jitter > .zero { text += ",jitter=\(jitter.formatted)" }
        case .bandwidth(let rate): text = "bandwidth=\(ByteCount.format(rate))/s"
        case .slice(let size, let delay): text = "slice=\(ByteCount.format(size)),delay=\(delay.formatted)"
        case .stall(let duration, let every): text = "stall=\(duration.formatted),every=\(every)"
        case .timeout(let after): text = after.map { "timeout=\($0.formatted)" } ?? "timeout"
        case .resetAfter(let trigger): text = "reset-after=\(trigger)"
        case .limit(let bytes): text = "limit=\(ByteCount.format(bytes))"
        case .drop(let share): text = "drop=\(Self.percent(share))"
        case .closeAfterMessages(let count): text = "close-after-messages=\(count)"
        }
        if directions.count == 1, let only = directions.first { text += ",dir=\(only.rawValue)" }
        if probability < 1 { text += ",p=\(Self.percent(probability))" }
        return text
    }

    private static func percent(_ share: Double) -> String {
        // In billionths of a percent, written out digit by digit: 0.07 * 100 is
        // 7.000000000000001 and 1e-7 prints as 1e-05; `7%` and `0.00001%` read back.
        let billionths = Int64((share * 100 * 1e9).rounded())
        var fraction = String(billionths % 1_000_000_000)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(billionths / 1_000_000_000)" + (fraction.isEmpty ? "" : "." + fraction) + "%"
    }
}
