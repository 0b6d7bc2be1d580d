/// One direction of a connection: the next expected sequence number, the pieces buffered ahead
/// of it, and what reaching them (or a FIN, or an acknowledgement past a gap) emits.
extension TCPReassembler {
    /// A buffered part of a direction's stream, ahead of the next expected byte. `bytes` is empty
    /// for a part known to be missing (payload the capture cut short).
    struct Piece {
        var sequence: UInt32
        var length: Int
        var bytes: [UInt8]

        var isMissing: Bool { bytes.isEmpty }
        var cost: Int { bytes.count + TCPReassembler.pieceOverhead }
    }

    /// One direction of a connection.
    struct HalfStream {
        /// `next` is known (SYN seen, or the first segment of a capture that started mid-stream).
        var started = false
        /// The next sequence number to deliver.
        var next: UInt32 = 0
        var initialSequence: UInt32?
        /// Buffered pieces, sorted by sequence (relative to `next`), disjoint, all ahead of `next`.
        var pieces: [Piece] = []
        var bufferedCost = 0
        /// Sequence number of the FIN, once seen.
        var finSequence: UInt32?
        /// The FIN was reached: every byte before it is delivered or reported missing.
        var finished = false

        /// Distance from `next` to `sequence`, in [-2³¹, 2³¹).
        func offset(of sequence: UInt32) -> Int {
            Int(Int32(bitPattern: sequence &- next))
        }

        /// Offsets from `next` below this are ahead of it; buffered bytes and the FIN stay below it
        /// (beyond, `offset(of:)` would wrap around to negative and put them behind `next`).
        static let window = 1 << 31

        mutating func receive(
            _ segment: TransportSegment, payload: UnsafeRawBufferPointer,
            budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit
        ) {
            var dataStart = segment.sequenceNumber
            if segment.flags.contains(.syn) {
                // A SYN anchors the stream only if nothing did before; a late SYN (the capture
                // started mid-stream and saw it afterwards) must not move `next` back over bytes
                // already delivered: its payload goes through `insert` like any other.
                if !started {
                    next = segment.sequenceNumber &+ 1
                    started = true
                }
                initialSequence = initialSequence ?? segment.sequenceNumber
                dataStart = segment.sequenceNumber &+ 1
            }
            let length = max(0, segment.payloadLength)
            if length > 0 {
                if !started {
                    next = dataStart
                    started = true
                }
                if finished, let fin = finSequence {
                    // The stream has ended: bytes before the FIN are a retransmission, bytes at or
                    // past it are not part of the stream.
                    let startAfterFIN = Int(Int32(bitPattern: dataStart &- fin))
                    let past = min(length, max(0, startAfterFIN + length))
                    if past > 0 { statistics.bytesAfterFIN += past }
                    if past < length { statistics.duplicateSegments += 1 }
                } else if finished {
                    statistics.duplicateSegments += 1
                } else {
                    insert(dataStart, length: length, captured: payload, budget: &budget, statistics: &statistics, output, emit)
                }
            }
            if segment.flags.contains(.fin) {
                let fin = dataStart &+ UInt32(truncatingIfNeeded: length)
                if !started {
                    next = fin
                    started = true
                }
                // A FIN behind `next` (bytes past it were delivered) or 2³¹ or more ahead is old.
                if finSequence == nil && !finished && offset(of: fin) >= 0 {
                    finSequence = fin
                    dropPieces(from: fin, budget: &budget, statistics: &statistics)
                }
            }
            reachFIN(budget: &budget, statistics: &statistics)
        }

        /// Forgets buffered bytes at or past `fin` (sent after the FIN: not part of the stream).
        private mutating func dropPieces(from fin: UInt32, budget: inout Budget, statistics: inout TCPReassembler.Statistics) {
            let limit = offset(of: fin)
            var kept: [Piece] = []
            for piece in pieces {
                let start = offset(of: piece.sequence)
                if start + piece.length <= limit {
                    kept.append(piece)
                    continue
                }
                bufferedCost -= piece.cost
                budget.used -= piece.cost
                let keep = max(0, limit - start)
                statistics.bytesAfterFIN += piece.length - keep
                if keep > 0 {
                    let trimmed = Piece(sequence: piece.sequence, length: keep, bytes: piece.isMissing ? [] : Array(piece.bytes.prefix(keep)))
                    bufferedCost += trimmed.cost
                    budget.used += trimmed.cost
                    kept.append(trimmed)
                }
            }
            pieces = kept
        }

        /// Adds `length` bytes at `sequence`, of which `captured` holds the first `captured.count`.
        private mutating func insert(
            _ sequence: UInt32, length: Int, captured: UnsafeRawBufferPointer,
            budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit
        ) {
            let start = offset(of: sequence)  // may be negative: part already delivered
            var end = start + length
            if let fin = finSequence, end > offset(of: fin) {
                let finOffset = offset(of: fin)
                statistics.bytesAfterFIN += end - max(start, finOffset)
                end = finOffset
                guard end > start else { return }
            }
            if end > HalfStream.window {
                // `start` is below the window (an Int32), so something is left.
                statistics.bytesBeyondWindow += end - HalfStream.window
                end = HalfStream.window
            }
            guard end > 0 else {
                statistics.duplicateSegments += 1
                return
            }
            let capturedCount = min(captured.count, end - start)
            if pieces.isEmpty && start <= 0 {
                // In order (the common case): deliver straight from the packet, no copy.
                let skip = -start
                if skip < capturedCount {
                    output.data(UnsafeRawBufferPointer(rebasing: captured[skip..<capturedCount]), emit)
                }
                output.gap(end - start - max(skip, capturedCount), &statistics, emit)
                next = next &+ UInt32(truncatingIfNeeded: end)
                return
            }
            // Carve [max(start, 0), end) against the buffered pieces: earlier bytes win.
            var fresh: [Piece] = []
            var position = max(start, 0)
            func add(_ from: Int, _ to: Int) {
                // Split at the end of the captured bytes: data first, then the missing part.
                let capturedEnd = start + capturedCount
                if from < capturedEnd {
                    let upper = min(to, capturedEnd)
                    let bytes = Array(UnsafeRawBufferPointer(rebasing: captured[(from - start)..<(upper - start)]))
                    fresh.append(Piece(sequence: next &+ UInt32(truncatingIfNeeded: from), length: upper - from, bytes: bytes))
                }
                if to > capturedEnd {
                    let lower = max(from, capturedEnd)
                    fresh.append(Piece(sequence: next &+ UInt32(truncatingIfNeeded: lower), length: to - lower, bytes: []))
                }
            }
            for piece in pieces {
                let pieceStart = offset(of: piece.sequence)
                let pieceEnd = pieceStart + piece.length
                if pieceEnd <= position { continue }
                if pieceStart >= end { break }
                if pieceStart > position { add(position, min(pieceStart, end)) }
                position = max(position, pieceEnd)
                if position >= end { break }
            }
            if position < end { add(position, end) }
            guard !fresh.isEmpty else {
                statistics.duplicateSegments += 1
                return
            }
            var merged: [Piece] = []
            merged.reserveCapacity(pieces.count + fresh.count)
            var old = 0
            for piece in fresh {
                let pieceStart = offset(of: piece.sequence)
                while old < pieces.count && offset(of: pieces[old].sequence) < pieceStart {
                    merged.append(pieces[old])
                    old += 1
                }
                merged.append(piece)
                bufferedCost += piece.cost
                budget.used += piece.cost
            }
            merged.append(contentsOf: pieces[old...])
            pieces = merged
            drain(budget: &budget, statistics: &statistics, output, emit)
            // Over a limit: the oldest hole becomes a gap until the buffers fit again.
            while !pieces.isEmpty && (bufferedCost > budget.perDirection || budget.used > budget.total) {
                skipToFirstPiece(statistics: &statistics, output, emit)
                drain(budget: &budget, statistics: &statistics, output, emit)
            }
        }

        /// Delivers the pieces that start at `next`.
        private mutating func drain(budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit) {
            var delivered = 0
            while delivered < pieces.count && pieces[delivered].sequence == next {
                let piece = pieces[delivered]
                if piece.isMissing {
                    output.gap(piece.length, &statistics, emit)
                } else {
                    piece.bytes.withUnsafeBytes { output.data($0, emit) }
                }
                next = next &+ UInt32(truncatingIfNeeded: piece.length)
                bufferedCost -= piece.cost
                budget.used -= piece.cost
                delivered += 1
            }
            if delivered > 0 { pieces.removeFirst(delivered) }
        }

        /// Declares the bytes before the first buffered piece missing.
        private mutating func skipToFirstPiece(statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit) {
            guard let first = pieces.first else { return }
            output.gap(offset(of: first.sequence), &statistics, emit)
            next = first.sequence
        }

        /// The peer acknowledged up to `ack`: holes before it will never be filled by a retransmission.
        mutating func acknowledged(_ ack: UInt32, budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit) {
            guard started, !finished, Int32(bitPattern: ack &- next) > 0 else { return }
            while let first = pieces.first, Int32(bitPattern: ack &- first.sequence) > 0 {
                skipToFirstPiece(statistics: &statistics, output, emit)
                drain(budget: &budget, statistics: &statistics, output, emit)
            }
            if pieces.isEmpty, let fin = finSequence, Int32(bitPattern: ack &- fin) > 0, offset(of: fin) > 0 {
                output.gap(offset(of: fin), &statistics, emit)
                next = fin
            }
            reachFIN(budget: &budget, statistics: &statistics)
        }

        /// Everything buffered is delivered, holes as gaps, up to the FIN if one was seen.
        mutating func flush(budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit) {
            while !pieces.isEmpty {
                skipToFirstPiece(statistics: &statistics, output, emit)
                drain(budget: &budget, statistics: &statistics, output, emit)
            }
            if let fin = finSequence, !finished, offset(of: fin) > 0 {
                output.gap(offset(of: fin), &statistics, emit)
                next = fin
            }
            reachFIN(budget: &budget, statistics: &statistics)
        }

        private mutating func reachFIN(budget: inout Budget, statistics: inout TCPReassembler.Statistics) {
            if let fin = finSequence, !finished, next == fin {
                finished = true
                next = next &+ 1
                // Whatever is still buffered lies past the FIN.
                for piece in pieces {
                    statistics.bytesAfterFIN += piece.length
                    bufferedCost -= piece.cost
                    budget.used -= piece.cost
                }
                pieces.removeAll()
            }
        }
    }
}
