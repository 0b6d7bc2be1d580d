import NIOCore
import SocketEngine

/// What `--correlate` and `--label` ask of the rest of the plan, checked before the run.
extension LoadPlan {
    /// Refuses a plan whose replies cannot be matched by key: no replies (`--framing`), raw
    /// replies over a stream (whatever each read returns is no message), or a message that gives
    /// no key, or the same key to every message while several can be unanswered at once.
    func validateCorrelation() throws(LoadGenError) {
        if let label, framing == nil {
            throw LoadGenError(.invalidPlan, "\(.label) \(label) needs \(.framing) (it splits the latency of replies)")
        }
        guard let correlation else { return }
        guard let framing else {
            throw LoadGenError(.invalidPlan, "\(.correlate) \(correlation) needs \(.framing): replies are cut into messages to find their keys")
        }
        if framing == .raw && !endpoint.transport.isMessageOriented {
            throw LoadGenError(
                .invalidPlan,
                "\(.correlate) over a \(endpoint.transport.rawValue) stream needs a \(.framing) that cuts replies into messages (line, crlf, null, length:N, fixed:N), not raw")
        }
        let first = message.body(sequence: 1, connection: 1)
        guard let firstKey = correlation.key(in: first) else {
            throw LoadGenError(.invalidPlan, "\(.correlate) \(correlation) finds no key in the message \(Self.preview(first)): it needs one in every request")
        }
        if effectivePipeline > 1, correlation.key(in: message.body(sequence: 2, connection: 1)) == firstKey {
            let unanswered = effectivePipeline == Self.maximumPipeline ? "unlimited" : String(effectivePipeline)
            let why = "so replies to the \(unanswered) messages a connection may have unanswered cannot be told apart"
            throw LoadGenError(.invalidPlan, "\(Self.sameKey(correlation, first)), \(why): put {{seq}} in the key, e.g. \(.message) '{\"id\":{{seq}}}'")
        }
    }

    /// A warning for the report: `--correlate` gives every message one key (allowed with one
    /// unanswered message per connection: a reply with another key is still unmatched).
    package var correlationWarning: SettingText? {
        guard let correlation, framing != nil else { return nil }
        let first = message.body(sequence: 1, connection: 1)
        guard let key = correlation.key(in: first), correlation.key(in: message.body(sequence: 2, connection: 1)) == key else { return nil }
        return Self.sameKey(correlation, first)
    }

    /// What a rule that finds one key in every message is told: the key of `first`.
    private static func sameKey(_ correlation: MessageField, _ first: ByteBuffer) -> SettingText {
        "\(.correlate) \(correlation): every message has the key '\(correlation.value(in: first) ?? "")' (it does not change with {{seq}})"
    }

    /// The start of a message, quoted, for a one-line error.
    static func preview(_ body: ByteBuffer) -> String {
        let text = String(decoding: body.readableBytesView.prefix(60), as: UTF8.self)
        let escaped = text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "." : String($0) }.joined()
        return "'\(escaped)\(body.readableBytes > 60 ? "…" : "")'"
    }
}

extension MessageTemplate {
    /// Message `sequence` of `connection` without its framing: what `--correlate` and
    /// `--label` read a request's key and label from.
    package func body(sequence: Int, connection: Int) -> ByteBuffer {
        var framed = message(sequence: sequence, connection: connection)
        let (header, trailer) = framing.bodyMargins
        guard framed.readableBytes >= header + trailer else { return ByteBuffer() }
        framed.moveReaderIndex(forwardBy: header)
        return framed.getSlice(at: framed.readerIndex, length: framed.readableBytes - trailer) ?? ByteBuffer()
    }
}
