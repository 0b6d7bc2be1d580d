import ArgumentParser
import NIOCore
import SocketEngine

/// How to reach the peer: the address family, source address and interface, the connect
/// timeout and static name entries. Shared by every command that connects (connect, send,
/// replay, loadtest); it becomes the engine's ``ConnectOptions``.
struct ConnectionOptions: ParsableArguments {
    @Flag(name: .customShort("4"), help: "Use IPv4 addresses only.")
    var ipv4Only = false

    @Flag(name: .customShort("6"), help: "Use IPv6 addresses only.")
    var ipv6Only = false

    @Option(
        name: .long, help: ArgumentHelp("Bind the local end to this address (or name), optionally with a port.", valueName: "addr[:port]"),
        transform: ArgumentValues.sourceAddress
    )
    var source: SourceAddress?

    @Option(name: .long, help: ArgumentHelp("Send through this network interface (SO_BINDTODEVICE).", valueName: "if"))
    var interface: String?

    @Option(name: .long, help: ArgumentHelp("Give up connecting after this long, across all addresses (default: \(ConnectOptions().connectTimeout.formatted)).", valueName: "dur"))
    var connectTimeout: Duration?

    @Option(
        name: .long,
        help: ArgumentHelp("Resolve HOST to these addresses instead of asking DNS (repeatable), like curl --resolve.", valueName: "host:addr[,addr...]"),
        transform: ResolveEntry.init(parsing:)
    )
    var resolve: [ResolveEntry] = []

    func validate() throws {
        if ipv4Only && ipv6Only { throw UsageError("-4 and -6 exclude each other") }
        if let interface { _ = try ArgumentValues.checkedInterfaceName(interface) }
        if let connectTimeout { _ = try checkedPositive(connectTimeout, "--connect-timeout") }
    }

    func makeConnectOptions() -> ConnectOptions {
        var options = ConnectOptions()
        options.family = ipv4Only ? .ipv4Only : (ipv6Only ? .ipv6Only : .any)
        options.source = source
        options.interface = interface
        if let connectTimeout { options.connectTimeout = connectTimeout }
        if !resolve.isEmpty {
            options.resolver = StaticResolver(table: resolve.reduce(into: [:]) { $0[$1.host, default: []] += $1.addresses })
        }
        return options
    }
}

/// One `--resolve HOST:ADDR[,ADDR...]` entry; IPv6 addresses may be bracketed.
struct ResolveEntry: Sendable {
    let host: String
    let addresses: [String]

    @Sendable init(parsing entry: String) throws {
        let form = "expected HOST:ADDR[,ADDR...], e.g. api.test:127.0.0.1"
        guard let colon = entry.firstIndex(of: ":"), colon != entry.startIndex else {
            throw UsageError(form)
        }
        host = String(entry[..<colon])
        addresses = entry[entry.index(after: colon)...].split(separator: ",").map {
            String($0.hasPrefix("[") && $0.hasSuffix("]") ? $0.dropFirst().dropLast() : $0)
        }
        guard !addresses.isEmpty else { throw UsageError("no address after '\(host):' (\(form))") }
        for address in addresses where (try? SocketAddress(ipAddress: address, port: 0)) == nil {
            throw UsageError("'\(address)' is not an IP address (\(form))")
        }
    }
}
