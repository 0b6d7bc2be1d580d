import NIOCore

extension RelayService {
    /// The upstream connection of a SOCKS5 or HTTP CONNECT client: its request read, its
    /// destination checked against the rules (the name, then the addresses it resolves to) and
    /// dialled, and the tunnel opened with the protocol's success answer — the two sockets then
    /// go on as any client and its upstream do. Nil (the client answered with the protocol's
    /// refusal or closed, its end reported in one line) when there is no tunnel.
    func openTunnel(
        for client: RelayClient, _ connection: Connection, _ server: TunnelServer, options: ConnectOptions, started: EngineClock.Instant
    ) async -> Connection? {
        let clock = configuration.clock
        let handshake = TunnelServerHandshake(
            server: server, connection: connection, clock: clock, deadline: started.advanced(by: configuration.listenOptions.slotRules.handshakeTimeout))
        func refused(_ refusal: TunnelServerRefusal) async -> Connection? {
            await handshake.refuse(refusal)
            finish(client, counters: RelayCounters(), started: started, error: refusal.error)
            return nil
        }
        let target: TunnelTarget
        do {
            target = try await handshake.readRequest()
        } catch {
            return await refused(error)
        }
        var options = options
        switch await allowedAddresses(of: target, server.destinations, resolver: options.resolver) {
        case .failure(let error):
            return await refused(handshake.refusal(of: SocketEngineError(error.code, "\(SettingText(server.kind.name)) request for \(error.text)")))
        case .success(nil):
            break
        case .success(let addresses?):
            // The connector dials the checked addresses only: it does not resolve the name again.
            options.resolver = StaticResolver(table: [target.hostText: addresses.compactMap(\.ipAddress)])
        }
        let endpoint = Endpoint(transport: .tcp, host: target.hostText, port: Int(target.port))
        guard let upstream = await connectUpstream(
            for: client, to: endpoint, options: options, started: started, closing: connection,
            refusing: { error in
                let refusal = handshake.refusal(of: error)
                if let answer = refusal.answer { try? await connection.write(answer, timeout: .seconds(1)) }
            }
        ) else { return nil }
        do {
            try await handshake.accept(bound: upstream.localAddress)
        } catch {
            await upstream.close()
            await connection.close()
            finish(client, counters: RelayCounters(), started: started, error: SocketEngineError.wrapping(error, context: "\(server.kind.name) reply"))
            return nil
        }
        return upstream
    }

    /// The addresses `target` may be dialled at: nil for every address (no rule looks at them),
    /// the checked list, or the refusal.
    private func allowedAddresses(
        of target: TunnelTarget, _ policy: DestinationPolicy, resolver: any HostResolver
    ) async -> Result<[SocketAddress]?, SocketEngineError> {
        switch policy.verdict(for: target) {
        case .allowed:
            return .success(nil)
        case .refused(let reason):
            return .failure(SocketEngineError(.proxyRefused, "\(target) \(reason)"))
        case .byAddress:
            let resolved: [SocketAddress]
            do {
                if case .name(let name) = target.host {
                    resolved = try await resolver.resolve(host: name, port: Int(target.port), datagram: false)
                } else {
                    resolved = [try SocketAddress(ipAddress: target.hostText, port: Int(target.port))]
                }
            } catch {
                return .failure(SocketEngineError.wrapping(error, context: "\(target)"))
            }
            return policy.addresses(resolved, of: target).map { $0 }
        }
    }
}
