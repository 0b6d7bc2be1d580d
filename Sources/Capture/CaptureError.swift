/// The one error type of the Capture library: why opening, filtering or running a capture, or
/// reading or writing a capture file, failed, as one line of text.
///
/// ``description`` is written for a person and never contains a newline: libpcap's own
/// messages (which sometimes span two lines in tcpdump) are joined onto one line. ``code`` lets
/// the caller choose an exit status, e.g. a bad filter expression is a usage error.
///
/// Not errors: a capture that ends because ``LiveCapture/stop()`` was called, or because the
/// packet count was reached; a filter that matches nothing.
public struct CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// The process lacks root or `CAP_NET_RAW` (libpcap `PCAP_ERROR_PERM_DENIED`).
        case permissionDenied
        /// The interface does not exist (`PCAP_ERROR_NO_SUCH_DEVICE`).
        case noSuchDevice
        /// The device exists but could not be opened or activated for another reason.
        case activationFailed
        /// The requested link-layer type (`-y`) is not available on the device.
        case linkTypeNotSupported
        /// The BPF expression does not compile, or the compiled program could not be installed.
        case invalidFilter
        /// Reading packets failed after the capture was running (e.g. the interface went down).
        case readFailed
        /// ``LiveCapture/run(count:handler:)`` was called while another loop is running.
        case alreadyRunning
        /// The user to drop privileges to (`-Z user`, or by default `tcpdump` or `nobody`) does not exist.
        case unknownUser
        /// Dropping privileges: switching groups or user id failed, or root could be regained afterwards.
        case privilegeDropFailed
        /// `-r FILE`: the capture file cannot be read, or is not a capture.
        case unreadableFile
        /// `-r FILE`: there is no such file, or it may not be opened (the command line's mistake).
        case unopenableFile
        /// `-w FILE`: the pcap file cannot be created or written.
        case writeFailed
        /// The command run on each finished file (`-z`) could not be started.
        case commandFailed
    }

    /// The kind of failure; ``isUsageError`` groups the usage errors.
    public let code: Code
    /// The one-line message, without a program-name prefix.
    public let message: String

    /// An error of kind `code`; a multi-line `message` is joined onto one line.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = Self.oneLine(message)
    }

    /// The ``message``: one line, no program-name prefix.
    public var description: String { message }

    /// True when the command line asked for something that is not there (an interface, a link
    /// type, a user) or does not compile (a filter), rather than the capture failing.
    public var isUsageError: Bool {
        switch code {
        case .noSuchDevice, .invalidFilter, .linkTypeNotSupported, .unknownUser, .unopenableFile: true
        default: false
        }
    }

    /// Joins libpcap's multi-line texts (`"...\n(socket: ...)"`) onto one line.
    static func oneLine(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline }) else { return text }
        return text.split(whereSeparator: { $0.isNewline }).joined(separator: " ")
    }
}
