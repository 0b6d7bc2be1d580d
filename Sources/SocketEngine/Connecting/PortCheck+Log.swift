extension PortCheck.Result {
    /// One line per port, the same shape open or closed (nc -v words the two differently):
    ///
    /// ```
    /// 127.0.0.1 7000 (tcp) open
    /// localhost (127.0.0.1) 7000 (tcp) open
    /// 127.0.0.1 7001 (tcp) closed: connection refused (ECONNREFUSED)
    /// localhost 7001 (tcp) closed: [::1]:7001: connection refused (ECONNREFUSED); 127.0.0.1:7001: connection refused (ECONNREFUSED)
    /// /run/app.sock (unix) open
    /// ```
    public var logLine: LogLine {
        let port = transport == .unix ? "" : " \(self.port)"
        switch outcome {
        case .open(let address):
            let answered = address.map { $0 == host ? "" : " (\($0))" } ?? ""
            return .note("\(host)\(answered)\(port) (\(transport.rawValue)) open")
        case .closed(let error):
            return .note("\(host)\(port) (\(transport.rawValue)) closed: \(reason(error))")
        }
    }

    /// Why a port is closed, without what the line already says: the one attempt's error
    /// (`connection refused (ECONNREFUSED)`), or every address tried and how it failed.
    private func reason(_ error: SocketEngineError) -> SettingText {
        let written = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        switch error.attempts.count {
        case 0: return error.text
        case 1 where error.attempts[0].address == written: return SettingText(error.attempts[0].error)
        default: return SettingText(error.attempts.map(\.description).joined(separator: "; "))
        }
    }
}

extension PortCheck.Summary {
    /// After several ports, the count of each kind: `3 ports checked: 1 open (7000), 2 closed`;
    /// nothing after one port (its line says it all).
    public var logLines: [LogLine] {
        guard results.count > 1 else { return [] }
        let open = results.filter(\.isOpen)
        let openPorts = open.isEmpty ? "" : " (\(numberRuns(open.map(\.port), separator: ", ")))"
        return [.note("\(results.count) ports checked: \(open.count) open\(openPorts), \(results.count - open.count) closed")]
    }
}
