import ArgumentParser
import SocketEngine

/// `--allow-destination`, `--deny-destination` and `--proxy-user`: the rules of
/// `proxy socks5://…` and `proxy http-connect://…` for the destinations their clients ask for,
/// and the user and password those clients must give. (`--allow`/`--deny` still filter the
/// clients themselves.)
struct TunnelServerOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("socks5:// and http-connect:// only: dial only destinations matching this (repeatable; wins over --deny-destination): a network (10.0.0.0/8, ::1), a name (example.com, *.internal) or *, each with :PORT if wanted (127.0.0.1:8080, [::1]:443, *:443). A name's addresses are checked after resolving.", valueName: "dest"))
    var allowDestination: [DestinationPattern] = []

    @Option(name: .long, help: ArgumentHelp("socks5:// and http-connect:// only: refuse destinations matching this (repeatable; same patterns as --allow-destination): SOCKS5 reply 0x02, HTTP 403.", valueName: "dest"))
    var denyDestination: [DestinationPattern] = []

    @Option(name: .long, help: ArgumentHelp("socks5:// and http-connect:// only: every client must give this user and password (SOCKS5: RFC 1929 username/password; HTTP: Proxy-Authorization: Basic, else 407). Once parsed, the password is overwritten with * in the process's arguments, so ps shows user:****.", valueName: "user:pass"))
    var proxyUser: String?

    /// The proxy server of `kind` with these rules; nil for a relay to an upstream, which takes
    /// none of these options.
    func server(kind: TunnelServer.Kind?) throws -> TunnelServer? {
        let credentials = try proxyUser.map(Self.credentials)
        guard let kind else {
            if !allowDestination.isEmpty || !denyDestination.isEmpty || proxyUser != nil {
                throw UsageError("--allow-destination, --deny-destination and --proxy-user need a socks5:// or http-connect:// LISTEN (a proxy whose clients name their destination)")
            }
            return nil
        }
        return TunnelServer(kind: kind, destinations: DestinationPolicy(allow: allowDestination, deny: denyDestination), credentials: credentials)
    }

    /// `USER:PASS`, each 1 to 255 bytes (the password may be empty), as RFC 1929 carries them.
    private static func credentials(_ text: String) throws -> ProxyCredentials {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex,
              text[..<colon].utf8.count <= 255, text[text.index(after: colon)...].utf8.count <= 255
        else {
            throw UsageError("invalid --proxy-user '\(text)' (expected USER:PASS, each at most 255 bytes, e.g. alice:s3cret)")
        }
        return ProxyCredentials(username: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }
}
