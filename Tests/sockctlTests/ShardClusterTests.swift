import Foundation
import TestSupport
import Testing

import Glibc

/// The distributed load test of deploy/kubernetes/ run here as the cluster runs it (issue 32):
/// the command lines are taken from the manifests' YAML (container command, args and env), and
/// each pod of the Indexed Job is a local process of its own — `/bin/sh -c` with
/// `JOB_COMPLETION_INDEX` set, `sockctl` on its PATH, the results volume a shared temporary
/// directory — against an echo listener on 127.0.0.1; pods start one after another, each once
/// the previous one waits at the barrier, as a cluster schedules them in no order.
@Suite("the Kubernetes shards, run locally", .hangGuard)
struct ShardClusterTests {
    /// One container of a Job in the manifests.
    struct Pod: Decodable {
        let indexed: Bool
        let completions: Int?
        let command: [String]
        let env: [String: String]
        let mounts: [String]
    }

    /// The Jobs of deploy/kubernetes/*.yaml by name, read with PyYAML (kubernetes-validate's own).
    static func jobs() async throws -> [String: Pod] {
        let script = """
            import json, sys, yaml
            jobs = {}
            for path in sys.argv[1:]:
                for doc in yaml.safe_load_all(open(path)):
                    if not doc or doc.get("kind") != "Job":
                        continue
                    spec = doc["spec"]
                    container = spec["template"]["spec"]["containers"][0]
                    jobs[doc["metadata"]["name"]] = {
                        "indexed": spec.get("completionMode") == "Indexed",
                        "completions": spec.get("completions"),
                        "command": container.get("command", []) + container.get("args", []),
                        "env": {e["name"]: e["value"] for e in container.get("env", [])},
                        "mounts": [m["mountPath"] for m in container.get("volumeMounts", [])],
                    }
            print(json.dumps(jobs))
            """
        let result = try await run(try python(), ["-c", script] + manifests())
        guard result.status == 0 else { throw HarnessError("reading the manifests failed: \(result.stderr)") }
        return try JSONDecoder().decode([String: Pod].self, from: result.stdout)
    }

    static func python() throws -> String {
        let python = packageRoot.appendingPathComponent(".venv-test/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw HarnessError("\(python) is missing: `make test` creates it (pip install kubernetes-validate)")
        }
        return python
    }

    static func manifests() throws -> [String] {
        let directory = packageRoot.appendingPathComponent("deploy/kubernetes")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") }.sorted().map { directory.appendingPathComponent($0).path }
    }

    /// A run of the manifests' Jobs in `results` (the volume) against `target`.
    struct Cluster {
        let load: Pod
        let merge: Pod
        let results: String
        let bin: String
        let overrides: [String: String]

        init(_ scratch: Scratch, _ name: String, target: String, overrides: [String: String]) async throws {
            let jobs = try await ShardClusterTests.jobs()
            load = try #require(jobs.values.first { $0.indexed })
            merge = try #require(jobs.values.first { !$0.indexed })
            results = scratch.path(name)
            try FileManager.default.createDirectory(atPath: results, withIntermediateDirectories: true)
            // `sockctl` on the PATH, as in the image.
            bin = scratch.path("bin")
            if !FileManager.default.fileExists(atPath: bin) {
                try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(atPath: "\(bin)/sockctl", withDestinationPath: try sockctlPath())
            }
            self.overrides = overrides.merging(["TARGET": target]) { $1 }
        }

        /// The pod's command line with the volume at `results`.
        func commandLine(_ pod: Pod) -> [String] {
            pod.command.map { $0.replacingOccurrences(of: pod.mounts.first ?? "/results", with: results) }
        }

        func environment(_ pod: Pod, index: Int?) -> [String: String] {
            var environment = pod.env.merging(overrides) { $1 }
            environment["PATH"] = "\(bin):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")"
            if let index { environment["JOB_COMPLETION_INDEX"] = String(index) }
            return environment
        }

        /// Pod `index` of the load Job, started.
        func shard(_ index: Int) async throws -> Child {
            let line = commandLine(load)
            return try await Child(line[0], Array(line.dropFirst()), name: "shard \(index)", environment: environment(load, index: index))
        }

        /// Shards `order`, each started once the one before waits at the barrier.
        func staggered(_ order: [Int]) async throws -> [Int: Child] {
            var pods: [Int: Child] = [:]
            for index in order {
                let pod = try await shard(index)
                pods[index] = pod
                if index != order.last { _ = try await pod.waitForStderr("waiting at the barrier") }
            }
            return pods
        }

        /// The merge Job, run to its end.
        func runMerge() async throws -> (status: Int32, stdout: Data, stderr: String) {
            let line = commandLine(merge)
            return try await run(line[0], Array(line.dropFirst()), environment: environment(merge, index: nil))
        }

        var shards: Int { Int(load.env["SHARDS"] ?? "") ?? 0 }

        func report(_ name: String) throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(results)/\(name)"))) as? [String: Any] ?? [:]
        }
    }

    /// The manifest's load command without the shard flags, run as one process into its own
    /// results directory ("whole"); its report.
    static func unshardedRun(_ scratch: Scratch, target: String, overrides: [String: String]) async throws -> [String: Any] {
        let whole = try await Cluster(scratch, "whole", target: target, overrides: overrides)
        let unsharded = whole.commandLine(whole.load).map {
            $0.replacingOccurrences(of: "--shard \"$JOB_COMPLETION_INDEX/$SHARDS\" --barrier \(whole.results)/barrier --barrier-timeout \"$BARRIER_TIMEOUT\"", with: "")
        }
        var environment = whole.environment(whole.load, index: nil)
        environment["JOB_COMPLETION_INDEX"] = "whole"
        let single = try await run(unsharded[0], Array(unsharded.dropFirst()), environment: environment)
        #expect(single.status == 0, "\(single.stderr)")
        return try whole.report("part-whole.json")
    }

    static func echoListener() async throws -> (Child, String) {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--echo", "--framing", "crlf", "--max-clients", "200"], name: "listener")
        return (listener, "127.0.0.1:\(try await listener.listeningPort())")
    }

    /// A run of `--requests` split over the manifest's shards adds up to exactly the unsharded run.
    @Test func theShardsOfTheManifestAddUpToExactlyTheUnshardedTest() async throws {
        let scratch = try Scratch()
        let (listener, target) = try await Self.echoListener()
        defer { listener.signal(SIGKILL) }
        let overrides = ["CONNECTIONS": "10", "RATE": "3000", "LENGTH": "--requests 9001", "BARRIER_TIMEOUT": "120s"]
        let cluster = try await Cluster(scratch, "results", target: target, overrides: overrides)
        #expect(cluster.shards == 3 && cluster.load.completions == cluster.shards, "SHARDS and completions agree")
        let script = cluster.load.command.joined(separator: " ")
        #expect(script.contains("--shard \"$JOB_COMPLETION_INDEX/$SHARDS\" --barrier /results/barrier"))

        let pods = try await cluster.staggered([2, 0, 1])
        for (index, pod) in pods.sorted(by: { $0.key < $1.key }) {
            #expect(try await pod.wait() == 0, "shard \(index): \(pod.stderr)")
            #expect(pod.stderr.contains("shard \(index)/3: all 3 shards arrived"))
        }
        let merge = try await cluster.runMerge()
        // The manifest's thresholds (p99<50ms) may fail on a busy machine: anything else may not.
        #expect(merge.status == 0 || merge.stderr.contains("VIOLATED") || merge.stderr.contains("threshold"), "\(merge.stderr)")
        #expect(!merge.stderr.contains("missing") && !merge.stderr.contains("measured together"), "\(merge.stderr)")
        let merged = try cluster.report("merged.json")

        // The same command line without the shard flags, as one process.
        let alone = try await Self.unshardedRun(scratch, target: target, overrides: overrides)
        #expect(alone["shard"] == nil)

        let mergedMessages = try #require(merged["messages"] as? [String: Int])
        let aloneMessages = try #require(alone["messages"] as? [String: Int])
        for field in ["intended", "sent", "received", "timed_out", "lost", "unsent"] {
            #expect(mergedMessages[field] == aloneMessages[field], "messages.\(field): merged \(mergedMessages[field] ?? -1), unsharded \(aloneMessages[field] ?? -1)")
        }
        #expect(mergedMessages["sent"] == 9001 && mergedMessages["received"] == 9001)
        #expect((merged["connections"] as? [String: Int])?["requested"] == 10)
        #expect((merged["config"] as? [String: Any])?["rate"] as? Double == 3000)
        #expect((merged["bytes"] as? [String: Int])?["sent"] == (alone["bytes"] as? [String: Int])?["sent"])
        let findings = try #require(merged["merge"] as? [String: Any])
        #expect(findings["shards"] as? [String] == ["0/3", "1/3", "2/3"])
        #expect(findings["corrected_latency_valid"] as? Bool == true)
        #expect((findings["overlap_share"] as? Double ?? 0) >= 0.9, "\(findings)")
        for index in 0..<3 { #expect(try cluster.report("part-\(index).json")["shard"] as? String == "\(index)/3") }
    }

    /// By time (`--duration`), at a rate: the shards are due exactly the unsharded run's
    /// messages, and the merged send rate (over the span from the first start to the last end)
    /// is within noise of it.
    @Test func byTimeTheMergedRateIsTheUnshardedRate() async throws {
        let scratch = try Scratch()
        let (listener, target) = try await Self.echoListener()
        defer { listener.signal(SIGKILL) }
        let overrides = ["CONNECTIONS": "9", "RATE": "3000", "LENGTH": "--duration 3s", "BARRIER_TIMEOUT": "120s"]
        let cluster = try await Cluster(scratch, "results", target: target, overrides: overrides)
        let pods = try await cluster.staggered([1, 2, 0])
        for (index, pod) in pods { #expect(try await pod.wait() == 0, "shard \(index): \(pod.stderr)") }
        _ = try await cluster.runMerge()
        let merged = try cluster.report("merged.json")
        let alone = try await Self.unshardedRun(scratch, target: target, overrides: overrides)
        #expect((merged["messages"] as? [String: Int])?["intended"] == 9000)
        #expect((alone["messages"] as? [String: Int])?["intended"] == 9000)
        let mergedRate = try #require((merged["throughput"] as? [String: Double])?["sent_per_second"])
        let aloneRate = try #require((alone["throughput"] as? [String: Double])?["sent_per_second"])
        #expect(abs(mergedRate / aloneRate - 1) < 0.1, "merged \(mergedRate)/s, unsharded \(aloneRate)/s")
    }

    /// A shard killed during the run is a missing part; the same shard run again later (a pod
    /// retried) passes the barrier at once and runs alone: the merge calls it late.
    @Test func aKilledShardAndALateShardAreReportedByTheMerge() async throws {
        let scratch = try Scratch()
        let (listener, target) = try await Self.echoListener()
        defer { listener.signal(SIGKILL) }
        let cluster = try await Cluster(scratch, "results", target: target, overrides: [
            "CONNECTIONS": "6", "RATE": "600", "LENGTH": "--requests 900", "BARRIER_TIMEOUT": "120s",
        ])
        var pods = try await cluster.staggered([0, 1, 2])
        defer { pods.values.forEach { $0.signal(SIGKILL) } }
        _ = try await pods[1]?.waitForStderr("all 3 shards arrived")
        pods[1]?.signal(SIGKILL)
        #expect(try await pods[1]?.wait() == 128 + SIGKILL)
        #expect(try await pods[0]?.wait() == 0)
        #expect(try await pods[2]?.wait() == 0)
        let missing = try await cluster.runMerge()
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("error: 1 of the 3 shards expected is missing: 1/3"), "\(missing.stderr)")

        // Retried after the others ended: its siblings' announcements are there, it starts at once.
        let retried = try await cluster.shard(1)
        pods[1] = retried
        #expect(try await retried.wait() == 0, "\(retried.stderr)")
        let late = try await cluster.runMerge()
        #expect(late.status == 1)
        #expect(late.stderr.contains("error: the parts were measured together for 0.00 s, 0% of the shortest"), "\(late.stderr)")
        #expect(late.stderr.contains("part-1.json started"), "\(late.stderr)")
    }

    /// A shard whose siblings never come fails after the barrier timeout with one line saying
    /// how many arrived; nothing is sent and no part is written.
    @Test func aShardAloneAtTheBarrierFailsSayingHowManyArrived() async throws {
        let scratch = try Scratch()
        let (listener, target) = try await Self.echoListener()
        defer { listener.signal(SIGKILL) }
        let cluster = try await Cluster(scratch, "results", target: target, overrides: ["LENGTH": "--requests 10", "BARRIER_TIMEOUT": "1s"])
        let pod = try await cluster.shard(2)
        #expect(try await pod.wait() == 1)
        let errors = pod.stderr.split(separator: "\n").filter { $0.contains("error") }
        #expect(errors == ["sockctl loadtest: error: 1 of 3 shards arrived at the barrier in \(cluster.results)/barrier within 1s (missing: 0, 1)"], "\(pod.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cluster.results)/part-2.json"))
    }

    /// The manifests are valid Kubernetes: kubernetes-validate checks them against the Job and
    /// PersistentVolumeClaim schemas it carries (no cluster, no network: in a network namespace
    /// of its own where one can be made).
    @Test func theManifestsAreValidKubernetes() async throws {
        let validate = packageRoot.appendingPathComponent(".venv-test/bin/kubernetes-validate").path
        guard FileManager.default.isExecutableFile(atPath: validate) else {
            throw HarnessError("\(validate) is missing: `make test` creates it (pip install kubernetes-validate)")
        }
        let manifests = try Self.manifests()
        let offline = try await run(try tool("unshare"), ["-rn", "true"]).status == 0
        let result = offline
            ? try await run(try tool("unshare"), ["-rn", validate, "--strict"] + manifests)
            : try await run(validate, ["--strict"] + manifests)
        #expect(result.status == 0, "\(result.stderr)")
        let passed = String(decoding: result.stdout, as: UTF8.self) + result.stderr
        #expect(passed.contains("passed for resource job/sockctl-loadtest "), "\(passed)")
        #expect(passed.contains("passed for resource job/sockctl-loadtest-merge "), "\(passed)")
        // And it does refuse what is not valid.
        let scratch = try Scratch()
        let broken = scratch.path("broken.yaml")
        try String(contentsOfFile: manifests[0], encoding: .utf8).replacingOccurrences(of: "backoffLimit: 0 ", with: "backoffLimit: none ").write(toFile: broken, atomically: true, encoding: .utf8)
        #expect(try await run(validate, ["--strict", broken]).status != 0)
    }
}
