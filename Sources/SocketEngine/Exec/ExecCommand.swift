import Glibc

/// The program a listener runs for each client, or a client for its connection: a program with
/// its arguments (`--exec`, ncat's `-e`) or a shell line run by `/bin/sh -c` (`--sh-exec`,
/// ncat's `-c`). Its standard input and output are the connection; no shell reads a program's
/// words.
public struct ExecCommand: Sendable, Equatable, CustomStringConvertible {
    /// The path spawned: the program found on `PATH` (or as given, with a slash), or `/bin/sh`.
    public let path: String
    /// The argument vector, `argv[0]` first (the program as written, or `sh`).
    public let arguments: [String]
    /// The text the command was made from, for messages.
    public let text: String

    /// A program and its arguments from one string, split as ncat's `-e` splits it (see
    /// ``split(_:)``): words are separated by white space, a backslash makes the next character
    /// part of the word (`a\ b` is one word), quotes are not special. The program is looked up
    /// in `searchPath` (a `PATH` value) unless it holds a slash.
    public init(program text: String, searchPath: String? = ProcessEnvironment.value(of: "PATH")) throws(SocketEngineError) {
        let words = Self.split(text)
        guard let program = words.first else {
            throw SocketEngineError(.invalidConfiguration, "the command to run is empty")
        }
        self.path = try Self.locate(program, searchPath: searchPath)
        self.arguments = words
        self.text = text
    }

    /// A line for `/bin/sh -c`, as ncat's `-c`.
    public init(shellLine text: String) throws(SocketEngineError) {
        guard text.contains(where: { $0 != " " && $0 != "\t" }) else {
            throw SocketEngineError(.invalidConfiguration, "the shell command to run is empty")
        }
        self.path = "/bin/sh"
        self.arguments = ["sh", "-c", text]
        self.text = text
    }

    /// The command as written.
    public var description: String { text }

    /// Words as ncat's `cmdline_split` makes them: white space (space, tab, newline, CR, VT,
    /// FF) separates; a backslash makes the next character part of the word, and a trailing
    /// one is dropped; quotes are characters like any other (`"a b"` is two words, `"a` and
    /// `b"`). One oddity of ncat is kept so that a command means the same to both: after a
    /// character escaped by a backslash (other than a backslash), the white space that follows
    /// is skipped and the word goes on (`a\x b` is the one word `axb`).
    package static func split(_ text: String) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        var inWord = false
        var escaped = false
        var gluing = false
        // Scalars, not characters: "\r\n" is one Character but two separators.
        for character in text.unicodeScalars {
            let space = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}"].contains(character)
            if escaped {
                word.append(character)
                escaped = false
                gluing = character != "\\"
                inWord = true
            } else if space && gluing {
                continue
            } else if character == "\\" {
                escaped = true
                gluing = false
                inWord = true
            } else if space {
                if inWord { words.append(String(word)) }
                word = String.UnicodeScalarView()
                inWord = false
            } else {
                word.append(character)
                gluing = false
                inWord = true
            }
        }
        if inWord { words.append(String(word)) }
        return words
    }

    /// The file `program` names: itself when it holds a slash, else the first executable file
    /// of that name in the `PATH` directories.
    package static func locate(_ program: String, searchPath: String?) throws(SocketEngineError) -> String {
        if program.contains("/") {
            guard access(program, X_OK) == 0 else {
                throw SocketEngineError(.invalidConfiguration, "cannot run '\(program)': \(String(cString: strerror(errno)))")
            }
            guard isRegularFile(program) else {
                throw SocketEngineError(.invalidConfiguration, "cannot run '\(program)': not a regular file")
            }
            return program
        }
        let directories = (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false)
        for directory in directories {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + program
            if access(candidate, X_OK) == 0, isRegularFile(candidate) { return candidate }
        }
        throw SocketEngineError(.invalidConfiguration, "no program '\(program)' found on PATH")
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}

/// The process's own environment, read once where it is needed.
public enum ProcessEnvironment {
    /// The value of `name`, or nil.
    public static func value(of name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Every `NAME=value` entry of the environment.
    package static func entries() -> [String] {
        var entries: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            entries.append(String(cString: entry))
            cursor += 1
        }
        return entries
    }
}
