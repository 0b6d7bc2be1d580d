import SocketEngine

/// Lines of a report that may name settings (its warnings): ``SettingText``s while the report
/// is in memory, so that whoever shows them words each setting (the CLI: as its flag); strings
/// in the `--json` file, each setting worded by the names given to
/// ``LoadReport/jsonData(settingNames:)`` (plain names when none are given). Read back from a
/// file, a line names no setting: its words were fixed when the file was written.
@propertyWrapper
public struct ReportLines: Codable, Sendable {
    /// How the settings a line names are worded in a file.
    struct SettingNames: Sendable {
        let name: @Sendable (SettingKey) -> String
    }

    /// Where an encoder keeps the ``SettingNames`` (nil only if the key could not be made).
    static let settingNamesKey = CodingUserInfoKey(rawValue: "sockctl.settingNames")

    /// The lines.
    public var wrappedValue: [SettingText]

    /// The lines `wrappedValue`.
    public init(wrappedValue: [SettingText]) {
        self.wrappedValue = wrappedValue
    }

    /// An array of strings, each setting worded as the encoder's setting names say.
    public func encode(to encoder: any Encoder) throws {
        let names = Self.settingNamesKey.flatMap { encoder.userInfo[$0] as? SettingNames }
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.map { $0.rendered(names?.name ?? { $0.plainName }) })
    }

    /// Lines read back from an array of strings, naming no setting.
    public init(from decoder: any Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode([String].self).map { SettingText($0) }
    }
}
