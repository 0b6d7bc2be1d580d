import LoadGen
import SocketEngine
import Synchronization

/// What a load test shows while it runs and when it ends.
///
/// On a terminal one line is redrawn each second:
/// `  12s/30s   100 open   52,310 sent/s   52,310 recv/s   p50 31µs   p99 92µs   0 errors`;
/// elsewhere (CI logs) nothing, unless `--report-every DUR` asks for one such line per period.
final class LoadDisplay: Sendable {
    private let live: Bool
    private let every: Duration?
    private let output: FileDescriptorWriter
    private let state = Mutex(State())

    private struct State {
        var lastPrinted: Duration?
        var drawn = false
    }

    init(live: Bool, every: Duration?, output: FileDescriptorWriter) {
        self.live = live
        self.every = every
        self.output = output
    }

    func update(_ progress: LoadRunner.Progress) {
        let line = progress.line
        if live {
            output.write("\r\u{1B}[K" + line)
            state.withLock { $0.drawn = true }
            return
        }
        guard let every, !progress.warmingUp else { return }
        let due = state.withLock { state -> Bool in
            if let last = state.lastPrinted, progress.elapsed - last < every - .milliseconds(100) { return false }
            state.lastPrinted = progress.elapsed
            return true
        }
        if due { output.write(line + "\n") }
    }

    /// Removes the live line before the report is printed.
    func clear() {
        let drawn = state.withLock { state -> Bool in
            defer { state.drawn = false }
            return state.drawn
        }
        if drawn { output.write("\r\u{1B}[K") }
    }
}
