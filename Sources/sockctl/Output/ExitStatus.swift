import ArgumentParser

/// The one place an error becomes what the user sees: a one-line message and the exit status
/// of the SPEC (0 success, 1 the operation failed, 2 usage error). Each library error says
/// whether it is the command line's mistake (``LibraryError``); everything else is a failure.
enum ExitStatus {
    static func of(_ error: any Error) -> Int32 {
        switch error {
        case let failed as CommandFailed: failed.status
        case is UsageError: 2
        case let error as any LibraryError: error.exitStatus
        default: 1
        }
    }

    /// The line to print (no program prefix), and text to print after it when there is some.
    static func message(_ error: any Error) -> (line: String, detail: String?) {
        switch error {
        case let error as UsageError: (error.message, nil)
        case let error as any LibraryError: (error.line, error.detail)
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
