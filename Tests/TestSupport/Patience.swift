import SocketEngine
import Testing

extension Trait where Self == TimeLimitTrait {
    /// The one limit on a test's time: a guard against a hang, far beyond what any test takes
    /// even on a machine loaded with `stress-ng --cpu 2`, never a measure of speed. A test that
    /// waits waits for an event; only a hang meets this.
    public static var hangGuard: Self { .timeLimit(.minutes(10)) }
}

extension ConnectOptions {
    /// Options for a loopback connect in a test whose subject is not the connect timeout: no
    /// deadline short of the test's ``hangGuard``. The product's 10 s default is a bound on wall
    /// time, and on a loaded machine a connect can wait that long for the event loop.
    public static var patient: ConnectOptions {
        var options = ConnectOptions()
        options.connectTimeout = .seconds(3600)
        return options
    }
}
