import SocketEngine

/// The settings the metrics endpoint's texts name.
extension SettingKey {
    /// The address the Prometheus endpoint listens on.
    package static let metricsListen = SettingKey("metrics-listen", plainName: "the metrics address")

    /// Every key the metrics endpoint declares.
    package static let metricsKeys: [SettingKey] = [.metricsListen]
}
