import Prometheus

/// Makes one subsystem's metrics in a registry: every name `sockctl_SUBSYSTEM_NAME_UNIT`, every
/// metric with the same base labels (plus any given).
public struct MetricFactory {
    public let registry: MetricsRegistry
    public let subsystem: String
    public let labels: [(String, String)]

    public init(_ registry: MetricsRegistry, subsystem: String, labels: [(String, String)]) {
        self.registry = registry
        self.subsystem = subsystem
        self.labels = labels
    }

    /// `sockctl_SUBSYSTEM_NAME_UNIT` with its help text.
    public func named(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "sockctl", subsystem: subsystem, metricName: name, unitName: unit, helpText: help)
    }

    /// A counter set from a running total.
    public func counter(_ name: String, _ unit: String, _ help: String, _ extra: [(String, String)] = []) -> TotalCounter {
        TotalCounter(registry, named(name, unit, help), labels: labels + extra)
    }

    /// A gauge.
    public func gauge(_ name: String, _ unit: String, _ help: String) -> Gauge {
        registry.prometheus.makeGauge(descriptor: named(name, unit, help), labels: labels)
    }
}
