import SocketEngine

import Glibc

/// The process limits a load test runs into, checked before it starts (tcpkali's preflight).
package enum SystemLimits {
    /// `net.ipv4.ip_local_port_range` as (low, high), nil if unreadable.
    package static func localPortRange() -> (Int, Int)? {
        guard let text = readSmallFile("/proc/sys/net/ipv4/ip_local_port_range") else { return nil }
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        guard numbers.count == 2, numbers[0] <= numbers[1] else { return nil }
        return (numbers[0], numbers[1])
    }

    /// Warnings for a run that opens `connections` TCP connections spread over `destinations`
    /// addresses under a limit of `descriptors` (already raised), with the fix.
    package static func preflight(connections: Int, descriptors: Int, tcp: Bool, destinations: Int = 1) -> [SettingText] {
        var warnings: [SettingText] = []
        if connections + 64 > descriptors {
            warnings.append("the file-descriptor limit is \(descriptors), below the \(connections) connections asked for (+64): \(descriptorFix(connections: connections)) (the hard limit in /etc/security/limits.conf)")
        }
        let perDestination = (connections + max(1, destinations) - 1) / max(1, destinations)
        if tcp, let (low, high) = localPortRange(), perDestination > high - low + 1 {
            warnings.append("the local port range \(low)-\(high) holds \(high - low + 1) ports, fewer than \(perDestination) connections to one address: widen it with `sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\"`, or spread the connections over several \(.source) addresses")
        }
        return warnings
    }

    /// How to let `connections` connections open: the fix in the descriptor warning and error.
    static func descriptorFix(connections: Int) -> String {
        "raise it with `ulimit -n \(connections * 2)`"
    }

    /// The peak resident set size of this process, in bytes.
    package static func peakResidentBytes() -> Int {
        // VmHWM is this process image's own peak: getrusage's ru_maxrss also holds the peak of
        // the process that forked it (a large parent, such as a test runner, hides ours).
        if let status = readSmallFile("/proc/self/status", limit: 16384),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
           let kibibytes = Int(line.dropFirst(6).filter(\.isNumber)) {
            return kibibytes * 1024
        }
        var usage = rusage()
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        guard getrusage(who, &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss) * 1024
    }

    static func readSmallFile(_ path: String, limit: Int = 256) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}
