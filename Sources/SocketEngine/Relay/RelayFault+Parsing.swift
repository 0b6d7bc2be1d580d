extension RelayFault {
    /// Reads a fault specification (see ``RelayFault``); a mistake is one line naming it.
    public init(parsing text: String) throws(SocketEngineError) {
        func fail(_ why: String) -> SocketEngineError {
            SocketEngineError(.invalidConfiguration, "invalid fault '\(text)': \(why)")
        }
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimming([" "]) }
        guard let head = items.first, !head.isEmpty else { throw fail("empty (expected e.g. latency=50ms or drop=2%)") }
        var settings: [String: String] = [:]
        for item in items.dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, !pair[0].isEmpty, !pair[1].isEmpty else { throw fail("'\(item)' is not key=value") }
            guard settings[pair[0]] == nil else { throw fail("'\(pair[0])' given twice") }
            settings[pair[0]] = pair[1]
        }
        let headParts = head.split(separator: "=", maxSplits: 1).map(String.init)
        let name = headParts[0]
        let value = headParts.count > 1 ? headParts[1] : nil
        func take(_ key: String) -> String? { settings.removeValue(forKey: key) }
        func required() throws(SocketEngineError) -> String {
            guard let value else { throw fail("\(name) needs a value (\(name)=…)") }
            return value
        }
        func duration(_ text: String, _ what: String) throws(SocketEngineError) -> Duration {
            guard let parsed = try? Duration(parsing: text) else { throw fail("\(what) '\(text)' is not a duration (e.g. 50ms, 2s)") }
            return parsed
        }
        func size(_ text: String, _ what: String) throws(SocketEngineError) -> Int {
            guard let bytes = ByteCount.parse(text), bytes > 0 else { throw fail("\(what) '\(text)' is not a size (e.g. 1500, 64KiB)") }
            return bytes
        }
        func count(_ text: String, _ what: String) throws(SocketEngineError) -> Int {
            guard text.count <= 12, let number = Int(text), number > 0 else { throw fail("\(what) '\(text)' is not a positive count") }
            return number
        }

        let kind: Kind
        switch name {
        case "latency":
            let delay = try duration(try required(), "latency")
            let jitter = try take("jitter").map { text throws(SocketEngineError) in try duration(text, "jitter") } ?? .zero
            kind = .latency(delay, jitter: jitter)
        case "bandwidth":
            var rate = try required()
            if rate.hasSuffix("/s") { rate.removeLast(2) }
            kind = .bandwidth(bytesPerSecond: try size(rate, "bandwidth"))
        case "slice":
            let delay = try take("delay").map { text throws(SocketEngineError) in try duration(text, "delay") } ?? .zero
            kind = .slice(size: try size(try required(), "slice"), delay: delay)
        case "stall":
            let length = try duration(try required(), "stall")
            guard let every = take("every") else { throw fail("stall needs every=SIZE, every=Nmsg or every=DURATION") }
            kind = .stall(length, every: try Self.trigger(every, fail: fail))
        case "timeout":
            kind = .timeout(closeAfter: try value.map { text throws(SocketEngineError) in try duration(text, "timeout") })
        case "reset-after":
            kind = .resetAfter(try Self.trigger(try required(), fail: fail))
        case "limit":
            kind = .limit(bytes: try size(try required(), "limit"))
        case "drop":
            kind = .drop(share: try Self.share(try required(), "drop", fail: fail))
        case "close-after-messages":
            kind = .closeAfterMessages(try count(try required(), "close-after-messages"))
        default:
            throw fail("unknown kind '\(name)' (expected one of latency, bandwidth, slice, stall, timeout, reset-after, limit, drop or close-after-messages)")
        }

        var directions: Set<RelayDirection> = [.up, .down]
        if let direction = take("dir") ?? take("direction") {
            switch direction {
            case "up": directions = [.up]
            case "down": directions = [.down]
            case "both": directions = [.up, .down]
            default: throw fail("dir '\(direction)' is not up, down or both")
            }
        }
        let probability = try take("p").map { text throws(SocketEngineError) in try Self.share(text, "p", fail: fail) } ?? 1
        if let unknown = settings.keys.sorted().first {
            throw fail("'\(unknown)' is not a setting of \(name)")
        }
        self.init(kind, directions: directions, probability: probability)
    }

    /// `64KiB` (bytes), `100msg` (messages) or `30s` (time; units ns, us, ms, s, h).
    private static func trigger(_ text: String, fail: (String) -> SocketEngineError) throws(SocketEngineError) -> Trigger {
        if text.hasSuffix("msg") {
            guard let count = Int(text.dropLast(3)), count > 0, text.count <= 15 else { throw fail("'\(text)' is not a message count (e.g. 100msg)") }
            return .messages(count)
        }
        if ["ns", "us", "µs", "ms", "s", "h"].contains(where: { text.hasSuffix($0) }), let duration = try? Duration(parsing: text) {
            guard duration > .zero else { throw fail("'\(text)' must be longer than zero") }
            return .time(duration)
        }
        guard let bytes = ByteCount.parse(text), bytes > 0 else {
            throw fail("'\(text)' is not a size, a message count or a duration (e.g. 64KiB, 100msg, 30s)")
        }
        return .bytes(bytes)
    }

    /// `2%` or `0.02`, within 0 ... 1.
    private static func share(_ text: String, _ what: String, fail: (String) -> SocketEngineError) throws(SocketEngineError) -> Double {
        let isPercent = text.hasSuffix("%")
        let number = isPercent ? String(text.dropLast()) : text
        guard number.count <= 12, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number) else {
            throw fail("\(what) '\(text)' is not a share (e.g. 2% or 0.02)")
        }
        let share = isPercent ? value / 100 : value
        guard (0...1).contains(share) else { throw fail("\(what) '\(text)' is not between 0 and 100%") }
        return share
    }
}
