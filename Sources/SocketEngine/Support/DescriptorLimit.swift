import Glibc

/// The process's file-descriptor limit: a server holding thousands of clients, or a load test
/// opening thousands of connections, needs more than the usual soft limit of 1024.
public enum DescriptorLimit {
    /// Raises the soft limit to the hard limit; returns the soft limit now in effect.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The soft limit in effect now; nil where it cannot be read.
    package static func current() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// How many more descriptors this process may open now (the soft limit less those open);
    /// nil where that cannot be known — or when not even the count can be taken, which means
    /// none are left. Costs a listing of `/proc/self/fd`: for occasional checks, not per packet.
    package static func available() -> Int? {
        guard let limit = current(), let open = inUse() else { return nil }
        return max(0, limit - open)
    }

    /// How many descriptors this process has open (the entries of `/proc/self/fd`, less the
    /// one used to list them); nil where that cannot be read.
    package static func inUse() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { count += 1 }
        }
        return max(0, count - 1)
    }
}
