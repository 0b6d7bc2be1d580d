import Glibc

/// One packet read from a capture file.
package struct CaptureRecord {
    package var header: PacketHeader
    /// The captured bytes (`header.capturedLength` of them), pointing into the reader's buffer:
    /// valid only until the next call to ``CaptureFileReader/next()`` or the reader's release.
    package var bytes: UnsafeRawBufferPointer
}
