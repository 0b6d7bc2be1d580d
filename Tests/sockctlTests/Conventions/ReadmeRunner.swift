/// How one README example is run on loopback: the example's command exactly as README writes it
/// (the key), and what sets its scene, starts it, pokes it and checks it (``ExampleRun``).
///
/// The runners are an explicit table, one entry per example, grouped by README section
/// (`ReadmeRunners+Section.swift`): a new example has none until someone writes how to run it,
/// and an example whose text changes loses its runner — either way the README test says so.
struct ReadmeRunner: Sendable {
    let command: String
    let body: @Sendable (ExampleRun) async throws -> Void

    init(_ command: String, _ body: @escaping @Sendable (ExampleRun) async throws -> Void) {
        self.command = command
        self.body = body
    }
}

/// Every runner, by README section.
enum ReadmeRunners {
    static let all: [ReadmeRunner] = tour + tls + connect + listen + webSocket + http + send + loadTest + loadTestFromPcap
        + capture + proxy + socksRecording + recordAndReplay + options + tunnel + exec

    /// The runner of an example's command, if it has one.
    static func runner(for command: String) -> ReadmeRunner? {
        all.first { $0.command == command }
    }
}
