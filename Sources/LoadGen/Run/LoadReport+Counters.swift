extension LoadReport.Throughput {
    /// The rates of `counters` over `seconds` (and what the schedule offered, if any).
    init(_ counters: LoadCounters, seconds: Double, offered: Double?) {
        offeredPerSecond = offered
        sentPerSecond = Double(counters.messagesSent) / seconds
        receivedPerSecond = Double(counters.messagesReceived) / seconds
        sentBytesPerSecond = Double(counters.bytesSent) / seconds
        receivedBytesPerSecond = Double(counters.bytesReceived) / seconds
    }
}
