import ArgumentParser
import PacketDecoding
import SocketEngine

/// `-v` (events on stderr) and `--hexdump` (every byte each way, tcpdump -X style).
struct ObservabilityOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print connection events with timestamps on stderr.")
    var verbose = false

    @Flag(name: .long, help: "Print all traffic on stderr as tcpdump -X style hex and ASCII, with direction and time.")
    var hexdump = false

    /// The traffic tap for `--hexdump`, or nil.
    var tap: TrafficTap? {
        guard hexdump else { return nil }
        let printer = HexdumpPrinter(output: .standardError)
        return { printer.print($0) }
    }
}
