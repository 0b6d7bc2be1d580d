/// `replay --ignore REGEX`: text cut out of both the recorded and the received frame before
/// they are compared (timestamps, ids).
///
/// Sendable by hand: the regular expressions (not Sendable themselves) are compiled once and
/// never changed, only matched.
public struct IgnorePatterns: @unchecked Sendable {
    package let patterns: [Regex<AnyRegexOutput>]

    /// Patterns already compiled; none by default (nothing is cut out).
    public init(_ patterns: [Regex<AnyRegexOutput>] = []) {
        self.patterns = patterns
    }

    /// Compiles each pattern; the error names the one that does not compile.
    public init(parsing sources: [String]) throws(RecordingError) {
        var compiled: [Regex<AnyRegexOutput>] = []
        for source in sources {
            do {
                compiled.append(try Regex(source))
            } catch {
                throw RecordingError(.invalidPattern, "invalid \(.ignore) regular expression '\(source)': \(error) (a regular expression such as \"id\":[0-9]+)")
            }
        }
        patterns = compiled
    }

    /// The patterns an HTTP replay ignores by default (before any `--ignore`): the headers whose
    /// value changes from one answer to the next without the answer being different — `Date`,
    /// `Expires`, `Last-Modified`, `Age`, `ETag`, `Server`, `Server-Timing`, `X-Request-Id`,
    /// `X-Correlation-Id`, `X-Trace-Id`, `Traceparent`, `X-Runtime`, `X-Response-Time`; each
    /// cuts the whole header line, name and value, out of the message's head.
    public static let httpVolatileHeaders: [String] = [
        "(?im)^(date|expires|last-modified|age|etag|server|server-timing|x-request-id|x-correlation-id|x-trace-id"
            + "|traceparent|x-runtime|x-response-time):[^\r\n]*\r?\n",
    ]

    /// These patterns followed by `other`'s.
    public func adding(_ other: IgnorePatterns) -> IgnorePatterns {
        IgnorePatterns(patterns + other.patterns)
    }

    /// True when there is no pattern: frames are compared as they are.
    public var isEmpty: Bool { patterns.isEmpty }

    /// `bytes` as Latin-1 text with every match cut out.
    func masked(_ bytes: [UInt8]) -> [Unicode.Scalar] {
        var text = String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        for pattern in patterns {
            text = text.replacing(pattern.matchingSemantics(.unicodeScalar), with: "")
        }
        return Array(text.unicodeScalars)
    }
}
