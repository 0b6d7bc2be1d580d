import Glibc

/// A command run on each capture file once it is finished (tcpdump's `-z`): `COMMAND FILE`,
/// looked up in `PATH`, started without waiting for it, at the lowest priority, as the user the
/// capture runs as (after its privilege drop, with no capability: an `exec` by a non-root user
/// clears them), as tcpdump's `compress_savefile` runs it.
///
/// Finished commands are reaped without blocking each time one is started (no zombie builds up
/// during a long capture); ``waitForAll()`` waits for those still running at the end, so the
/// files are complete when the capture exits (tcpdump leaves them running: a difference on
/// purpose). The number of commands running at once is bounded by ``maximumRunning``: beyond
/// it, starting one first waits for the oldest.
public final class FinishedFileCommand {
    /// The program, as given (a name looked up in `PATH`, or a path).
    public let command: String
    /// The most commands left running at once.
    public static let maximumRunning = 64
    private var running: [pid_t] = []

    /// A runner for `command`; nothing starts until ``run(on:)``.
    public init(command: String) {
        self.command = command
    }

    /// Starts `command file`; a command that cannot be started is `.commandFailed` (the capture
    /// goes on; the caller says so). A command that exits non-zero is not reported, as tcpdump
    /// does not.
    public func run(on file: String) throws(CaptureError) {
        reapFinished()
        if running.count >= Self.maximumRunning, let oldest = running.first {
            var status: Int32 = 0
            while waitpid(oldest, &status, 0) < 0 && errno == EINTR {}
            running.removeFirst()
        }
        var pid: pid_t = 0
        let arguments = [command, file]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let status = posix_spawnp(&pid, command, nil, nil, argv, environ)
        guard status == 0 else {
            throw CaptureError(.commandFailed, "cannot run '\(command) \(file)': \(String(cString: strerror(status)))")
        }
        // tcpdump's child lowers its own priority to the least; here the parent does it.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), 19)
        running.append(pid)
    }

    /// Reaps the commands that have finished, without blocking.
    public func reapFinished() {
        running.removeAll { pid in
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            return result == pid || (result < 0 && errno == ECHILD)
        }
    }

    /// Waits for every command still running.
    public func waitForAll() {
        for pid in running {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        running.removeAll()
    }
}
