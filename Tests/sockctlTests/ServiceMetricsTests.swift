import Foundation
import NIOCore
import SocketEngine
import TestSupport
import Testing

import Glibc

/// `sockctl listen` and `sockctl proxy` with `--metrics-listen`: a client through the proxy to
/// an echoing listener, both scraped while it is connected. Bytes a side has read are counted
/// before they go on, so once the client has its echo, both scrapes must show them.
@Suite("sockctl listen and proxy --metrics-listen", .hangGuard)
struct ServiceMetricsTests {
    @Test func aConnectedClientsBytesShowInTheListenersAndTheProxysMetrics() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--echo", "--metrics-listen", ":0"], name: "listener")
        defer { listener.signal(SIGKILL) }
        let listenPort = try await listener.listeningPort()
        let listenerMetrics = try await LoadTestMetricsTests.metricsURL(listener)
        let proxy = try await Child(try sockctlPath(), ["proxy", "127.0.0.1:0", "127.0.0.1:\(listenPort)", "--metrics-listen", ":0"], name: "proxy")
        defer { proxy.signal(SIGKILL) }
        let proxyPort = try await proxy.listeningPort()
        let proxyMetrics = try await LoadTestMetricsTests.metricsURL(proxy)

        let client = try await connect("127.0.0.1:\(proxyPort)")
        try await client.write(ByteBuffer(string: "hello\n"))
        #expect(string(try await client.read(.exactly(6))) == "hello\n")

        let relayed = try await HTTPResponse.fetch(proxyMetrics)
        try await LoadTestMetricsTests.expectPromtoolAccepts(relayed.body)
        let proxySamples = try PrometheusSamples(relayed.body)
        #expect(proxySamples.count("sockctl_proxy_clients_total") == 1)
        #expect(proxySamples.count("sockctl_proxy_clients_open") == 1)
        #expect(proxySamples.count("sockctl_proxy_forwarded_bytes_total", ["direction": "up"]) == 6, "\(relayed.body)")
        #expect(proxySamples.count("sockctl_proxy_forwarded_bytes_total", ["direction": "down"]) == 6, "\(relayed.body)")
        #expect(proxySamples.value("sockctl_proxy_finished") == 0)

        let served = try await HTTPResponse.fetch(listenerMetrics)
        try await LoadTestMetricsTests.expectPromtoolAccepts(served.body)
        let listenSamples = try PrometheusSamples(served.body)
        #expect(listenSamples.count("sockctl_listen_clients_total") == 1)
        #expect(listenSamples.count("sockctl_listen_clients_open") == 1)
        #expect(listenSamples.count("sockctl_listen_received_bytes_total") == 6, "\(served.body)")

        await client.close()
        proxy.signal(SIGINT)
        listener.signal(SIGINT)
        #expect(try await proxy.wait() == 0, "\(proxy.stderr)")
        #expect(try await listener.wait() == 0, "\(listener.stderr)")
    }

    /// `listen http://` counts its requests by status class: a 200 and a 400 (a request that
    /// cannot be read). Other listeners have no such figure.
    @Test func listenHTTPCountsRequestsByClass() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "http://127.0.0.1:0", "-k", "--echo", "--metrics-listen", ":0"], name: "listener")
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        let metrics = try await LoadTestMetricsTests.metricsURL(listener)
        let ok = try await run(try sockctlPath(), ["send", "http://127.0.0.1:\(port)/a", "hi"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let bad = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "GET / HTTP/1.1\r\nNo colon here\r\n\r\n"])
        #expect(String(decoding: bad.stdout, as: UTF8.self).hasPrefix("HTTP/1.1 400 "), "\(bad.stderr)")
        _ = try await listener.waitForStderr("-> 400")
        let served = try await HTTPResponse.fetch(metrics)
        try await LoadTestMetricsTests.expectPromtoolAccepts(served.body)
        let samples = try PrometheusSamples(served.body)
        #expect(samples.count("sockctl_listen_http_requests_total", ["class": "2xx"]) == 1, "\(served.body)")
        #expect(samples.count("sockctl_listen_http_requests_total", ["class": "4xx"]) == 1, "\(served.body)")
        #expect(samples.count("sockctl_listen_http_requests_total", ["class": "5xx"]) == 0, "\(served.body)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0, "\(listener.stderr)")
    }
}
