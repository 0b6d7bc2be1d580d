/// The reassembler's state for one connection: its key, both halves, and the shared buffer
/// budget.
extension TCPReassembler {
    /// A 4-tuple in a canonical order, so both directions find the same connection.
    struct ConnectionKey: Hashable {
        var low: TCPReassembler.Endpoint
        var high: TCPReassembler.Endpoint

        init(_ one: TCPReassembler.Endpoint, _ other: TCPReassembler.Endpoint) {
            if other < one {
                low = other
                high = one
            } else {
                low = one
                high = other
            }
        }
    }

    /// The buffer limits and the bytes buffered over all connections.
    struct Budget {
        let perDirection: Int
        let total: Int
        var used = 0
    }

    struct Connection {
        let stream: Int
        let client: TCPReassembler.Endpoint
        var toServer = HalfStream()
        var toClient = HalfStream()
        var closed = false

        init(stream: Int, client: TCPReassembler.Endpoint) {
            self.stream = stream
            self.client = client
        }

        /// A SYN that starts a new connection on this 4-tuple rather than repeating the known one.
        func isNewSYN(from source: TCPReassembler.Endpoint, sequence: UInt32) -> Bool {
            let half = source == client ? toServer : toClient
            if closed { return half.initialSequence != sequence }
            return half.started && half.initialSequence != sequence
        }

        mutating func receive(
            _ segment: TransportSegment, payload: UnsafeRawBufferPointer, from source: TCPReassembler.Endpoint,
            budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ emit: (TCPReassembler.Event) -> Void
        ) {
            guard !closed else { return }
            let direction: TCPReassembler.Direction = source == client ? .clientToServer : .serverToClient
            let flags = segment.flags
            if flags.contains(.rst) {
                close(.reset, direction: direction, budget: &budget, statistics: &statistics, emit)
                return
            }
            let output = Output(stream: stream, direction: direction)
            let reverse = Output(stream: stream, direction: direction == .clientToServer ? .serverToClient : .clientToServer)
            if direction == .clientToServer {
                toServer.receive(segment, payload: payload, budget: &budget, statistics: &statistics, output, emit)
                if flags.contains(.ack) { toClient.acknowledged(segment.acknowledgmentNumber, budget: &budget, statistics: &statistics, reverse, emit) }
            } else {
                toClient.receive(segment, payload: payload, budget: &budget, statistics: &statistics, output, emit)
                if flags.contains(.ack) { toServer.acknowledged(segment.acknowledgmentNumber, budget: &budget, statistics: &statistics, reverse, emit) }
            }
            if toServer.finished && toClient.finished {
                closed = true
                emit(TCPReassembler.Event(stream: stream, direction: .clientToServer, kind: .closed(.finished)))
            }
        }

        /// Delivers what is buffered (gaps for the holes) in both directions and emits `closed`.
        mutating func close(
            _ reason: TCPReassembler.CloseReason, direction: TCPReassembler.Direction,
            budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ emit: (TCPReassembler.Event) -> Void
        ) {
            guard !closed else { return }
            toServer.flush(budget: &budget, statistics: &statistics, Output(stream: stream, direction: .clientToServer), emit)
            toClient.flush(budget: &budget, statistics: &statistics, Output(stream: stream, direction: .serverToClient), emit)
            closed = true
            let outcome = reason == .endOfCapture && toServer.finished && toClient.finished ? .finished : reason
            emit(TCPReassembler.Event(stream: stream, direction: direction, kind: .closed(outcome)))
        }
    }

    typealias Emit = (TCPReassembler.Event) -> Void

    /// Which stream and direction a half's events belong to.
    struct Output {
        let stream: Int
        let direction: TCPReassembler.Direction

        func data(_ bytes: UnsafeRawBufferPointer, _ emit: Emit) {
            guard bytes.count > 0 else { return }
            emit(TCPReassembler.Event(stream: stream, direction: direction, kind: .data(bytes)))
        }

        func gap(_ count: Int, _ statistics: inout TCPReassembler.Statistics, _ emit: Emit) {
            guard count > 0 else { return }
            statistics.missingBytes += count
            emit(TCPReassembler.Event(stream: stream, direction: direction, kind: .gap(count)))
        }
    }
}
