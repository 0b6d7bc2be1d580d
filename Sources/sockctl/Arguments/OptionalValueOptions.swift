/// Options whose value is optional on the command line (`--reconnect [N]`): a bare
/// `--reconnect` not followed by a number becomes `--reconnect=DEFAULT` before parsing.
enum OptionalValueOptions {
    static let defaults = ["--reconnect": "5"]

    static func normalize(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                result += arguments[index...]
                break
            }
            if let fallback = defaults[argument] {
                let next = index + 1 < arguments.count ? arguments[index + 1] : ""
                if next.isEmpty || !next.allSatisfy(\.isNumber) {
                    result.append("\(argument)=\(fallback)")
                    index += 1
                    continue
                }
            }
            result.append(argument)
            index += 1
        }
        return result
    }
}
