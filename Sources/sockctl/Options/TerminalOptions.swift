import ArgumentParser

extension ColorChoice: ExpressibleByArgument {}

/// `--color`, on every command: see ``TerminalStyle`` for the rule it sets.
struct TerminalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Colour the warning and error labels; auto: only on a terminal, and not when NO_COLOR is set or TERM=dumb.",
        valueName: "when"))
    var color: ColorChoice = .auto

    /// Parsing ends here before any output: the choice holds for the whole run.
    func validate() throws {
        TerminalStyle.choose(color)
    }
}
