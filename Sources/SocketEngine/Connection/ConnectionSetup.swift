import Clocks
/// What every new ``Connection`` is built with, whichever way it came (connected, accepted,
/// upgraded to WebSocket): its receive-buffer limit, the traffic tap (`--hexdump`), the recorder
/// (`--record`) and the clock its activity is stamped with. ``ConnectOptions`` and
/// ``ListenOptions`` each give one.
struct ConnectionSetup: Sendable {
    var bufferLimit: Int
    var tap: TrafficTap?
    var recorder: ConnectionRecorder?
    var clock: EngineClock
}

extension ConnectOptions {
    var setup: ConnectionSetup {
        ConnectionSetup(bufferLimit: bufferLimit, tap: tap, recorder: recorder, clock: clock)
    }
}

extension ListenOptions {
    var setup: ConnectionSetup {
        ConnectionSetup(bufferLimit: bufferLimit, tap: tap, recorder: recorder, clock: clock)
    }
}
