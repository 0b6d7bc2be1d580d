/// A setting of a command, named by a library without knowing how the command line spells it.
///
/// Libraries speak of settings by key (``SettingText`` interpolates them); the program that
/// parses the command line renders each key as its option's name, and everyone else sees the
/// ``plainName``. Each library declares its keys in one file (`SettingKey+Engine.swift`,
/// `SettingKey+LoadGen.swift`, …), with a list of them all for the program's table to cover.
public struct SettingKey: Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier, unique across the package (`cafile`, `max-clients`).
    public let rawValue: String
    /// How the setting reads in plain words, for a reader who has no command line
    /// (`the CA file`).
    public let plainName: String

    /// A key named `rawValue` that reads as `plainName` in plain text.
    public init(_ rawValue: String, plainName: String) {
        self.rawValue = rawValue
        self.plainName = plainName
    }

    /// The ``plainName``.
    public var description: String { plainName }

    /// Two keys are the same setting when their ``rawValue``s are equal.
    public static func == (lhs: SettingKey, rhs: SettingKey) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the ``rawValue``.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
