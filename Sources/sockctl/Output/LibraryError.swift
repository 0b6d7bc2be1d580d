import Capture
import LoadGen
import MetricsExport
import PacketDecoding
import Recording
import SocketEngine

/// What the CLI needs of every library's error type: the exit status of the SPEC (2 when the
/// command line asked for something that cannot be, 1 when the operation failed), the one line
/// to print, the settings it names worded as this command line spells them (``OptionNames``),
/// and any lines to print after it. Every library module's one error type conforms here, in
/// the CLI, so ``ExitStatus`` has one switch and no library depends on another for it.
protocol LibraryError: Error {
    /// Whether the command line is at fault (exit status 2) rather than the operation (1).
    var isUsageError: Bool { get }
    /// The one line to print, without the program prefix.
    var line: String { get }
    /// Lines to print after ``line`` (each ending in a newline), when there are some.
    var detail: String? { get }
}

extension LibraryError {
    /// 2 for a usage error, 1 for a failure.
    var exitStatus: Int32 { isUsageError ? 2 : 1 }
    /// None.
    var detail: String? { nil }
}

extension SocketEngineError: LibraryError {
    var line: String { OptionNames.render(text) }
}

extension RecordingError: LibraryError {
    var line: String { OptionNames.render(text) }
}

extension LoadGenError: LibraryError {
    var line: String { OptionNames.render(text) }
}

extension MetricsExportError: LibraryError {
    var line: String { OptionNames.render(text) }
}

extension CaptureError: LibraryError {
    var line: String {
        guard code == .invalidFilter else { return message }
        return "invalid filter: \(message) (expected a pcap-filter(7) expression such as 'tcp port 80')"
    }
}

extension PacketDecodingError: LibraryError {
    /// A capture that cannot be decoded is never the command line's mistake.
    var isUsageError: Bool { false }
    var line: String { description }
}
