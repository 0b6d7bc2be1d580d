/// Text that names settings by ``SettingKey`` instead of spelling them: an error message, a log
/// line or a warning written by a library, rendered by whoever shows it.
///
/// Written as a string literal with keys interpolated:
/// `"trust it with \(SettingKey.cafile), or skip verification with \(SettingKey.insecure)"`.
/// ``rendered(_:)`` turns it into a `String`, naming each key as the caller says (the CLI: its
/// option's flag); ``description`` names each key by its ``SettingKey/plainName``. Rendering
/// happens when the text is shown (once per error, warning or report), never per message sent.
/// Any other interpolated value is written as `String(describing:)` writes it.
public struct SettingText: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// A piece of the text: words as written, or a setting to be named.
    enum Part: Sendable, Hashable {
        case literal(String)
        case setting(SettingKey)
    }

    private(set) var parts: [Part]

    /// Text without settings: `text` as it is.
    public init(_ text: String) {
        parts = text.isEmpty ? [] : [.literal(text)]
    }

    /// Text without settings, from a literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Text from a literal with interpolations.
    public init(stringInterpolation: Interpolation) {
        parts = stringInterpolation.parts
    }

    /// Builds a ``SettingText`` from a string literal and its interpolations.
    public struct Interpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        /// An empty text with room for `literalCapacity` characters and `interpolationCount` values.
        public init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(2 * interpolationCount + 1)
        }

        /// Words as written.
        public mutating func appendLiteral(_ literal: String) {
            guard !literal.isEmpty else { return }
            if case .literal(let previous)? = parts.last {
                parts[parts.count - 1] = .literal(previous + literal)
            } else {
                parts.append(.literal(literal))
            }
        }

        /// A setting, named when the text is rendered.
        public mutating func appendInterpolation(_ setting: SettingKey) {
            parts.append(.setting(setting))
        }

        /// Another text, its settings kept.
        public mutating func appendInterpolation(_ text: SettingText) {
            for part in text.parts {
                switch part {
                case .literal(let words): appendLiteral(words)
                case .setting(let setting): parts.append(.setting(setting))
                }
            }
        }

        /// Any other value, as `String(describing:)` writes it.
        public mutating func appendInterpolation<Value>(_ value: Value) {
            appendLiteral(String(describing: value))
        }
    }

    /// The settings named, in order.
    public var settings: [SettingKey] {
        parts.compactMap { if case .setting(let setting) = $0 { setting } else { nil } }
    }

    /// The text, each setting written as `name` words it.
    public func rendered(_ name: (SettingKey) -> String) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .literal(let words): text += words
            case .setting(let setting): text += name(setting)
            }
        }
        return text
    }

    /// The text with each setting's ``SettingKey/plainName``.
    public var description: String { rendered(\.plainName) }

    /// The same words naming the same settings, however the text was put together.
    public static func == (lhs: SettingText, rhs: SettingText) -> Bool { lhs.canonical == rhs.canonical }

    /// Hashes the ``canonical`` form.
    public func hash(into hasher: inout Hasher) { hasher.combine(canonical) }

    /// Words and settings in one string, each setting as its raw value between NUL characters.
    private var canonical: String { rendered { "\u{0}\($0.rawValue)\u{0}" } }

    /// Whether the text is empty.
    public var isEmpty: Bool { parts.isEmpty }

    /// `lhs` followed by `rhs`.
    public static func + (lhs: SettingText, rhs: SettingText) -> SettingText {
        "\(lhs)\(rhs)"
    }
}
