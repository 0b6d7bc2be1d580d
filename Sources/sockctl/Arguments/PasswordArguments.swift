/// Passwords on the command line (`--proxy-user USER:PASS`, `--proxy scheme://USER:PASS@HOST`)
/// are overwritten with `*` in the process's own argument memory once parsed, as curl does for
/// `-u` and `-U`: `ps`, `top` and `/proc/PID/cmdline` then show the user and not the password.
/// (Between the start and the parse, a fraction of a millisecond, they are still readable there;
/// the environment or a file is the place for a password that must never show.)
enum PasswordArguments {
    /// Options whose value is `USER:PASS`.
    static let userPasswordOptions: Set<String> = ["--proxy-user"]
    /// Options whose value is a URL that may carry `USER:PASS@`.
    static let urlOptions: Set<String> = ["--proxy"]

    /// Overwrites every password in the process's arguments (`CommandLine.unsafeArgv`) with `*`,
    /// byte for byte, so the arguments keep their lengths.
    static func hideInProcessArguments() {
        let count = Int(CommandLine.argc)
        var arguments: [String] = []
        for index in 0..<count {
            arguments.append(CommandLine.unsafeArgv[index].map { String(cString: $0) } ?? "")
        }
        for (index, range) in passwordRanges(in: arguments) {
            guard index < count, let argument = CommandLine.unsafeArgv[index] else { continue }
            for offset in range { argument[offset] = CChar(UInt8(ascii: "*")) }
        }
    }

    /// Where the passwords are: the index of each argument holding one, and the byte offsets of
    /// the password within it (UTF-8).
    static func passwordRanges(in arguments: [String]) -> [(Int, Range<Int>)] {
        var found: [(Int, Range<Int>)] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            for option in userPasswordOptions.union(urlOptions) {
                let isURL = urlOptions.contains(option)
                if argument == option, index + 1 < arguments.count {
                    if let range = password(in: arguments[index + 1], url: isURL) { found.append((index + 1, range)) }
                    index += 1
                } else if argument.hasPrefix(option + "=") {
                    let prefix = option.utf8.count + 1
                    if let range = password(in: String(argument.dropFirst(option.count + 1)), url: isURL) {
                        found.append((index, (range.lowerBound + prefix)..<(range.upperBound + prefix)))
                    }
                }
            }
            index += 1
        }
        return found
    }

    /// The password's bytes in `USER:PASS` (`url` false) or in `scheme://USER:PASS@host…`; nil
    /// when there is none (no colon, an empty password, a URL without credentials).
    static func password(in value: String, url: Bool) -> Range<Int>? {
        let bytes = Array(value.utf8)
        var start = 0
        var end = bytes.count
        if url {
            guard let scheme = find(Array("://".utf8), in: bytes) else { return nil }
            start = scheme + 3
            // The credentials end at the last '@' before the path.
            let authorityEnd = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
            guard let at = bytes[start..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return nil }
            end = at
        }
        guard let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":")), colon + 1 < end else { return nil }
        return (colon + 1)..<end
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<(start + needle.count)]) == needle {
            return start
        }
        return nil
    }
}
