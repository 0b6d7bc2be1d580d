import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a handler for each delivery of the given signals (instead of dying on them).
final class SignalWatcher {
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
    }
}

extension SignalWatcher {
    /// SIGINT and SIGTERM for a server (listen, proxy): the first one says so and calls `stop`
    /// for an orderly shutdown with a summary; a second one ends the process at once, even if
    /// output is stalled (a paused pager) and the orderly shutdown cannot make progress.
    ///
    /// Start it before the server says where it listens: a signal sent as soon as it does (a
    /// script, a test) must meet the orderly shutdown, not the default action.
    static func orderlyShutdown(_ diagnostics: Diagnostics, stop: @escaping @Sendable () -> Void) -> SignalWatcher {
        let count = Atomic<Int>(0)
        return SignalWatcher(signals: [SIGINT, SIGTERM]) { signal in
            let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
            if count.wrappingAdd(1, ordering: .relaxed).newValue > 1 {
                diagnostics.note("\(name) again: exiting without waiting")
                _exit(130)  // not exit(): flushing stdio could block on the stalled output
            }
            diagnostics.note("\(name): shutting down (again to exit at once)")
            stop()
        }
    }
}
