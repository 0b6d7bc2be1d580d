// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]
// No unsafe flags: LoadGen once turned the runtime's exclusivity checks off for the whole module
// (-enforce-exclusivity=unchecked, release only): a memory-safety check off for every caller,
// on a library product. Measured (release, same run, binaries interleaved): echo loads (c=100
// events, c=1 threads) do not see the checks (0.3-0.8% of perf samples with or without the
// flag), but a send-only load does: 13% of client CPU per message, in LoadGen's per-message
// state. Those few properties carry `@exclusivity(unchecked)` (LoadConnectionHandler, LoadShard),
// which wins the 13% back; every other access stays checked.

let package = Package(
    name: "sockctl",
    products: [
        .executable(name: "sockctl", targets: ["sockctl"]),
        .library(name: "SocketEngine", targets: ["SocketEngine"]),
        .library(name: "SocketEngineTLS", targets: ["SocketEngineTLS"]),
        .library(name: "PacketDecoding", targets: ["PacketDecoding"]),
        .library(name: "Capture", targets: ["Capture"]),
        .library(name: "LoadGen", targets: ["LoadGen"]),
        .library(name: "Recording", targets: ["Recording"]),
        .library(name: "MetricsExport", targets: ["MetricsExport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
    ],
    targets: [
        .target(
            name: "SocketEngine",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // BlockingChannel: TLS and the WebSocket upgrade on a socket driven by one thread
                // (loadtest's threads I/O). NIOSSL exists only as a channel handler, a blocking
                // thread has no event loop, and an embedded channel runs handlers inline on the
                // calling thread.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Clocks", package: "swift-clocks"),
                "CEpoll",
                "CMalloc",
                "NativeThreads",
                "WebSocketDeflate",
                "ProxyProtocol",
                "HTTPScanning",
            ],
            swiftSettings: strict
        ),
        // epoll, eventfd, gettid and the thread name for the relay's epoll loop (EpollRelayLoop: read and send) (Glibc does not import them).
        .systemLibrary(name: "CEpoll"),
        // mallopt, to give large buffers back to the system (Glibc does not import malloc.h).
        .systemLibrary(name: "CMalloc"),
        // TLS in a target of its own (BoringSSL doubles a cold build): only what needs it builds it.
        .target(
            name: "SocketEngineTLS",
            dependencies: [
                "SocketEngine",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The names a server certificate carries (its subjectAlternativeName), parsed.
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        // HPACK (NIOHPACK) for the HTTP/2 view's header blocks: decoding only, no channel;
        // WebSocketDeflate for the WebSocket view's inflated messages; TLS decryption (capture
        // --keylog) uses swift-crypto's AEADs, HKDF and HMAC.
        .target(
            name: "PacketDecoding",
            dependencies: [
                "WebSocketDeflate", "HTTPScanning", .product(name: "NIOHPACK", package: "swift-nio-http2"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"), "ProxyProtocol",
            ],
            swiftSettings: strict
        ),
        .systemLibrary(name: "CLibpcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
        // setresuid and the capability calls for capture's privilege drop (Glibc does not import them).
        .systemLibrary(name: "CPrivileges"),
        .target(name: "Capture", dependencies: ["CLibpcap", "CPrivileges", "NativeThreads", "PacketDecoding"], swiftSettings: strict),
        // A named POSIX thread for blocking work (a child's waiter, the epoll relay loop, the
        // packet loop), shared by SocketEngine and Capture; CEpoll for the thread name.
        .target(name: "NativeThreads", dependencies: ["CEpoll"], swiftSettings: strict),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // permessage-deflate (RFC 7692) on zlib: the negotiation and the message (de)compressors
        // that the engine's WebSocket and the capture views share.
        .target(name: "WebSocketDeflate", dependencies: ["CZlib"], swiftSettings: strict),
        // The PROXY protocol header (v1 and v2): pure bytes to values and back, for the engine
        // (proxy --send-proxy-protocol, listen --accept-proxy-protocol) and the capture views.
        .target(name: "ProxyProtocol", dependencies: [.product(name: "NIOCore", package: "swift-nio")], swiftSettings: strict),
        // HTTPMessageScanner, the one HTTP/1.1 cutter (standard library and Glibc only): the
        // engine's framing and the load generator cut messages with it, the capture views cut
        // the HTTP/1.1 messages they show with it.
        .target(name: "HTTPScanning", swiftSettings: strict),
        // The /metrics endpoint (Prometheus text exposition by swift-prometheus, served over NIO
        // HTTP/1) that loadtest, listen and proxy share; metric objects come from a registry each
        // run owns, never from the global MetricsSystem.
        .target(
            name: "MetricsExport",
            dependencies: [
                "SocketEngine",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "LoadGen",
            dependencies: [
                "SocketEngine",
                "Recording",
                "PacketDecoding",
                "MetricsExport",
                "HTTPScanning",
                "CZlib",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // Recorded traffic meets live connections: the stream follower, the session recorder, replay.
        .target(
            name: "Recording",
            dependencies: [
                "SocketEngine",
                "PacketDecoding",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Clocks", package: "swift-clocks"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "sockctl",
            dependencies: [
                "SocketEngine",
                "SocketEngineTLS",
                "PacketDecoding",
                "Capture",
                "LoadGen",
                "MetricsExport",
                "Recording",
                "CSignalForwarding",
                "ProxyProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict,
            plugins: ["BuildStamp"]
        ),
        // The SIGINT/SIGTERM handler that forwards each signal to a pipe (a signal handler must
        // be C: only async-signal-safe calls), installed at once — see SignalWatcher.
        .target(name: "CSignalForwarding"),
        // The commit and compiler of the build, for `sockctl --version` (git rev-parse when the
        // build is planned; "unknown" outside a git checkout).
        .plugin(name: "BuildStamp", capability: .buildTool()),
        // Raises the test process's descriptor limit before any test runs (a C constructor).
        .target(name: "CTestStartup", path: "Tests/CTestStartup"),
        .target(
            name: "TestSupport",
            dependencies: [
                "CTestStartup",
                "SocketEngine",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SocketEngineTests",
            dependencies: [
                "SocketEngine",
                "TestSupport",
                "HTTPScanning",
                // permessage-deflate: the negotiation and the (de)compressors the engine uses.
                "WebSocketDeflate",
                "ProxyProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                // SHA-1 for a scripted WebSocket server's Sec-WebSocket-Accept.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SocketEngineTLSTests",
            dependencies: [
                "SocketEngineTLS", "SocketEngine", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "RecordingTests",
            dependencies: ["Recording", "SocketEngine", "PacketDecoding", "TestSupport", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(name: "PacketDecodingTests", dependencies: ["PacketDecoding", "TestSupport", "WebSocketDeflate"], swiftSettings: strict),
        // sockctl itself for TcpdumpFlags, the CLI's reading of tcpdump's output letters (GoldenTests).
        .testTarget(name: "CaptureTests", dependencies: ["sockctl", "Capture", "PacketDecoding", "SocketEngine", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "LoadGenTests",
            dependencies: [
                "LoadGen", "SocketEngine", "TestSupport", "Recording", "PacketDecoding", "MetricsExport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MetricsExportTests",
            dependencies: [
                "MetricsExport", "SocketEngine", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "sockctlTests",
            // sockctl itself for OptionNames, the CLI's table of flags (OptionNamesTests).
            dependencies: [
                "sockctl", "SocketEngine", "SocketEngineTLS", "LoadGen", "Recording", "MetricsExport", "PacketDecoding", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["WebSocketPeers", "CorrelationPeers", "TerminalPeers"],
            swiftSettings: strict
        ),
    ]
)
