/// The snapshot length a capture file writer records and clamps its records to: 0 or more than
/// ``CaptureFileReader/maximumCaptureLength`` (262144) means 262144, so every file written reads
/// back in libpcap. Shared by ``PcapWriter`` and ``PcapngWriter``.
package enum SnapshotLength {
    /// `requested`, adjusted as above.
    package static func clamped(_ requested: Int) -> Int {
        let maximum = CaptureFileReader.maximumCaptureLength
        return requested <= 0 || requested > maximum ? maximum : requested
    }
}
