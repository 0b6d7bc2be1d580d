import CEpoll
import NativeThreads
import NIOCore
import Synchronization

import Glibc

/// A program started with `posix_spawn` (never a shell unless the command is one), its standard
/// input and output on pipes, its standard error sockctl's own.
///
/// Every other descriptor of sockctl is closed in the child (`posix_spawn_file_actions_
/// addclosefrom_np`, or each open descriptor when the C library lacks it), the signals sockctl
/// ignores (SIGPIPE) are set back to their defaults and none is blocked. A thread of its own
/// waits for the child's end; the child is reaped there, so no zombie is left, and a signal is
/// only ever sent to a child that has not been reaped (its process ID cannot have been reused).
package final class ChildProcess: Sendable {
    /// The child's process ID.
    package let pid: pid_t
    /// Our end of the child's standard input (write) and output (read); the caller owns them.
    package let standardInput: Int32
    package let standardOutput: Int32
    /// Completed on the child's end, with how it ended.
    package let exit: EventLoopFuture<ChildExit>
    private let state = Mutex(Life.running)

    private enum Life { case running, terminating, ended }

    private init(pid: pid_t, standardInput: Int32, standardOutput: Int32, exit: EventLoopFuture<ChildExit>) {
        self.pid = pid
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.exit = exit
    }

    /// Starts `command` with `environment` (`NAME=value` entries); its end completes ``exit`` on
    /// `loop`. Throws when the program cannot be started (the reason from `posix_spawn`).
    package static func spawn(_ command: ExecCommand, environment: [String], on loop: any EventLoop) throws(SocketEngineError) -> ChildProcess {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        // Close-on-exec at once (pipe2 is not in Swift's Glibc; the child closes every
        // descriptor from 3 up anyway, so a spawn on another thread in between inherits none).
        guard makePipe(&toChild) else { throw failure("a pipe", errno) }
        guard makePipe(&fromChild) else {
            let error = errno
            close(toChild[0]); close(toChild[1])
            throw failure("a pipe", error)
        }
        defer {
            close(toChild[0])
            close(fromChild[1])
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        closeInheritedDescriptors(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pid: pid_t = 0
        let status = withCStrings(command.arguments) { argv in
            withCStrings(environment) { envp in
                posix_spawn(&pid, command.path, &actions, &attributes, argv, envp)
            }
        }
        guard status == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw SocketEngineError(.invalidConfiguration, "cannot run '\(command.arguments.first ?? command.path)': \(String(cString: strerror(status)))")
        }
        let promise = loop.makePromise(of: ChildExit.self)
        let child = ChildProcess(pid: pid, standardInput: toChild[1], standardOutput: fromChild[0], exit: promise.futureResult)
        // Waiting needs little stack.
        guard NativeThread.start(named: "sockctl-child", detached: true, stackSize: 64 * 1024, { child.waitForEnd(promise) }) != nil else {
            // No thread: reap here, after making sure the child is gone.
            kill(pid, SIGKILL)
            child.waitForEnd(promise)
            return child
        }
        return child
    }

    /// Sends `signal` if the child has not ended; false when it has.
    @discardableResult
    package func signal(_ signal: Int32) -> Bool {
        state.withLock { life in
            if case .ended = life { return false }
            return kill(pid, signal) == 0
        }
    }

    /// SIGTERM now, and SIGKILL after `grace` on `loop`'s clock if the child is still there;
    /// false (and nothing sent) when it has already ended. Once only: a later call sends
    /// nothing more (and returns true while the child is still there).
    @discardableResult
    package func terminate(grace: TimeAmount, on loop: any EventLoop) -> Bool {
        let first = state.withLock { life -> Bool? in
            switch life {
            case .ended: return nil
            case .terminating: return false
            case .running:
                life = .terminating
                // Cannot fail for a child not yet reaped (a zombie takes it too).
                _ = kill(pid, SIGTERM)
                return true
            }
        }
        guard let first else { return false }
        guard first else { return true }
        let killing = loop.scheduleTask(in: grace) { self.signal(SIGKILL) }
        exit.whenComplete { _ in killing.cancel() }
        return true
    }

    /// Waits (without reaping) for the end, marks the child ended so that no signal can reach a
    /// reused process ID, then reaps it.
    private func waitForEnd(_ promise: EventLoopPromise<ChildExit>) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        state.withLock { $0 = .ended }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        promise.succeed(ChildExit(waitStatus: status))
    }

    private static func failure(_ what: String, _ error: Int32) -> SocketEngineError {
        SocketEngineError(.ioError, "cannot make \(what) for the command: \(String(cString: strerror(error)))", errno: error)
    }

    /// Closes every descriptor from 3 up in the child: by one action where the C library has
    /// it (glibc 2.34), else one action per descriptor open now (pipes made with O_CLOEXEC and
    /// NIO's sockets close on exec anyway; this covers anything else).
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            if closeFrom(&actions, 3) == 0 { return }
        }
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name), descriptor > 2, descriptor != own else { continue }
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { posix_spawn_file_actions_addclose(&actions, descriptor) }
        }
    }
}

/// `strings` as a NULL-terminated array of C strings for the duration of `body`.
private func withCStrings(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32) -> Int32 {
    let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeBufferPointer { $0.baseAddress.map(body) ?? EINVAL }
}

/// A pipe whose two ends close on exec.
private func makePipe(_ ends: inout [Int32]) -> Bool {
    guard pipe(&ends) == 0 else { return false }
    _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
    return true
}
