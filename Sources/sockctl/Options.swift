import ArgumentParser
import NIOCore
import SocketEngine

/// How to reach the peer: shared by every command that connects.
struct ConnectionOptions: ParsableArguments {
    @Flag(name: .customShort("4"), help: "Use IPv4 addresses only.")
    var ipv4Only = false

    @Flag(name: .customShort("6"), help: "Use IPv6 addresses only.")
    var ipv6Only = false

    @Option(name: .long, help: ArgumentHelp("Bind the local end to this address (or name), optionally with a port.", valueName: "addr[:port]"))
    var source: String?

    @Option(name: .long, help: ArgumentHelp("Send through this network interface (SO_BINDTODEVICE).", valueName: "if"))
    var interface: String?

    @Option(name: .long, help: ArgumentHelp("Give up connecting after this long, across all addresses.", valueName: "dur"))
    var connectTimeout: String = "10s"

    @Option(name: .long, help: ArgumentHelp("Resolve HOST to these addresses instead of asking DNS (repeatable), like curl --resolve.", valueName: "host:addr[,addr...]"))
    var resolve: [String] = []

    func validate() throws {
        if ipv4Only && ipv6Only { throw UsageError("-4 and -6 exclude each other") }
        _ = try makeConnectOptions()
    }

    func makeConnectOptions() throws -> ConnectOptions {
        var options = ConnectOptions()
        options.family = ipv4Only ? .ipv4Only : (ipv6Only ? .ipv6Only : .any)
        options.source = source
        if let interface {
            guard !interface.isEmpty, interface.utf8.count < 16 else {
                throw UsageError("invalid interface name '\(interface)'")
            }
            options.interface = interface
        }
        options.connectTimeout = try ArgumentValues.positiveDuration(connectTimeout, option: "--connect-timeout")
        if !resolve.isEmpty {
            var table: [String: [String]] = [:]
            for entry in resolve {
                guard let colon = entry.firstIndex(of: ":"), colon != entry.startIndex else {
                    throw UsageError("invalid --resolve '\(entry)' (expected HOST:ADDR[,ADDR...])")
                }
                let host = String(entry[..<colon])
                let addresses = entry[entry.index(after: colon)...].split(separator: ",").map {
                    String($0.hasPrefix("[") && $0.hasSuffix("]") ? $0.dropFirst().dropLast() : $0)
                }
                guard !addresses.isEmpty else { throw UsageError("invalid --resolve '\(entry)': no address") }
                for address in addresses where (try? SocketAddress(ipAddress: address, port: 0)) == nil {
                    throw UsageError("invalid --resolve '\(entry)': '\(address)' is not an IP address")
                }
                table[host, default: []] += addresses
            }
            options.resolver = StaticResolver(table: table)
        }
        return options
    }
}

/// `--framing` and `--max-frame`.
struct FramingOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Message boundaries: raw, line, crlf, null, length:N[:be|:le] (N = 1, 2, 4, 8) or fixed:N.", valueName: "framing"))
    var framing: String = "raw"

    @Option(name: .long, help: ArgumentHelp("Largest message accepted; a longer one closes that connection with an error.", valueName: "size"))
    var maxFrame: String = "16MiB"

    func validate() throws {
        _ = try parsedFraming()
        _ = try maximumFrameSize()
    }

    func parsedFraming() throws -> Framing {
        let framing = try ArgumentValues.framing(self.framing)
        if case .fixed(let size) = framing, size > (try maximumFrameSize()) {
            throw UsageError("fixed:\(size) is larger than --max-frame \(maxFrame)")
        }
        return framing
    }

    func maximumFrameSize() throws -> Int {
        try ArgumentValues.byteSize(maxFrame, option: "--max-frame", range: 1...(1 << 30))
    }
}

/// `-v` and `--hexdump`.
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
