import Glibc
import SocketEngine

/// Local wall-clock time as tcpdump prints it: `HH:MM:SS.uuuuuu`.
enum Timestamp {
    static func now() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        let micros = Int(now.tv_nsec / 1000)
        return "\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2)).\(padded(micros, 6))"
    }
}
