import NIOCore

/// What a server writes back for one message it received on the answering fast path
/// (``Connection/answerEach(_:maxFrameSize:delay:with:)``), and whether the connection ends
/// once it is written (an HTTP response to `Connection: close`, to HTTP/1.0 without
/// keep-alive, or to a malformed request).
package struct Answer: Sendable {
    /// The bytes to write; nil: nothing is written for this message.
    package var bytes: ByteBuffer?
    /// Close the connection once `bytes` (and every answer before them) are written; the
    /// messages that arrived after this one are not answered.
    package var closeAfter: Bool

    /// An answer of `bytes` (nil: none), closing the connection after it when `closeAfter`.
    package init(_ bytes: ByteBuffer?, closeAfter: Bool = false) {
        self.bytes = bytes
        self.closeAfter = closeAfter
    }

    /// No answer; the connection goes on.
    package static let none = Answer(nil)
}
