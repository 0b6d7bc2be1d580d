import Glibc

/// A whole, bounded file read from a descriptor: what the command line's file options (`TLS`
/// certificates and keys, a response or message file) read before a run starts.
package enum WholeFile {
    /// Why a file was not read.
    package enum Failure: Error, Equatable {
        /// The file holds more than the limit.
        case tooLarge
        /// `read(2)` failed with this errno.
        case unreadable(Int32)
    }

    /// Everything readable from `descriptor` until end of file, at most `limit` bytes.
    package static func read(_ descriptor: Int32, limit: Int) -> Result<[UInt8], Failure> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Syscall.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return .success(bytes) }
            if count < 0 { return .failure(.unreadable(errno)) }
            guard bytes.count + count <= limit else { return .failure(.tooLarge) }
            bytes += chunk[0..<count]
        }
    }
}
