import Foundation
import TestSupport
import Testing

/// The command line as one tool: conventions checked over every subcommand and option, read
/// from the argument parser's own description (``CommandModel``), so a new option is held to
/// them the day it is added.
@Suite("conventions", .hangGuard)
struct ConventionsTests {
    /// Every option and flag help shows says what it does; every option that takes a value names
    /// its value.
    @Test func everyOptionSaysWhatItDoesAndNamesItsValue() async throws {
        let model = try await CommandModel.load()
        #expect(model.runnable.count >= 8, "\(model.runnable)")
        for command in model.runnable {
            for argument in command.arguments where argument.isVisible && argument.kind != .positional {
                #expect(!argument.abstract.isEmpty, "\(command) \(argument): no help")
                if argument.kind == .option {
                    #expect(!(argument.valueName ?? "").isEmpty, "\(command) \(argument): no value name")
                }
            }
        }
    }
}
