import NIOCore

import Glibc

/// `--allow` / `--deny` as one decision. With any `--allow`, only allowed peers get in (an
/// address in both lists is allowed, as in ncat); otherwise everyone but the denied.
public struct AccessPolicy: Sendable, Equatable {
    /// `--allow` ranges; when there is any, only peers inside one of them get in.
    public var allow: [AddressRange]
    /// `--deny` ranges: peers inside one are refused. Ignored when ``allow`` is not empty.
    public var deny: [AddressRange]

    /// A policy that admits `allow` and refuses `deny`; with both empty, everyone gets in.
    public init(allow: [AddressRange] = [], deny: [AddressRange] = []) {
        self.allow = allow
        self.deny = deny
    }

    /// `nil` to admit, or the reason for refusing.
    package func refusal(for peer: SocketAddress?) -> SettingText? {
        guard let peer else { return nil }
        if case .unixDomainSocket = peer { return nil }
        if !allow.isEmpty {
            return allow.contains(where: { $0.contains(peer) }) ? nil : "not in \(.allow)"
        }
        if let range = deny.first(where: { $0.contains(peer) }) {
            return "matches \(.deny) \(range)"
        }
        return nil
    }

    /// True when neither list has a range: every peer is admitted.
    public var isEmpty: Bool { allow.isEmpty && deny.isEmpty }
}
