import Synchronization

import Glibc

/// A file a command writes its results to — a pcap recording, a JSON report — opened before
/// the work that fills it: the one way sockctl opens an output file, so a path that cannot be
/// written is refused at once, with its reason, instead of after a long run.
///
/// ```swift
/// let file = try OutputFile.open("r.json", mode: .whole)   // refused here, before the run
/// ...                                                       // the run
/// try file.write(bytes)
/// try file.finish()                                         // r.json appears, whole
/// ```
///
/// Refused, each as an ``SocketEngineError/Code/unusableOutput`` error (a usage error) naming
/// the path and the reason: a directory on the way that does not exist or is not a directory,
/// permission denied, a directory at the path, an empty path, and a **symbolic link as the last
/// component** — never followed (`O_NOFOLLOW`), whoever owns it. In a world-writable directory
/// such as /tmp a link planted by another user would otherwise make the caller (root, say)
/// overwrite the file it points to; the kernel's `fs.protected_symlinks` guards against that
/// only where it is switched on. Give the link's target instead. Directories on the way may be
/// links.
///
/// Three ways to write (``Mode``):
/// - ``Mode/stream``: created (mode 0644 before the umask) or truncated at once and written as
///   the work goes — a pcap that tcpdump can read while it grows. ``finish()`` closes it.
/// - ``Mode/whole``: written once, at the end (a JSON report): the bytes go to a temporary
///   file in the same directory (`.NAME.sockctl-PID-N`), which ``finish()`` renames over the
///   path, so the path holds the old file or the whole new one, never half of it. A character
///   device or FIFO at the path (`/dev/null`, a pipe) is opened and written directly. A
///   temporary file left behind by a process ended at once is removed by
///   ``removeUnfinished()``.
/// - ``Mode/append``: created private (mode 0600 before the umask) or appended to, never
///   truncated, on an `O_APPEND` descriptor — a TLS key log that several connections and
///   several processes add lines to: each ``write(_:)-(UnsafeRawBufferPointer)`` of a line is
///   one `write(2)`, which the kernel places whole at the end of the file.
///
/// Not an error: the file existing (it is replaced, or appended to by ``Mode/append``), the directory being a symbolic link.
public final class OutputFile: Sendable {
    /// How the file is written: as the work goes, or once at the end.
    public enum Mode: Sendable {
        /// Created or truncated when opened, written as the work goes.
        case stream
        /// Written to a temporary file beside the path and renamed over it by ``finish()``.
        case whole
        /// Created with mode 0600 or appended to (`O_APPEND`), never truncated.
        case append
    }

    /// The path as given; every message names it.
    public let path: String
    /// How the file is written.
    public let mode: Mode
    private let state: Mutex<State>

    private struct State {
        var descriptor: Int32
        /// ``Mode/whole`` through a temporary file: its path, until renamed or removed.
        var temporary: String?
    }

    /// The descriptor bytes go to (the temporary file's, for ``Mode/whole``); -1 once finished.
    package var descriptor: Int32 { state.withLock { $0.descriptor } }

    private init(path: String, mode: Mode, descriptor: Int32, temporary: String?) {
        self.path = path
        self.mode = mode
        state = Mutex(State(descriptor: descriptor, temporary: temporary))
    }

    deinit {
        let (descriptor, temporary) = state.withLock { ($0.descriptor, $0.temporary) }
        if descriptor >= 0 { Syscall.close(descriptor) }
        if let temporary { Self.forget(temporary, removing: true) }
    }

    // MARK: Opening

    /// Opens `path` for writing in `mode`, or throws `.unusableOutput` with the reason.
    public static func open(_ path: String, mode: Mode = .stream) throws(SocketEngineError) -> OutputFile {
        guard !path.isEmpty else { throw SocketEngineError(.unusableOutput, "an output file needs a name") }
        switch mode {
        case .stream:
            let descriptor = Syscall.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard descriptor >= 0 else { throw refusal(path, errno: errno) }
            return OutputFile(path: path, mode: mode, descriptor: descriptor, temporary: nil)
        case .whole:
            return try openWhole(path)
        case .append:
            let descriptor = Syscall.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw refusal(path, errno: errno) }
            return OutputFile(path: path, mode: mode, descriptor: descriptor, temporary: nil)
        }
    }

    private static func openWhole(_ path: String) throws(SocketEngineError) -> OutputFile {
        var existing = stat()
        let exists = lstat(path, &existing) == 0
        if exists {
            switch existing.st_mode & S_IFMT {
            case S_IFLNK: throw refusal(path, errno: ELOOP)
            case S_IFDIR: throw refusal(path, errno: EISDIR)
            case S_IFREG: break
            default:
                // A device or a FIFO: written in place (renaming over /dev/null would replace it).
                let descriptor = Syscall.open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
                guard descriptor >= 0 else { throw refusal(path, errno: errno) }
                return OutputFile(path: path, mode: .whole, descriptor: descriptor, temporary: nil)
            }
        } else if errno != ENOENT {
            throw refusal(path, errno: errno)
        }
        let (directory, name) = split(path)
        if exists && !mayReplace(existing, in: directory) { throw refusal(path, errno: EACCES) }
        for attempt in 0..<100 {
            let temporary = "\(directory)/.\(name).sockctl-\(getpid())-\(attempt)"
            let descriptor = Syscall.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
            if descriptor < 0 {
                if errno == EEXIST { continue }
                throw refusal(path, errno: errno)
            }
            // The new file keeps the permissions of the one it replaces.
            if exists { _ = fchmod(descriptor, existing.st_mode & 0o7777) }
            unfinished.withLock { _ = $0.insert(temporary) }
            return OutputFile(path: path, mode: .whole, descriptor: descriptor, temporary: temporary)
        }
        throw SocketEngineError(.unusableOutput, "\(path): no free name for a temporary file in \(directory)")
    }

    /// Whether a rename may replace `existing`: in a sticky directory (/tmp) only the file's
    /// owner, the directory's owner or root may (`rename(2)` would fail after the run).
    private static func mayReplace(_ existing: stat, in directory: String) -> Bool {
        var folder = stat()
        guard stat(directory, &folder) == 0 else { return true }
        let user = geteuid()
        return folder.st_mode & S_ISVTX == 0 || user == 0 || existing.st_uid == user || folder.st_uid == user
    }

    /// Checks that a Unix socket can be created at `path` (a control socket), or throws
    /// `.unusableOutput`: the directory must exist and be writable, and the path must not be a
    /// symbolic link, a directory or another kind of file (a socket left behind is fine).
    public static func checkSocketPath(_ path: String) throws(SocketEngineError) {
        guard !path.isEmpty else { throw SocketEngineError(.unusableOutput, "a socket path needs a name") }
        var info = stat()
        if lstat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFSOCK: return
            case S_IFLNK: throw refusal(path, errno: ELOOP)
            case S_IFDIR: throw refusal(path, errno: EISDIR)
            default: throw SocketEngineError(.unusableOutput, "\(path): a file that is not a socket is in the way", errno: EEXIST)
            }
        }
        guard errno == ENOENT else { throw refusal(path, errno: errno) }
        let directory = split(path).directory
        var folder = stat()
        guard stat(directory, &folder) == 0 else { throw refusal(path, errno: errno) }
        guard folder.st_mode & S_IFMT == S_IFDIR else { throw refusal(path, errno: ENOTDIR) }
        guard access(directory, W_OK | X_OK) == 0 else { throw refusal(path, errno: errno) }
    }

    // MARK: Writing

    /// Writes all of `bytes`; a failure (disk full) is an `.ioError` naming the path.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SocketEngineError) {
        let descriptor = self.descriptor
        guard descriptor >= 0 else { throw SocketEngineError(.ioError, "\(path): already closed") }
        if let failure = writeFully(bytes, to: descriptor) {
            throw SocketEngineError(.ioError, "\(path): \(Self.reason(failure))", errno: failure)
        }
    }

    /// Writes all of `bytes` (see ``write(_:)-(UnsafeRawBufferPointer)``).
    public func write(_ bytes: [UInt8]) throws(SocketEngineError) {
        let failure: SocketEngineError? = bytes.withUnsafeBytes { raw in
            do throws(SocketEngineError) {
                try write(raw)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Closes the file; for ``Mode/whole``, renames the temporary file over the path (the
    /// moment the path changes). Safe to call again.
    public func finish() throws(SocketEngineError) {
        let (descriptor, temporary) = state.withLock { state -> (Int32, String?) in
            defer { state = State(descriptor: -1, temporary: nil) }
            return (state.descriptor, state.temporary)
        }
        guard descriptor >= 0 else { return }
        let failure = Syscall.close(descriptor)
        let closed = failure == 0 ? nil : failure
        guard let temporary else {
            if let closed { throw SocketEngineError(.ioError, "\(path): \(Self.reason(closed))", errno: closed) }
            return
        }
        if let closed {
            Self.forget(temporary, removing: true)
            throw SocketEngineError(.ioError, "\(path): \(Self.reason(closed))", errno: closed)
        }
        if rename(temporary, path) != 0 {
            let failure = errno
            Self.forget(temporary, removing: true)
            throw SocketEngineError(.ioError, "\(path): \(Self.reason(failure))", errno: failure)
        }
        Self.forget(temporary, removing: false)
    }

    /// Gives up on the file: a ``Mode/whole`` file leaves the path as it was.
    public func abandon() {
        let (descriptor, temporary) = state.withLock { state -> (Int32, String?) in
            defer { state = State(descriptor: -1, temporary: nil) }
            return (state.descriptor, state.temporary)
        }
        if descriptor >= 0 { Syscall.close(descriptor) }
        if let temporary { Self.forget(temporary, removing: true) }
    }

    // MARK: Temporary files

    /// The temporary files of ``Mode/whole`` outputs not yet finished or abandoned.
    private static let unfinished = Mutex<Set<String>>([])

    private static func forget(_ temporary: String, removing: Bool) {
        let known = unfinished.withLock { $0.remove(temporary) != nil }
        if known && removing { unlink(temporary) }
    }

    /// Removes the temporary files of every ``Mode/whole`` output still unfinished: for a
    /// process about to end at once (a second signal), so it leaves no half-written file.
    public static func removeUnfinished() {
        for temporary in unfinished.withLock({ $0 }) { unlink(temporary) }
    }

    // MARK: Reasons

    /// `(directory, name)` of a path; the directory is `.` for a bare name.
    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// The error for a path that cannot be opened, from the errno `open`, `lstat` or `stat` gave.
    /// A symbolic link at the path is the reason whatever the errno: `O_NOFOLLOW` gives ELOOP,
    /// but with `O_CREAT` a link another user owns in a sticky directory gives EACCES.
    static func refusal(_ path: String, errno code: Int32) -> SocketEngineError {
        var text = reason(code)
        var info = stat()
        if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK {
            text = "is a symbolic link; refusing to follow it (give the target path itself)"
        } else if code == ENOENT {
            text = "no such directory (\(split(path).directory))"
        }
        return SocketEngineError(.unusableOutput, "\(path): \(text)", errno: code)
    }

    /// A short reason for an errno: `permission denied`, `is a directory`, `no space left on device`.
    static func reason(_ code: Int32) -> String {
        switch code {
        case EACCES, EPERM: "permission denied"
        case EISDIR: "is a directory"
        case ENOTDIR: "a component of the path is not a directory"
        case EROFS: "read-only file system"
        case ENOSPC: "no space left on device"
        case ENAMETOOLONG: "file name too long"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
