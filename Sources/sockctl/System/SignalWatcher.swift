import CSignalForwarding
import Foundation
import SocketEngine

import Glibc

/// Runs a handler for each delivery of the given signals (instead of dying on them), on a
/// thread of its own.
///
/// The handler is in place when `init` returns: a C signal handler (`CSignalForwarding`)
/// writes each signal's number to a pipe that the thread reads. (A Dispatch signal source
/// registers its handler later, on Dispatch's manager thread; a signal sent in between — a
/// test or a script stopping the command as soon as it says where it listens — was lost, and
/// the command ran on.) The watcher lives as long as the process: a handler that is no longer
/// wanted is made a no-op by its owner (``Interruption/cancel()``).
final class SignalWatcher: Sendable {
    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        var ends: [Int32] = [0, 0]
        guard sockctl_signal_pipe(&ends) == 0 else {
            // No pipe (out of descriptors at start): the signals keep their default action.
            return
        }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let watched = Set(signals)
        let thread = Thread {
            var number: UInt8 = 0
            while true {
                let count = Syscall.read(readEnd, &number, 1)
                if count == 1, watched.contains(Int32(number)) {
                    handler(Int32(number))
                } else if count <= 0 {
                    return
                }
            }
        }
        thread.name = "sockctl signals"
        thread.start()
        for number in signals {
            _ = sockctl_forward_signal(number, writeEnd)
        }
    }
}
