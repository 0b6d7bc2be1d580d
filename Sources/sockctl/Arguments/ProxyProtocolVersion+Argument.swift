import ArgumentParser
import ProxyProtocol

/// `--send-proxy-protocol v1|v2`.
extension ProxyProtocolHeader.Version: ExpressibleByArgument {}
