import ArgumentParser
import PacketDecoding
import SocketEngine

/// `-v` (events on stderr) and `--hexdump` (every byte each way, tcpdump -X style).
struct ObservabilityOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print more on stderr: connection events, with timestamps.")
    var verbose = false

    @Flag(name: .long, help: "Print all traffic in the tcpdump -X layout (hex and ASCII), with direction and time, on stderr.")
    var hexdump = false

    /// The traffic tap for `--hexdump`, or nil.
    var tap: TrafficTap? {
        guard hexdump else { return nil }
        let printer = HexdumpPrinter(output: .standardError)
        return { printer.print($0) }
    }
}
