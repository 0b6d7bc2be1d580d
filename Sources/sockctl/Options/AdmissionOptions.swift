import ArgumentParser
import SocketEngine

/// `--max-clients`, `--allow` and `--deny`: whom a server (listen, proxy) lets in; and
/// `--handshake-timeout`, `--idle-timeout`, `--min-rate` and `--rate-window`: how long a client may
/// hold its place. Shared by the commands that accept clients; it fills the engine's
/// ``ListenOptions`` (its ``SlotRules``).
struct AdmissionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Refuse clients beyond this many at once.", valueName: "n"))
    var maxClients: Int = 100

    @Option(name: .long, help: ArgumentHelp("Only admit clients from this network (repeatable); wins over --deny.", valueName: "cidr"))
    var allow: [AddressRange] = []

    @Option(name: .long, help: ArgumentHelp("Refuse clients from this network (repeatable).", valueName: "cidr"))
    var deny: [AddressRange] = []

    @Option(name: .long, help: ArgumentHelp("Close (and count as refused) a client whose TLS handshake or WebSocket upgrade is not done this long after it connected.", valueName: "dur"))
    var handshakeTimeout: Duration = .seconds(10)

    @Option(name: .long, help: ArgumentHelp("Close a connection once nothing was received or sent for this long (each client's; default: never).", valueName: "dur"))
    var idleTimeout: Duration?

    @Option(name: .long, help: ArgumentHelp("When --max-clients are connected, a newcomer takes the place of the slowest client moving fewer bytes a second than this over --rate-window; 0: refuse the newcomer instead.", valueName: "rate"))
    var minRate = ByteRate(bytesPerSecond: SlotRules().minimumRate)

    @Option(name: .long, help: ArgumentHelp("How long --min-rate is judged over; a client connected for less is never made to leave.", valueName: "dur"))
    var rateWindow: Duration = .seconds(10)

    /// Sets the client limit, the access policy and the slot rules of a listener on `endpoint`.
    func apply(to options: inout ListenOptions, endpoint: Endpoint) throws {
        options.maximumClients = try checkedCount(maxClients, "--max-clients", within: 1...1_000_000)
        options.access = AccessPolicy(allow: allow, deny: deny)
        if endpoint.transport == .unix && !options.access.isEmpty {
            throw UsageError("--allow and --deny need an IP listener, not a Unix socket")
        }
        var rules = SlotRules()
        rules.handshakeTimeout = try checkedPositive(handshakeTimeout, "--handshake-timeout")
        if let idleTimeout {
            if endpoint.transport == .udp {
                throw UsageError("--idle-timeout applies to stream clients, not udp:// (the proxy closes idle UDP flows after --udp-idle-timeout)")
            }
            rules.idleTimeout = try checkedPositive(idleTimeout, "--idle-timeout")
        }
        rules.minimumRate = minRate.bytesPerSecond
        rules.rateWindow = try checkedPositive(rateWindow, "--rate-window")
        options.slotRules = rules
    }
}
