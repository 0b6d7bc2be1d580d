import ArgumentParser

/// capture's options for long runs and their files, with tcpdump 4.99.3's meanings: `-C`,
/// `-G`, `-W`, `-z` (the file rotation of ``CaptureFileRotation``), `-U`, `--immediate-mode`,
/// `-q` and `-D`.
struct LongCaptureOptions: ParsableArguments {
    @Option(name: .customShort("C"), help: ArgumentHelp("With -w: before writing a packet, if the file holds more than SIZE million bytes, open the next: NAME1, NAME2... (with -W: a ring NAME0...).", valueName: "size"))
    var fileSize: String?

    @Option(name: .customShort("G"), help: ArgumentHelp("With -w: a new file for the first packet SECONDS or more after the current one began; the -w name is an strftime pattern.", valueName: "seconds"))
    var rotateSeconds: String?

    @Option(name: .customShort("W"), help: ArgumentHelp("With -C: a ring of COUNT files; with -G alone: stop after COUNT files.", valueName: "count"))
    var fileCount: String?

    @Option(name: .customShort("z"), help: ArgumentHelp("With -C or -G: run COMMAND FILE on each file once it is closed (e.g. gzip), as the user capture runs as.", valueName: "command"))
    var postRotateCommand: String?

    @Flag(name: .customShort("U"), help: "With -w: write each packet to the file as it is captured, not in 64 KiB chunks.")
    var packetBuffered = false

    @Flag(name: .customLong("immediate-mode"), help: "Hand each packet over as it arrives, not when the kernel's buffer fills or 1 s passes.")
    var immediateMode = false

    @Flag(name: .customShort("q"), help: "Quick output, as tcpdump's -q: 'tcp N' for TCP, UDP without its application, shorter link headers with -e; -qq also prints nothing after 'IP' for an IPv4 fragment that is not the first.")
    var quick: Int

    @Flag(name: .customShort("D"), help: "List the interfaces capture can use, numbered, as tcpdump -D does, and exit.")
    var listInterfaces = false

    /// tcpdump's `-C` in bytes (millions of bytes), `-G` seconds and `-W` count, checked as
    /// tcpdump checks them (`-C`: a positive integer not overflowing; `-G`: an integer ≥ 0, 0
    /// meaning none; `-W`: a positive integer).
    func checked(writeFile: String?, readFile: String?) throws -> (size: Int64?, seconds: Int64?, count: Int?) {
        var size: Int64?
        if let fileSize {
            guard let value = Int64(fileSize), value > 0 else { throw UsageError("invalid file size \(fileSize) for -C (expected a positive number of millions of bytes, e.g. 100)") }
            guard value <= Int64.max / 1_000_000 else { throw UsageError("file size \(fileSize) for -C is too large") }
            size = value * 1_000_000
        }
        var seconds: Int64?
        if let rotateSeconds {
            guard let value = Int64(rotateSeconds), value >= 0 else { throw UsageError("invalid number of seconds \(rotateSeconds) for -G (expected a whole number of seconds, e.g. 3600)") }
            seconds = value == 0 ? nil : value
        }
        var count: Int?
        if let fileCount {
            guard let value = Int(fileCount), value > 0, value <= 1_000_000 else { throw UsageError("invalid number of output files \(fileCount) for -W (expected 1 to 1000000, e.g. 10)") }
            count = value
        }
        let rotating = fileSize != nil || rotateSeconds != nil
        if rotating && writeFile == nil { throw UsageError("-C and -G need -w (they rotate the files it writes)") }
        if rotating && writeFile == "-" { throw UsageError("-C and -G write files; -w - is stdout") }
        if fileCount != nil && !rotating { throw UsageError("-W needs -C or -G") }
        if postRotateCommand != nil && !rotating { throw UsageError("-z needs -C or -G (it runs on each finished file)") }
        if postRotateCommand?.isEmpty == true { throw UsageError("-z needs a command") }
        if packetBuffered && writeFile == nil { throw UsageError("-U needs -w") }
        if immediateMode && readFile != nil { throw UsageError("--immediate-mode only applies to live capture") }
        return (size, seconds, count)
    }
}
