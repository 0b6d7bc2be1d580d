import NIOCore

/// The unanswered messages of one connection: in the order they were sent (for timeouts and,
/// without `--correlate`, for in-order matching), and — with `--correlate` — by key, so that a
/// reply answers the message with its key wherever that message is in the queue.
///
/// A message answered out of order is marked answered where it stands and is dropped once
/// every message before it is gone, so ``oldest`` is always the oldest *unanswered* one and
/// ``count`` counts only those. Nothing here allocates per message once the queue and the
/// index have grown to the connection's pipeline.
struct OpenRequests {
    /// One message waiting for its reply.
    struct Request {
        /// When it was due (closed loop: when it was sent), monotonic ns.
        var due: Int64
        /// When it was sent, monotonic ns.
        var sent: Int64
        /// Sent after the warm-up: its fate is counted.
        var measured: Bool
        /// Its `--label` value's index in the owner's ``LabelTable`` (-1: no `--label`).
        var label: Int32
        /// Its number in the run (``LoadSlot/nextNumber`` when it was made): what `{{seq}}`
        /// says when it is sent again after the server closed its connection (HTTP).
        var number = 0
        /// Answered (or given up) while older ones still wait.
        var answered = false
        /// Its key (`--correlate`).
        var key: FieldKey?
    }

    private var queue = CircularBuffer<Request>(initialCapacity: 16)
    /// The number of the message at the front of ``queue`` (messages are numbered in the order
    /// they were queued).
    private var frontNumber = 0
    /// Open messages by key, to their number.
    private var byKey = KeyIndex()
    /// Unanswered messages.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The oldest unanswered message.
    var oldest: Request? { queue.first }

    /// Queues `request`; with a `key`, a reply with the same key answers it. When an open
    /// message already has that key, the older one can no longer be told apart: it is taken out
    /// and returned (its reply, when it comes, answers the new one).
    @discardableResult
    mutating func append(_ request: Request, key: FieldKey?) -> Request? {
        var displaced: Request?
        let number = frontNumber + queue.count
        var request = request
        request.key = key
        if let key, let previous = byKey.updateValue(number, forKey: key) {
            displaced = take(number: previous)
        }
        queue.append(request)
        count += 1
        return displaced
    }

    /// Removes and returns the oldest unanswered message (in-order matching, timeouts).
    mutating func popOldest() -> Request? {
        guard let first = queue.popFirst() else { return nil }
        if let key = first.key, byKey[key] == frontNumber { _ = byKey.removeValue(forKey: key) }
        frontNumber += 1
        count -= 1
        dropAnsweredFront()
        return first
    }

    /// Removes and returns the open message whose key is `key`, wherever it is; nil when no
    /// open message has that key (a reply to nothing, or to a message already answered).
    mutating func answer(key: FieldKey) -> Request? {
        guard let number = byKey.removeValue(forKey: key) else { return nil }
        return take(number: number)
    }

    /// Marks message `number` answered and returns it (nil when it is not open).
    private mutating func take(number: Int) -> Request? {
        let offset = number - frontNumber
        guard offset >= 0, offset < queue.count else { return nil }
        let index = queue.index(queue.startIndex, offsetBy: offset)
        guard !queue[index].answered else { return nil }
        let request = queue[index]
        queue[index].answered = true
        count -= 1
        dropAnsweredFront()
        return request
    }

    private mutating func dropAnsweredFront() {
        while let first = queue.first, first.answered {
            _ = queue.popFirst()
            frontNumber += 1
        }
    }

    /// Forgets every message (the connection is gone); returns them, oldest first, to be counted.
    mutating func removeAll(_ body: (Request) -> Void) {
        while let request = queue.popFirst() {
            if !request.answered { body(request) }
        }
        frontNumber = 0
        count = 0
        byKey.removeAll()
    }
}
