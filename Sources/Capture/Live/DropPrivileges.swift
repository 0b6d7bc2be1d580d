#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Becomes `user` for good (`-Z user`): supplementary groups, group id, then user id, the way
/// tcpdump does after opening the capture device.
///
/// Afterwards it checks that `setuid(0)` fails, so a half-done drop is an error rather than a
/// silent risk. Switching to a non-root user also clears any capabilities the process held.
///
/// Not an error: when the process is not running as root (for example it holds only
/// `CAP_NET_RAW` from `setcap`) there is nothing to drop, and like tcpdump this only checks
/// that the user exists.
/// - Throws: ``CaptureError/Code/unknownUser`` (`unknown user 'x'`) or
///   ``CaptureError/Code/privilegeDropFailed`` with the failing call and `strerror` text.
public func dropPrivileges(toUser name: String) throws(CaptureError) {
    let account = try lookUpUser(name)
    guard geteuid() == 0 || getuid() == 0 else { return }
    if initgroups(name, account.gid) != 0 {
        throw CaptureError(.privilegeDropFailed, "cannot set the groups of user '\(name)': \(errnoText())")
    }
    if setgid(account.gid) != 0 {
        throw CaptureError(.privilegeDropFailed, "cannot change group id to \(account.gid) for user '\(name)': \(errnoText())")
    }
    if setuid(account.uid) != 0 {
        throw CaptureError(.privilegeDropFailed, "cannot change user id to \(account.uid) for user '\(name)': \(errnoText())")
    }
    if account.uid != 0 && setuid(0) == 0 {
        throw CaptureError(.privilegeDropFailed, "dropping privileges to user '\(name)' failed: root could be regained")
    }
}

private func lookUpUser(_ name: String) throws(CaptureError) -> (uid: uid_t, gid: gid_t) {
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

func errnoText() -> String {
    String(cString: strerror(errno))
}
