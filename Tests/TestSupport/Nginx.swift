import Foundation

import Glibc

/// A real nginx (Debian's nginx-light, installed by `make test`) on 127.0.0.1, started by a test
/// and stopped with it: the HTTP server the HTTP tests and `bench/http.sh` measure against.
///
/// Everything it needs lives in a scratch directory of its own: `nginx.conf`, the pid file, the
/// served files under `html/` and every `*_temp_path`; nothing is read from or written to
/// /etc/nginx or /var (the package's own nginx is never started). It runs in the foreground
/// (`daemon off`) with a master process, as a ``Child`` whose stderr is its error log at level
/// `notice`: "start worker process N" there is the event that it listens, since nginx binds and
/// listens before it starts its workers. The port is one the kernel suggests; when another
/// socket takes it first (`bind() to … failed`), it starts again on another one, a few times.
///
/// Run as root, its workers run as `nobody`: the served files are made world-readable.
/// ``stop()`` asks for a graceful exit (SIGQUIT) and waits for it; a value let go of without
/// ``stop()`` kills the master and its workers by their PIDs (an orphaned nginx worker would
/// keep serving, holding the port).
public final class Nginx: Sendable {
    /// What the server serves, and how: the presets the HTTP tests need.
    public struct Site: Sendable {
        /// `worker_processes`: 1 for tests, "auto" for a benchmark.
        public var workerProcesses = "1"
        /// `keepalive_requests`: after this many requests on one connection nginx answers the
        /// last one with `Connection: close` and closes it (nginx's default is 1000).
        public var keepaliveRequests: Int?
        /// Serve HTTPS with the test certificate `server.pem` (for localhost and 127.0.0.1,
        /// signed by the test CA `ca.pem` of ``TestCertificates``).
        public var tls = false

        fileprivate var files: [(path: String, content: Content)] = []
        fileprivate var locations: [String] = []

        fileprivate enum Content: Sendable {
            case bytes([UInt8])
            case sparse(Int)
        }

        public init() {}

        /// `bytes` served at `path` (e.g. "/file"), with a `Content-Length`.
        public mutating func file(_ path: String, _ bytes: [UInt8]) {
            files.append((path, .bytes(bytes)))
        }

        /// `files` (name → bytes) served under the directory `prefix` (e.g. "/gz/") with
        /// `gzip on` for any type and length: a request with `Accept-Encoding: gzip` gets a
        /// gzip-encoded, chunked response (nginx compresses as it sends, so it knows no length);
        /// one without it gets the bytes with a `Content-Length`.
        public mutating func gzipDirectory(_ prefix: String, files named: [String: [UInt8]]) {
            let directory = prefix.hasSuffix("/") ? prefix : prefix + "/"
            for (name, bytes) in named.sorted(by: { $0.key < $1.key }) { files.append((directory + name, .bytes(bytes))) }
            locations.append("location \(directory) { gzip on; gzip_types *; gzip_min_length 0; }")
        }

        /// `location ~ 5$ { return 503; }`: every path ending in "5" is answered 503, whatever
        /// else is configured (a regular-expression location wins over the prefix ones), so a
        /// load of paths numbered 1…N meets a known share of 503s.
        public mutating func serviceUnavailableForPathsEndingIn5() {
            locations.append("location ~ 5$ { return 503; }")
        }

        /// A sparse file of `size` bytes (zeros; `truncate`, no disk written) at `path`: a big
        /// body, with a `Content-Length`, sent by nginx with sendfile.
        public mutating func sparseFile(_ path: String, size: Int) {
            files.append((path, .sparse(size)))
        }

        /// The `nginx.conf` for a server on 127.0.0.1:`port` whose scratch directory is `directory`.
        func configuration(directory: String, port: Int, certificates: String?) -> String {
            var server = ["listen 127.0.0.1:\(port)\(certificates == nil ? "" : " ssl");", "root \(directory)/html;"]
            if let certificates {
                server += ["ssl_certificate \(certificates)/server.pem;", "ssl_certificate_key \(certificates)/server.key;"]
            }
            server += locations
            let http = [
                "access_log off;",
                "default_type application/octet-stream;",
                "sendfile on;",
                keepaliveRequests.map { "keepalive_requests \($0);" },
                "client_body_temp_path \(directory)/temp/client_body;",
                "proxy_temp_path \(directory)/temp/proxy;",
                "fastcgi_temp_path \(directory)/temp/fastcgi;",
                "uwsgi_temp_path \(directory)/temp/uwsgi;",
                "scgi_temp_path \(directory)/temp/scgi;",
            ].compactMap { $0 }
            return """
                daemon off;
                master_process on;
                worker_processes \(workerProcesses);
                pid \(directory)/nginx.pid;
                lock_file \(directory)/nginx.lock;
                error_log stderr notice;
                events { worker_connections 4096; }
                http {
                    \(http.joined(separator: "\n    "))
                    server {
                        \(server.joined(separator: "\n        "))
                    }
                }

                """
        }

        /// Writes the served files under `html/` of `directory`, readable by everyone.
        func writeFiles(under directory: String) throws {
            for (path, content) in files {
                guard path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
                    throw HarnessError("nginx: '\(path)' is not an absolute path inside the site")
                }
                let url = URL(fileURLWithPath: directory + "/html" + path)
                try makeReadableDirectories(url.deletingLastPathComponent().path, under: directory)
                switch content {
                case .bytes(let bytes):
                    try Data(bytes).write(to: url)
                case .sparse(let size):
                    guard FileManager.default.createFile(atPath: url.path, contents: nil), truncate(url.path, off_t(size)) == 0 else {
                        throw HarnessError("nginx: cannot make a sparse file of \(size) bytes at \(url.path): \(String(cString: strerror(errno)))")
                    }
                }
                chmod(url.path, 0o644)
            }
        }

        private func makeReadableDirectories(_ path: String, under root: String) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            var current = URL(fileURLWithPath: path)
            while current.path.count >= root.count {
                chmod(current.path, 0o755)
                current = current.deletingLastPathComponent()
            }
        }
    }

    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// Its scratch directory (nginx.conf, nginx.pid, html/, temp/).
    public let directory: String
    /// "http" or "https".
    public let scheme: String
    /// The nginx master process (its stderr is the error log).
    public let master: Child
    private let scratch: Scratch

    private init(master: Child, scratch: Scratch, port: Int, scheme: String) {
        self.master = master
        self.scratch = scratch
        self.port = port
        self.scheme = scheme
        directory = scratch.url.path
    }

    /// `scheme://127.0.0.1:PORT` followed by `path` (which starts with "/").
    public func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// Writes the site and starts nginx; returns once it listens.
    public static func start(_ site: Site = Site()) async throws -> Nginx {
        let nginx = try tool("nginx")
        let scratch = try Scratch()
        let directory = scratch.url.path
        chmod(directory, 0o755)
        try FileManager.default.createDirectory(atPath: directory + "/temp", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/html", withIntermediateDirectories: true)
        chmod(directory + "/html", 0o755)
        try site.writeFiles(under: directory)
        let certificates = site.tls ? try await TestCertificates.shared.directory() : nil
        let attempts = 5
        var said = ""
        for _ in 0..<attempts {
            guard let port = PortBlock.suggestedPort() else { continue }
            let configuration = directory + "/nginx.conf"
            try Data(site.configuration(directory: directory, port: port, certificates: certificates).utf8)
                .write(to: URL(fileURLWithPath: configuration))
            let master = try await Child(nginx, ["-p", directory, "-e", "stderr", "-c", configuration], name: "nginx")
            do {
                try await master.waitForStderr("start worker process ")
                return Nginx(master: master, scratch: scratch, port: port, scheme: site.tls ? "https" : "http")
            } catch {
                _ = try? await master.wait()
                said = master.stderr
                guard said.contains("bind() to"), said.contains("failed") else {
                    throw HarnessError("nginx did not start: \(said)")
                }
            }
        }
        throw HarnessError("nginx found no free port in \(attempts) tries; it said: \(said)")
    }

    /// Asks nginx to finish (SIGQUIT: it closes idle connections, ends the busy ones after their
    /// response) and waits for its exit; returns its status.
    @discardableResult
    public func stop() async throws -> Int32 {
        master.signal(SIGQUIT)
        return try await master.wait()
    }

    deinit {
        guard master.isRunning else { return }
        let workers = Self.children(of: master.pid)
        master.signal(SIGKILL)
        for worker in workers { kill(worker, SIGKILL) }
    }

    /// The PIDs of the processes `pid` started (its workers), from /proc.
    private static func children(of pid: Int32) -> [Int32] {
        readProcFile("/proc/\(pid)/task/\(pid)/children").split(separator: " ").compactMap { Int32($0.filter(\.isNumber)) }
    }
}
