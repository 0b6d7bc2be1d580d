import LoadGen
import SocketEngine
import Synchronization

/// What a load test shows while it runs and when it ends.
///
/// On a terminal one line is redrawn each second:
/// `  12s/30s   100 open   52,310 sent/s   52,310 recv/s   p50 31µs   p99 92µs   0 errors`;
/// elsewhere (CI logs) nothing, unless `--report-every DUR` asks for one such line per period.
/// A `TERM=dumb` terminal gets no escape sequence: the line is redrawn with `\r` and spaces.
final class LoadDisplay: Sendable {
    private let live: Bool
    private let dumb = TerminalStyle.dumbTerminal
    private let every: Duration?
    private let output: FileDescriptorWriter
    private let state = Mutex(State())

    private struct State {
        var lastPrinted: Duration?
        var drawn = false
        /// The width of the line drawn last (what a dumb terminal's redraw must cover).
        var width = 0
    }

    init(live: Bool, every: Duration?, output: FileDescriptorWriter) {
        self.live = live
        self.every = every
        self.output = output
    }

    func update(_ progress: LoadRunner.Progress) {
        let line = progress.line
        if live {
            let previous = state.withLock { state in
                defer { (state.drawn, state.width) = (true, line.count) }
                return state.width
            }
            output.write(dumb ? "\r" + line + String(repeating: " ", count: max(0, previous - line.count)) : "\r\u{1B}[K" + line)
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
        let (drawn, width) = state.withLock { state -> (Bool, Int) in
            defer { (state.drawn, state.width) = (false, 0) }
            return (state.drawn, state.width)
        }
        guard drawn else { return }
        output.write(dumb ? "\r" + String(repeating: " ", count: width) + "\r" : "\r\u{1B}[K")
    }
}
