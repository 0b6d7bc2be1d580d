import CPrivileges

import Glibc

/// Giving up root once the capture device is open, as tcpdump does: by default to the user
/// `tcpdump` when it exists (Debian builds tcpdump to drop to it), else to `nobody`; to any
/// user named with `-Z`; `-Z root` keeps root.
///
/// In two steps around the opening of the output file, so that the file is opened as
/// tcpdump 4.99 opens it (Debian builds it with libcap-ng): ``begin()`` takes the user's
/// supplementary groups, group id and user id but keeps, for now, a saved user id of root and
/// the one capability `CAP_DAC_OVERRIDE` — the file is created as the user (it belongs to
/// them), wherever root could create it; ``finish()`` gives both up and checks that root
/// cannot be regained. Switching to a non-root user for good clears every capability.
///
/// Not an error: when the process is not root (it holds `CAP_NET_RAW` from `setcap`), there is
/// nothing to drop; a named user must still exist. Where `CAP_DAC_OVERRIDE` is not available
/// (a container without it), the file is opened with the user's own rights.
public struct PrivilegeDrop: Sendable {
    /// The user tcpdump drops to, and capture by default when it exists.
    public static let tcpdumpUser = "tcpdump"
    /// The user capture drops to by default when there is no ``tcpdumpUser``.
    public static let fallbackUser = "nobody"

    /// The user dropped to.
    public let user: String
    /// The user's id.
    public let uid: UInt32
    /// The user's primary group id.
    public let gid: UInt32

    /// The drop for `user` (which must exist).
    /// - Throws: ``CaptureError/Code/unknownUser``.
    public init(user: String) throws(CaptureError) {
        let account = try Self.lookUp(user)
        self.user = user
        uid = account.uid
        gid = account.gid
    }

    /// The drop a live capture makes after opening its device: to `user` (`-Z`), or without one
    /// to ``tcpdumpUser`` or else ``fallbackUser``. Nil when there is nothing to drop: the
    /// process is not root, or the user is root (`-Z root`). A named user is looked up even
    /// then (`unknown user 'x'` whoever runs it, as tcpdump checks).
    /// - Throws: ``CaptureError/Code/unknownUser`` for a named user that does not exist, or when
    ///   neither default user exists.
    public static func forCapture(user: String?) throws(CaptureError) -> PrivilegeDrop? {
        let drop: PrivilegeDrop
        if let user {
            drop = try PrivilegeDrop(user: user)
        } else {
            guard isRoot else { return nil }
            if let tcpdump = try? PrivilegeDrop(user: tcpdumpUser) {
                drop = tcpdump
            } else if let nobody = try? PrivilegeDrop(user: fallbackUser) {
                drop = nobody
            } else {
                throw CaptureError(.unknownUser, "neither user '\(tcpdumpUser)' nor user '\(fallbackUser)' exists to drop privileges to")
            }
        }
        return isRoot && drop.uid != 0 ? drop : nil
    }

    /// The process runs as root (real or effective user id 0).
    static var isRoot: Bool { geteuid() == 0 || getuid() == 0 }

    /// Step one: the user's groups, group id and user id, keeping a saved user id of root and,
    /// of all capabilities, only `CAP_DAC_OVERRIDE` (files are opened as root could, but belong
    /// to the user). Call ``finish()`` once the output files are open.
    /// - Throws: ``CaptureError/Code/privilegeDropFailed`` with the failing call and `strerror`.
    public func begin() throws(CaptureError) {
        if initgroups(user, gid) != 0 {
            throw CaptureError(.privilegeDropFailed, "cannot set the groups of user '\(user)': \(errnoText())")
        }
        if setgid(gid) != 0 {
            throw CaptureError(.privilegeDropFailed, "cannot change group id to \(gid) for user '\(user)': \(errnoText())")
        }
        // Root stays the saved user id, so the permitted capabilities survive the change of the
        // effective one (which empties the effective set)…
        if setresuid(uid, uid, 0) != 0 {
            throw CaptureError(.privilegeDropFailed, "cannot change user id to \(uid) for user '\(user)': \(errnoText())")
        }
        // … and all but CAP_DAC_OVERRIDE go. Without it (not in the bounding set) files are
        // opened with the user's own rights, as tcpdump built without libcap-ng opens them.
        _ = Self.setCapabilities(effective: 1 << UInt32(CAP_DAC_OVERRIDE))
    }

    /// Step two: the saved user id and the capability go too; checks that `setuid(0)` fails,
    /// so a half-done drop is an error rather than a silent risk.
    ///
    /// `keepingFileCreation` (a capture that opens more files later: tcpdump's `-C` and `-G`)
    /// keeps `CAP_DAC_OVERRIDE` permitted but not effective, as tcpdump built with libcap-ng
    /// does; ``creatingFiles(_:)`` raises it around each later open. Nothing else is kept.
    /// - Throws: ``CaptureError/Code/privilegeDropFailed``.
    public func finish(keepingFileCreation: Bool = false) throws(CaptureError) {
        if keepingFileCreation { _ = sockctl_set_keep_capabilities(1) }
        defer { if keepingFileCreation { _ = sockctl_set_keep_capabilities(0) } }
        if setresuid(uid, uid, uid) != 0 {
            throw CaptureError(.privilegeDropFailed, "cannot change user id to \(uid) for user '\(user)': \(errnoText())")
        }
        if keepingFileCreation {
            _ = Self.setCapabilities(effective: 0, permitted: 1 << UInt32(CAP_DAC_OVERRIDE))
        }
        if setuid(0) == 0 {
            throw CaptureError(.privilegeDropFailed, "dropping privileges to user '\(user)' failed: root could be regained")
        }
    }

    /// Runs `body` with `CAP_DAC_OVERRIDE` effective when it was kept by
    /// ``finish(keepingFileCreation:)`` (else with the user's own rights), then lowers it again.
    public static func creatingFiles<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let dacOverride: UInt32 = 1 << UInt32(CAP_DAC_OVERRIDE)
        let raised = isRoot ? false : setCapabilities(effective: dacOverride, permitted: dacOverride)
        defer { if raised { _ = setCapabilities(effective: 0, permitted: dacOverride) } }
        return try body()
    }

    /// ``begin()`` and ``finish()`` at once, when no file is opened in between.
    public func drop() throws(CaptureError) {
        try begin()
        try finish()
    }

    /// Sets the effective and permitted capability sets (the low 32 bits; the high ones empty;
    /// permitted defaults to effective). False when the kernel refuses.
    private static func setCapabilities(effective: UInt32, permitted: UInt32? = nil) -> Bool {
        var header = __user_cap_header_struct(version: UInt32(_LINUX_CAPABILITY_VERSION_3), pid: 0)
        var data = [
            __user_cap_data_struct(effective: effective, permitted: permitted ?? effective, inheritable: 0),
            __user_cap_data_struct(effective: 0, permitted: 0, inheritable: 0),
        ]
        return capset(&header, &data) == 0
    }

    private static func lookUp(_ name: String) throws(CaptureError) -> (uid: uid_t, gid: gid_t) {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var size = 16 * 1024
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let status = buffer.withUnsafeMutableBufferPointer { raw -> Int32 in
                guard let base = raw.baseAddress else { return ERANGE }
                return getpwnam_r(name, &entry, base, raw.count, &result)
            }
            if status == ERANGE && size < 1 << 20 {
                size *= 4
                continue
            }
            guard status == 0 else {
                throw CaptureError(.unknownUser, "cannot look up user '\(name)': \(String(cString: strerror(status)))")
            }
            guard result != nil else { throw CaptureError(.unknownUser, "unknown user '\(name)'") }
            return (entry.pw_uid, entry.pw_gid)
        }
    }
}

func errnoText() -> String {
    String(cString: strerror(errno))
}
