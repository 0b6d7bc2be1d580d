/// Which of a TLS layer's files a problem is with.
///
/// The layer says what is wrong with a file (no such file, permission denied, not PEM, …) and
/// leaves naming the file to its caller, through a `naming` closure: a command line names the
/// option that gave it (`--cafile`, `--upstream-cert`), a program its own setting.
public enum TLSFile: Sendable, Hashable, CaseIterable {
    /// CA certificates a client trusts besides the system's (``TLSClientOptions/caFile``).
    case trustedCAs
    /// The certificate chain presented to the peer (``TLSClientOptions/certificateFile``,
    /// ``TLSServerOptions/certificateFile``).
    case certificate
    /// The private key of that certificate (``TLSClientOptions/keyFile``, ``TLSServerOptions/keyFile``).
    case privateKey
    /// CA certificates that sign acceptable client certificates (``TLSServerOptions/clientCAFile``).
    case clientCAs

    /// Plain words, for callers with no better name: `CA file`, `certificate file`, `key file`,
    /// `client CA file`.
    public var plainName: String {
        switch self {
        case .trustedCAs: "CA file"
        case .certificate: "certificate file"
        case .privateKey: "key file"
        case .clientCAs: "client CA file"
        }
    }
}
