extension SessionSummary {
    /// The end-of-session lines: what was dropped or skipped, then the totals (`-v`).
    public var logLines: [LogLine] {
        var lines: [LogLine] = []
        if datagramsDropped > 0 {
            lines.append(.warning("\(plural(datagramsDropped, "datagram")) dropped: they arrived faster than the output took them"))
        }
        if heartbeatsSkipped > 0 {
            lines.append(.event("\(plural(heartbeatsSkipped, "heartbeat")) skipped: the send buffer was full"))
        }
        let totals = "sent \(plural(bytesSent, "byte")), received \(plural(bytesReceived, "byte")) over \(plural(connections, "connection")) in \(duration.formatted)"
        // Stopped early: the totals are shown without -v, as the run's summary.
        lines.append(interrupted ? .note("stopped: \(totals)") : .event("done: \(totals)"))
        if error != nil && bytesLost > 0 {
            lines.append(.warning("\(plural(bytesLost, "byte")) queued for sending never reached the peer's connection"))
        }
        return lines
    }
}
