extension ListenSummary {
    /// The shutdown summary line: `summary: 3 clients, 120 bytes in, 120 bytes out in 2.5s`
    /// (datagrams in and out instead of clients for a UDP listener).
    public func text(transport: Endpoint.Transport) -> String {
        var parts = [plural(clients, "client")]
        if transport == .udp {
            parts = ["\(plural(datagramsIn, "datagram")) in", "\(datagramsOut) out"]
        }
        if transport.isHTTP {
            let total = httpAnswers.reduce(0, +)
            let classes = (1...5).filter { httpAnswers[$0] > 0 }.map { "\(httpAnswers[$0]) \($0)xx" }
            parts.append(plural(total, "request") + (classes.isEmpty ? "" : " (\(classes.joined(separator: ", ")))"))
        }
        parts.append("\(plural(bytesIn, "byte")) in")
        parts.append("\(plural(bytesOut, "byte")) out")
        if rejected > 0 {
            let unlogged = rejectedUnlogged > 0 ? " (\(rejectedUnlogged) not logged: they came too fast)" : ""
            parts.append("\(rejected) refused\(unlogged)")
        }
        if messagesDropped > 0 { parts.append("\(plural(messagesDropped, "broadcast message")) dropped for slow clients") }
        if datagramsDropped > 0 { parts.append("\(plural(datagramsDropped, "datagram")) dropped (queue full)") }
        return "summary: " + parts.joined(separator: ", ") + " in \(duration.formatted)"
    }
}
