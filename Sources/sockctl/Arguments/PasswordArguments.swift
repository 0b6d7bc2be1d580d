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
        for (index, range) in passwordRanges(in: CommandLine.arguments) {
            guard index < Int(CommandLine.argc), let argument = CommandLine.unsafeArgv[index] else { continue }
            for offset in range { argument[offset] = CChar(UInt8(ascii: "*")) }
        }
    }

    /// Where the passwords are: the index of each argument holding one, and the byte offsets of
    /// the password within it (UTF-8).
    static func passwordRanges(in arguments: [String]) -> [(Int, Range<Int>)] {
        var found: [(Int, Range<Int>)] = []
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            let argument = arguments[index]
            // `--proxy-user VALUE` or `--proxy-user=VALUE`.
            let equals = argument.hasPrefix("--") ? argument.firstIndex(of: "=") : nil
            let name = equals.map { String(argument[..<$0]) } ?? argument
            let isURL = urlOptions.contains(name)
            if isURL || userPasswordOptions.contains(name) {
                if let equals {
                    let offset = name.utf8.count + 1
                    if let range = password(in: String(argument[argument.index(after: equals)...]), url: isURL) {
                        found.append((index, (range.lowerBound + offset)..<(range.upperBound + offset)))
                    }
                } else if index + 1 < arguments.count {
                    if let range = password(in: arguments[index + 1], url: isURL) { found.append((index + 1, range)) }
                    index += 1
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
            guard let scheme = bytes.firstRange(of: Array("://".utf8)) else { return nil }
            start = scheme.upperBound
            // The credentials end at the last '@' before the path.
            let authorityEnd = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
            guard let at = bytes[start..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return nil }
            end = at
        }
        guard let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":")), colon + 1 < end else { return nil }
        return (colon + 1)..<end
    }
}
