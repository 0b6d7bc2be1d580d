import PacketDecoding

/// tcpdump's output letters, counted as a command line gives them, turned into ``PrintOptions``:
/// the one mapping `sockctl capture` and the golden tests share. A command-line parser, so it
/// lives in the CLI (the decoder sees only ``PrintOptions``).
struct TcpdumpFlags: Sendable, Equatable {
    /// How many times `-x`, `-X` and `-A` were given (twice: the dump starts at the link header).
    var hex = 0
    /// How many times `-X` was given.
    var hexAndASCII = 0
    /// How many times `-A` was given.
    var ascii = 0
    /// `--no-dump`: header lines only (what tcpdump prints without a dump letter).
    var noDump = false
    /// How many times `-t` was given (0 to 5).
    var timestamps = 0
    /// `--nano`, `-S`, `-e`.
    var nanoseconds = false
    /// `-S` was given.
    var absoluteSequenceNumbers = false
    /// `-e` was given.
    var linkHeader = false
    /// How many times `-v` was given (tcpdump reads at most 3).
    var verbose = 0
    /// How many times `-q` was given (quick output; twice: quieter still).
    var quick = 0

    /// No letters given: every count zero, every switch off.
    init() {}

    /// Counts the letters of tcpdump-style arguments (`-XX`, `-tttt`, `-e`, `-S`, `-v`, `--nano`,
    /// `--no-dump`); other arguments are not output letters and are left out.
    init(arguments: [String]) {
        for argument in arguments {
            switch argument {
            case "--no-dump": noDump = true
            case "--nano": nanoseconds = true
            case _ where argument.hasPrefix("-") && !argument.hasPrefix("--"):
                for letter in argument.dropFirst() {
                    switch letter {
                    case "x": hex += 1
                    case "X": hexAndASCII += 1
                    case "A": ascii += 1
                    case "t": timestamps += 1
                    case "S": absoluteSequenceNumbers = true
                    case "e": linkHeader = true
                    case "v": verbose += 1
                    case "q": quick += 1
                    default: break
                    }
                }
            default: break
            }
        }
    }
}

extension PrintOptions {
    /// What the letters ask for. Without a dump letter the dump is sockctl's default, `-X`
    /// (tcpdump's is none: `--no-dump`); with several, `-X` wins over `-x` over `-A`.
    init(_ flags: TcpdumpFlags) {
        self.init()
        if flags.noDump {
            dump = .none
        } else if flags.hexAndASCII > 0 {
            dump = .hexAndASCII
            dumpIncludesLinkHeader = flags.hexAndASCII > 1
        } else if flags.hex > 0 {
            dump = .hex
            dumpIncludesLinkHeader = flags.hex > 1
        } else if flags.ascii > 0 {
            dump = .ascii
            dumpIncludesLinkHeader = flags.ascii > 1
        }
        timestamps = switch flags.timestamps {
        case 0: .timeOfDay
        case 1: .none
        case 2: .unixSeconds
        case 3: .sincePrevious
        case 4: .dateAndTime
        default: .sinceFirst
        }
        nanoseconds = flags.nanoseconds
        absoluteSequenceNumbers = flags.absoluteSequenceNumbers
        linkHeader = flags.linkHeader
        verbosity = min(flags.verbose, 3)
        quietness = flags.quick
    }
}
