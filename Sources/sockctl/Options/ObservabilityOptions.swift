import ArgumentParser
import PacketDecoding
import SocketEngine

/// `-v` (events on stderr), `--hexdump` (every byte each way, tcpdump -X style, on stderr) and
/// `--color`. Shared by connect, send, replay and listen.
struct ObservabilityOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print more on stderr: connection events, with timestamps.")
    var verbose = false

    @Flag(name: .long, help: "Print all traffic in the tcpdump -X layout (hex and ASCII), with direction and time, on stderr.")
    var hexdump = false

    @OptionGroup var terminal: TerminalOptions

    /// The traffic tap for `--hexdump`, or nil.
    var tap: TrafficTap? {
        guard hexdump else { return nil }
        let printer = HexdumpPrinter.standard
        return { printer.print($0) }
    }
}
