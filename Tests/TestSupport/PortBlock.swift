import Glibc

/// Consecutive TCP ports on 127.0.0.1, every one bound by this test for as long as the value
/// lives: those listed in `open` listen (the kernel completes a connect without an accept),
/// the others refuse. A range check (`connect -z HOST 20-30`) then meets exactly these answers,
/// whatever other tests do meanwhile — a port freed or left unbound could be anyone's.
public final class PortBlock: @unchecked Sendable {
    /// The first port; the block is `first ..< first + count`.
    public let first: Int
    public let count: Int
    private let descriptors: [Int32]

    /// `count` ports (at most 16); `open` holds offsets into the block (0 is the first port).
    /// Tries up to 50 places the kernel suggests before giving up.
    public init(count: Int, open: Set<Int>) throws {
        guard (1...16).contains(count) else { throw HarnessError("a block of 1 to 16 ports, not \(count)") }
        for _ in 0..<50 {
            guard let base = Self.suggestedPort(), base + count <= 65535 else { continue }
            var taken: [Int32] = []
            for offset in 0..<count {
                guard let descriptor = Self.bind(port: base + offset, listening: open.contains(offset)) else { break }
                taken.append(descriptor)
            }
            if taken.count == count {
                first = base
                self.count = count
                descriptors = taken
                return
            }
            taken.forEach { _ = close($0) }
        }
        throw HarnessError("no \(count) consecutive free ports on 127.0.0.1")
    }

    /// The port at `offset` in the block.
    public subscript(offset: Int) -> Int { first + offset }
    /// The block as nc writes a range: `FIRST-LAST`.
    public var range: String { "\(first)-\(first + count - 1)" }

    deinit { descriptors.forEach { _ = close($0) } }

    /// A port the kernel would give now (bound and released at once).
    static func suggestedPort() -> Int? {
        guard let descriptor = bind(port: 0, listening: false) else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) == 0 }
        }
        return named ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    private static func bind(port: Int, listening: Bool) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard bound, !listening || listen(descriptor, 16) == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}
