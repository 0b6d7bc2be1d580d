/// A host name no resolver can answer for, refused by the C library itself: its first label is
/// 64 bytes, over DNS's limit of 63, so `getaddrinfo` fails without sending a query. (A name
/// such as `no-such-host.invalid` is asked of the machine's DNS server — traffic off loopback,
/// which tests never send.)
public let unresolvableHost = String(repeating: "a", count: 64) + ".invalid"
