import ArgumentParser
import Capture
import LoadGen
import PacketDecoding
import Recording
import SocketEngine

/// The one place an error becomes what the user sees: a one-line message and the exit status
/// of the SPEC (0 success, 1 the operation failed, 2 usage error). Each library error says
/// whether it is the command line's mistake (`isUsageError`); everything else is a failure.
enum ExitStatus {
    static func of(_ error: any Error) -> Int32 {
        switch error {
        case let failed as CommandFailed: failed.status
        case is UsageError: 2
        case let error as SocketEngineError: error.isUsageError ? 2 : 1
        case let error as RecordingError: error.isUsageError ? 2 : 1
        case let error as LoadGenError: error.isUsageError ? 2 : 1
        case let error as CaptureError: error.isUsageError ? 2 : 1
        default: 1
        }
    }

    /// The line to print (no program prefix), and text to print after it when there is some.
    static func message(_ error: any Error) -> (line: String, detail: String?) {
        switch error {
        case let error as UsageError: (error.message, nil)
        case let error as SocketEngineError: (OptionNames.render(error.text), nil)
        case let error as RecordingError: (OptionNames.render(error.text), error.detail)
        case let error as LoadGenError: (OptionNames.render(error.text), nil)
        case let error as CaptureError where error.code == .invalidFilter:
            ("invalid filter: \(error.message) (expected a pcap-filter(7) expression such as 'tcp port 80')", nil)
        case let error as CaptureError: (error.message, nil)
        case let error as PacketDecodingError: (error.description, nil)
        default: ("\(error)", nil)
        }
    }
}

/// The reason is already printed: exit status 1 (the operation failed) or 2 (a usage error
/// found only at run time).
struct CommandFailed: Error {
    var status: Int32 = 1
}

/// A command-line mistake: printed as one line, exit status 2. (ArgumentParser's own type, so
/// that it keeps its meaning when thrown from `validate()`.)
typealias UsageError = ValidationError

/// Runs a check of `validate()`: what a library refuses there is the command line's mistake,
/// reported by the parser as a usage error (exit status 2) like its own.
func validating<T>(_ check: () throws -> T) throws -> T {
    do {
        return try check()
    } catch let error as UsageError {
        throw error
    } catch {
        throw UsageError(ExitStatus.message(error).line)
    }
}
