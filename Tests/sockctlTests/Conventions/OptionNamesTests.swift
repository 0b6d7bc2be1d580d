import LoadGen
import MetricsExport
import Recording
import SocketEngine
import SocketEngineTLS
import TestSupport
import Testing

@testable import sockctl

/// Libraries name settings by key (``SettingKey``); the CLI's one table (``OptionNames``) words
/// each as its flag. Every key a library declares is in the table, every flag in the table is
/// one the argument parser knows, and the table holds nothing else.
@Suite("option names", .hangGuard)
struct OptionNamesTests {
    static let declared: [SettingKey] = SettingKey.engineKeys + SettingKey.tlsKeys + SettingKey.metricsKeys + SettingKey.recordingKeys + SettingKey.loadGenKeys

    @Test func everyKeyALibraryDeclaresIsAFlagOfTheCommandLine() async throws {
        let model = try await CommandModel.load()
        let flags = Set(model.commands.flatMap { $0.arguments.flatMap(\.longNames) })
        for key in Self.declared {
            let flag = OptionNames.flags[key]
            #expect(flag != nil, "\(key.rawValue): not in OptionNames")
            if let flag { #expect(flags.contains(flag), "\(key.rawValue) → \(flag): no such option") }
        }
        #expect(Set(OptionNames.flags.keys) == Set(Self.declared), "the table names keys no library declares")
        #expect(Set(Self.declared.map(\.rawValue)).count == Self.declared.count, "two keys share a name")
    }

    @Test func aTextIsWordedWithFlagsByTheCommandLineAndPlainlyElsewhere() {
        let text: SettingText = "trust it with \(.cafile), or skip verification with \(.insecure)"
        #expect(OptionNames.render(text) == "trust it with --cafile, or skip verification with --insecure")
        #expect(text.description == "trust it with the CA file, or skip verification with insecure mode")
    }
}
