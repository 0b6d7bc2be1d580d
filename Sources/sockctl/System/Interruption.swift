import SocketEngine
import Synchronization

import Glibc

/// How every long-running command meets SIGINT (Ctrl-C) and SIGTERM: the first one says so on
/// stderr and runs the command's stop actions — the engine's `stop()`, an orderly end after
/// which the command prints its summary and completes its files; a second one ends the process
/// at once with 128 + its number, removing the temporary file of a JSON report not yet written
/// (``OutputFile/removeUnfinished()``), even if output is stalled (a paused pager) and the
/// orderly end cannot make progress.
///
/// Start it first thing in `run()`, before the command says where it listens or starts its
/// work: a signal sent as soon as it does (a script, a test, a CI job cancelled) must meet the
/// orderly end, not the default action. Actions added after the signal came run at once.
///
/// Exit status (the README's "Exit status"): a command whose run ends on its own (connect,
/// send, replay, loadtest) exits with ``exitStatus`` — 130 after SIGINT, 143 after SIGTERM, as
/// a shell reports a process a signal ended — once everything is printed and written; a server
/// whose normal end is the signal (listen, proxy, capture, replay --as-server) exits 0.
final class Interruption: Sendable {
    private let diagnostics: Diagnostics
    /// What the first signal's line says the command does: `stopping`, `shutting down`.
    private let doing: String
    private let shared = Shared()
    private let watcher: SignalWatcher

    private struct State {
        var signal: Int32?
        var actions: [@Sendable () -> Void] = []
    }

    /// The state the signal handler shares with the command.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    init(_ diagnostics: Diagnostics, doing: String = "stopping") {
        self.diagnostics = diagnostics
        self.doing = doing
        let shared = self.shared
        watcher = SignalWatcher(signals: [SIGINT, SIGTERM]) { signal in
            let name = Self.name(signal)
            let actions = shared.state.withLock { state -> [@Sendable () -> Void]? in
                guard state.signal == nil else { return nil }
                state.signal = signal
                defer { state.actions = [] }
                return state.actions
            }
            guard let actions else {
                diagnostics.note("\(name) again: exiting without waiting")
                OutputFile.removeUnfinished()
                _exit(128 + signal)  // not exit(): flushing stdio could block on the stalled output
            }
            diagnostics.note("\(name): \(doing) (again to exit at once)")
            for action in actions { action() }
        }
    }

    /// Adds what the first signal does (an engine's `stop()`); runs it at once if the signal has
    /// already come.
    func onStop(_ action: @escaping @Sendable () -> Void) {
        let signalled = shared.state.withLock { state -> Bool in
            if state.signal != nil { return true }
            state.actions.append(action)
            return false
        }
        if signalled { action() }
    }

    /// The run is over: the stop actions are dropped (a signal from now on still counts as the
    /// first one, and a second still exits at once).
    func cancel() {
        shared.state.withLock { $0.actions = [] }
    }

    /// The first signal that came, if any.
    var signal: Int32? { shared.state.withLock { $0.signal } }

    /// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM) once a signal came: the exit
    /// status of a command that ends on its own and was stopped early.
    var exitStatus: Int32? { signal.map { 128 + $0 } }

    /// Throws the interrupted exit status (``exitStatus``) if a signal came: the last step of a
    /// command that ends on its own, once everything is printed and written.
    func exitIfInterrupted() throws {
        if let status = exitStatus { throw CommandFailed(status: status) }
    }

    /// `operation`'s value, or nil as soon as a signal comes (then the operation is left to
    /// finish on its own): for a wait that has nothing to stop, such as serving the final
    /// metrics until scraped.
    func unlessInterrupted<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T? {
        let slot = Mutex<CheckedContinuation<T?, Never>?>(nil)
        let resume = { @Sendable (value: T?) in
            slot.withLock { stored in defer { stored = nil }; return stored }?.resume(returning: value)
        }
        return await withCheckedContinuation { continuation in
            slot.withLock { $0 = continuation }
            Task { resume(await operation()) }
            onStop { resume(nil) }
        }
    }

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }
}

extension SignalWatcher {
    /// SIGINT and SIGTERM for a server (listen, proxy): the first one says it is shutting down
    /// and calls `stop` for an orderly shutdown with a summary; a second ends the process at
    /// once (see ``Interruption``).
    static func orderlyShutdown(_ diagnostics: Diagnostics, stop: @escaping @Sendable () -> Void) -> Interruption {
        let interruption = Interruption(diagnostics, doing: "shutting down")
        interruption.onStop(stop)
        return interruption
    }
}
