import LoadGen
import MetricsExport
import Recording
import SocketEngine
import SocketEngineTLS

/// The one table from the settings libraries name (``SettingKey``) to the flags that set them
/// on this command line: libraries write `"trust it with \(.cafile)"`, the CLI shows
/// `trust it with --cafile`. A conventions test holds every key each library declares to an
/// entry here, and every entry to a flag the argument parser knows.
enum OptionNames {
    /// Each key's flag.
    static let flags: [SettingKey: String] = [
        // SocketEngine
        .correlate: "--correlate",
        .responses: "--responses",
        .framing: "--framing",
        .noShutdown: "--no-shutdown",
        .closeOnEOF: "--close-on-eof",
        .insecure: "--insecure",
        .allow: "--allow",
        .deny: "--deny",
        .maxClients: "--max-clients",
        .header: "--header",
        .allowDestination: "--allow-destination",
        .denyDestination: "--deny-destination",
        // SocketEngineTLS
        .cafile: "--cafile",
        .pin: "--pin",
        .clientCA: "--client-ca",
        .cert: "--cert",
        .key: "--key",
        // Recording
        .record: "--record",
        .list: "--list",
        .stream: "--stream",
        .ignore: "--ignore",
        .speed: "--speed",
        .topspeed: "--topspeed",
        // LoadGen
        .connections: "--connections",
        .connectRate: "--connect-rate",
        .rate: "--rate",
        .stages: "--stages",
        .duration: "--duration",
        .requests: "--requests",
        .warmup: "--warmup",
        .pipeline: "--pipeline",
        .threads: "--threads",
        .io: "--io",
        .pingInterval: "--ping-interval",
        .streams: "--streams",
        .verifySample: "--verify-sample",
        .fromPcap: "--from-pcap",
        .scale: "--scale",
        .threshold: "--threshold",
        .label: "--label",
        .message: "--message",
        .source: "--source",
        // MetricsExport
        .metricsListen: "--metrics-listen",
    ]

    /// The flag that sets `key`; its plain name if the table has none (a test keeps that from
    /// happening).
    static func flag(_ key: SettingKey) -> String {
        flags[key] ?? key.plainName
    }

    /// `text` as the command line words it, each setting by its flag.
    static func render(_ text: SettingText) -> String {
        text.rendered(flag)
    }
}
