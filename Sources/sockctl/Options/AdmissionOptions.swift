import ArgumentParser
import SocketEngine

/// `--max-clients`, `--allow` and `--deny`: whom a server (listen, proxy) lets in. Shared by
/// the commands that accept clients; it fills the engine's ``ListenOptions``.
struct AdmissionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Refuse clients beyond this many at once.", valueName: "n"))
    var maxClients: Int = 100

    @Option(name: .long, help: ArgumentHelp("Only admit clients from this network (repeatable); wins over --deny.", valueName: "cidr"))
    var allow: [AddressRange] = []

    @Option(name: .long, help: ArgumentHelp("Refuse clients from this network (repeatable).", valueName: "cidr"))
    var deny: [AddressRange] = []

    /// Sets the client limit and the access policy of a listener on `endpoint`.
    func apply(to options: inout ListenOptions, endpoint: Endpoint) throws {
        options.maximumClients = try checkedCount(maxClients, "--max-clients", within: 1...1_000_000)
        options.access = AccessPolicy(allow: allow, deny: deny)
        if endpoint.transport == .unix && !options.access.isEmpty {
            throw UsageError("--allow and --deny need an IP listener, not a Unix socket")
        }
    }
}
