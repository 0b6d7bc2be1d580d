import NIOCore
import NIOPosix
import Synchronization

import Glibc

/// Drives one ``HappyEyeballsStateMachine`` on an event loop: starts attempts, arms timers,
/// closes losers, and collects every failure for the error message.
///
/// All its time is the loop's: attempts start at `loop.now`, the attempt delay and the budget
/// are `scheduleTask`s, so on an `EmbeddedEventLoop` a test moves time by hand and sees exactly
/// when each attempt starts. ``Connector`` runs one per TCP connect; `open` makes one attempt.
package final class ConnectionRace {
    package struct Result: Sendable {
        package let channel: any Channel
        /// The winner's index in the addresses raced.
        package let index: Int
        package let attempts: [ConnectReport.Attempt]
        /// From the race's start to the winning connect, in the loop's time.
        package let elapsed: TimeAmount
    }

    private let loop: any EventLoop
    private var machine: HappyEyeballsStateMachine<SocketAddress>
    private let attemptDelay: TimeAmount
    private let target: String
    /// The timeout the user gave, for messages (the race itself may have less after resolving).
    private let configuredTimeout: TimeAmount
    private let open: (SocketAddress) -> EventLoopFuture<any Channel>
    private let promise: EventLoopPromise<Result>
    private var started = NIODeadline.uptimeNanoseconds(0)
    private var channels: [Int: any Channel] = [:]
    private var attempts: [Int: ConnectReport.Attempt] = [:]
    /// A proxy's refusal or protocol error, by attempt: said as it is when every attempt met one.
    private var proxyErrors: [Int: SocketEngineError] = [:]
    private var timer: Scheduled<Void>?
    private var deadline: Scheduled<Void>?
    /// Actions not yet carried out. An attempt can fail inline (its future already failed), so
    /// applying one action may produce more; they queue here instead of re-entering `apply`,
    /// which would let an older timer action overwrite a newer one.
    private var queued: [HappyEyeballsStateMachine<SocketAddress>.Action] = []
    private var applying = false

    package init(loop: any EventLoop, addresses: [SocketAddress], attemptDelay: TimeAmount, target: String, configuredTimeout: TimeAmount, open: @escaping (SocketAddress) -> EventLoopFuture<any Channel>) {
        self.loop = loop
        self.configuredTimeout = configuredTimeout
        self.machine = HappyEyeballsStateMachine(addresses: addresses)
        self.attemptDelay = attemptDelay
        self.target = target
        self.open = open
        self.promise = loop.makePromise()
    }

    /// Starts racing on the loop (call it there); fails after `timeout` with `.connectTimeout`.
    package func run(timeout: TimeAmount) -> EventLoopFuture<Result> {
        started = loop.now
        deadline = loop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            self.timedOut()
        }
        apply(machine.start())
        return promise.futureResult
    }

    private func apply(_ actions: [HappyEyeballsStateMachine<SocketAddress>.Action]) {
        queued += actions
        guard !applying else { return }
        applying = true
        defer { applying = false }
        while !queued.isEmpty {
            perform(queued.removeFirst())
        }
    }

    private func perform(_ action: HappyEyeballsStateMachine<SocketAddress>.Action) {
        switch action {
        case .startAttempt(let index):
            startAttempt(index)
        case .startTimer(let generation):
            timer?.cancel()
            timer = loop.assumeIsolated().scheduleTask(in: attemptDelay) { [self] in
                self.apply(self.machine.timerFired(generation: generation))
            }
        case .succeed(let index, let cancel):
            finish()
            for loser in cancel { attempts[loser]?.outcome = .abandoned }
            guard let channel = channels[index] else { return }
            promise.succeed(Result(channel: channel, index: index, attempts: orderedAttempts(), elapsed: loop.now - started))
        case .fail:
            finish()
            promise.fail(failure(timedOut: nil))
        }
    }

    private func startAttempt(_ index: Int) {
        let address = machine.addresses[index]
        let offset = Duration.nanoseconds((loop.now - started).nanoseconds)
        attempts[index] = .init(address: address, startedAfter: offset, outcome: .abandoned)
        open(address).hop(to: loop).assumeIsolated().whenComplete { [self] result in
            switch result {
            case .success(let channel):
                if self.machine.isFinished {
                    channel.close(promise: nil)
                    return
                }
                self.channels[index] = channel
                self.attempts[index]?.outcome = .connected
                self.apply(self.machine.attemptSucceeded(index: index))
            case .failure(let error):
                let reason = SocketEngineError.classify(error).1.description
                if !self.machine.isFinished { self.attempts[index]?.outcome = .failed(reason) }
                if let engine = error as? SocketEngineError, [.proxyRefused, .proxyProtocol].contains(engine.code) {
                    self.proxyErrors[index] = engine
                }
                self.apply(self.machine.attemptFailed(index: index))
            }
        }
    }

    private func timedOut() {
        guard !machine.isFinished else { return }
        _ = machine.abandon()
        finish()
        promise.fail(failure(timedOut: configuredTimeout))
    }

    private func finish() {
        timer?.cancel()
        deadline?.cancel()
    }

    private func orderedAttempts() -> [ConnectReport.Attempt] {
        machine.started.compactMap { attempts[$0] }
    }

    private func failure(timedOut: TimeAmount?) -> SocketEngineError {
        var listed: [SocketEngineError.Attempt] = []
        for index in machine.addresses.indices {
            let address = machine.addresses[index].displayString
            switch attempts[index]?.outcome {
            case .failed(let reason)?:
                listed.append(.init(address: address, error: reason))
            case .abandoned?, .connected?:
                listed.append(.init(address: address, error: "no answer in time"))
            case nil:
                listed.append(.init(address: address, error: "not tried"))
            }
        }
        // One address, written as the user wrote the target: named once, not twice.
        let detail = listed.count == 1 && listed[0].address == target
            ? listed[0].error : listed.map(\.description).joined(separator: "; ")
        if let timedOut {
            return SocketEngineError(
                .connectTimeout,
                "connect to \(target) timed out after \(SocketEngineError.describe(timedOut)): \(detail)",
                attempts: listed
            )
        }
        // A proxy's own answer is the reason (one line, its code kept), not one attempt's.
        if let first = proxyErrors.sorted(by: { $0.key < $1.key }).first?.value, proxyErrors.count == machine.addresses.count {
            return first
        }
        let allRefused = listed.allSatisfy { $0.error.contains("ECONNREFUSED") }
        return SocketEngineError(
            allRefused ? .connectionRefused : .connectFailed,
            "connect to \(target) failed: \(detail)",
            attempts: listed
        )
    }
}
