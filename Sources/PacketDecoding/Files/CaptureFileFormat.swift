import Glibc

/// The container format of a capture file.
package enum CaptureFileFormat: Sendable {
    /// Classic libpcap format (`a1b2c3d4` µs or `a1b23c4d` ns magic, either byte order).
    case pcap
    /// pcapng (Section Header Block `0a0d0d0a`).
    case pcapng
}
