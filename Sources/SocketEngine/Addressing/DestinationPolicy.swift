import NIOCore

/// `proxy --allow-destination` / `--deny-destination` as one decision, in the manner of
/// `--allow`/`--deny` (``AccessPolicy``): with any allow pattern, only a destination one of them
/// matches is dialled; otherwise every destination but the denied.
///
/// Decided twice: on the request, before anything is resolved (a name pattern allows or refuses
/// a name there and then), and on the addresses a name resolved to — only those the network
/// patterns let through are dialled, so `localhost` is no way around a denied `127.0.0.0/8`.
public struct DestinationPolicy: Sendable, Hashable {
    /// Allow patterns; when there is any, only destinations one of them matches are dialled.
    public var allow: [DestinationPattern]
    /// Deny patterns: destinations one of them matches are refused. Ignored when ``allow`` is
    /// not empty.
    public var deny: [DestinationPattern]

    /// A policy allowing `allow` and refusing `deny`; with both empty, every destination.
    public init(allow: [DestinationPattern] = [], deny: [DestinationPattern] = []) {
        self.allow = allow
        self.deny = deny
    }

    /// What the request alone decides.
    package enum Verdict: Sendable, Equatable {
        /// Dial every address of the destination.
        case allowed
        /// Refused, with the reason.
        case refused(SettingText)
        /// Dial only the addresses ``addresses(_:of:)`` lets through.
        case byAddress
    }

    /// The decision on a destination as the request names it.
    package func verdict(for target: TunnelTarget) -> Verdict {
        let name: String? = if case .name(let name) = target.host { name } else { nil }
        if !allow.isEmpty {
            if let name, allow.contains(where: { $0.matches(name: name, port: target.port) }) { return .allowed }
            return .byAddress
        }
        if let name, let pattern = deny.first(where: { $0.matches(name: name, port: target.port) }) {
            return .refused("matches \(.denyDestination) \(pattern)")
        }
        return deny.isEmpty ? .allowed : .byAddress
    }

    /// The addresses of `target` that may be dialled, in their order; a refusal when none may.
    package func addresses(_ resolved: [SocketAddress], of target: TunnelTarget) -> Result<[SocketAddress], SocketEngineError> {
        if !allow.isEmpty {
            let kept = resolved.filter { address in allow.contains { $0.matches(address: address) } }
            return kept.isEmpty ? .failure(refusal("not in \(.allowDestination)", target, resolved)) : .success(kept)
        }
        var firstMatch: DestinationPattern?
        let kept = resolved.filter { address in
            guard let pattern = deny.first(where: { $0.matches(address: address) }) else { return true }
            if firstMatch == nil { firstMatch = pattern }
            return false
        }
        guard kept.isEmpty, let firstMatch else { return .success(kept) }
        return .failure(refusal("matches \(.denyDestination) \(firstMatch)", target, resolved))
    }

    private func refusal(_ why: SettingText, _ target: TunnelTarget, _ resolved: [SocketAddress]) -> SocketEngineError {
        let shown: SettingText = if case .name = target.host { " (\(SettingText(resolved.map(\.displayString).joined(separator: ", "))))" } else { "" }
        return SocketEngineError(.proxyRefused, "\(target)\(shown) \(why)")
    }

    /// True when neither list has a pattern: every destination is dialled.
    public var isEmpty: Bool { allow.isEmpty && deny.isEmpty }
}
