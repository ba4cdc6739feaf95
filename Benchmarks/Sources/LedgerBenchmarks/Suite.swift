import AppStoreSamples
import Foundation

/// The order of the run: appends first (on an empty log), then the data set, its replay, the reads and the ingest
/// against the server, the invoices, and last the large replay.
struct Suite {
    let options: LedgerBenchmarks

    func run() async throws -> RunReport {
        let cluster = try BenchCluster.start()
        // LEDGER_BENCH_KEEP=1 leaves the cluster running afterwards, to profile queries by hand.
        defer { if ProcessInfo.processInfo.environment["LEDGER_BENCH_KEEP"] == nil { cluster.stop() } else { FileHandle.standardError.write(Data("bench: kept \(cluster.url)\n".utf8)) } }
        var report = RunReport(startedAt: ISO8601DateFormatter().string(from: Date()), machine: RunReport.machine(),
                               postgres: try cluster.settings(), options: [
                                   "append seconds": options.appendSeconds, "batches": options.batches, "notifications": options.notifications,
                                   "accounts": options.accounts, "users per app": options.usersPerApp, "read seconds": options.readSeconds,
                                   "large replay events": options.largeReplayEvents,
                                   "live streams": options.liveStreams, "live renewals": options.liveRenewals,
                               ])
        func log(_ figure: Figure) {
            report.figures.append(figure)
            let ratio = figure.ratio.map { String(format: " (%.0f%% of %@)", $0 * 100, figure.reference ?? "") } ?? ""
            FileHandle.standardError.write(Data("bench: \(figure.name): \(RunReport.format(figure.value)) \(figure.unit)\(ratio)\n".utf8))
        }

        if options.liveOnly {
            let signer = try AppStoreTestSigner()
            let server = try await Self.startServer(cluster: cluster, signer: signer)
            defer { server.stop() }
            for figure in try await LiveBenchmark(cluster: cluster, server: server, signer: signer, users: options.liveStreams,
                                                  renewals: options.liveRenewals, seconds: options.ingestSeconds).run() { log(figure) }
            FileHandle.standardError.write(Data(cluster.topStatements().utf8))
            return report
        }

        if options.consoleOnly {
            let server = try await Self.startServer(cluster: cluster, signer: try AppStoreTestSigner())
            defer { server.stop() }
            log(try await ConsoleBenchmark(cluster: cluster, server: server).run())
            return report
        }

        if options.ingestOnly {
            let signer = try AppStoreTestSigner()
            let server = try await Self.startServer(cluster: cluster, signer: signer)
            defer { server.stop() }
            log(try await IngestBenchmark(cluster: cluster, server: server, signer: signer, notifications: options.notifications,
                                          seconds: options.ingestSeconds).run(singleAppendPerSecond: 0))
            FileHandle.standardError.write(Data(cluster.topStatements().utf8))
            return report
        }

        if options.readsOnly {
            let (dataset, _) = try await Dataset.load(cluster: cluster, accounts: options.accounts, usersPerApp: options.usersPerApp)
            let server = try await Self.startServer(cluster: cluster, signer: try AppStoreTestSigner())
            defer { server.stop() }
            for figure in try await ReadBenchmark(cluster: cluster, server: server, dataset: dataset, seconds: options.readSeconds).run() { log(figure) }
            return report
        }

        if options.tracingOnly {
            let (dataset, _) = try await Dataset.load(cluster: cluster, accounts: options.accounts, usersPerApp: options.usersPerApp)
            let signer = try AppStoreTestSigner()
            let server = try await Self.startServer(cluster: cluster, signer: signer)
            defer { server.stop() }
            try await readsIngestAndTracing(cluster: cluster, dataset: dataset, server: server, signer: signer, singleAppend: 0, log: log)
            return report
        }

        if options.growth {
            let growth = try await GrowthBenchmark(options: options, sizes: [options.accounts / 10, options.accounts]).run(first: cluster, log: log)
            report.growthTable = GrowthBenchmark.table(growth)
            return report
        }

        if options.replayOnly {
            let (dataset, _) = try await Dataset.load(cluster: cluster, accounts: options.accounts, usersPerApp: options.usersPerApp)
            FileHandle.standardError.write(Data("bench: data set of \(dataset.payingUsers) paying users loaded\n".utf8))
            for figure in try await ReplayBenchmark(cluster: cluster).run(label: "(data set)") { log(figure) }
            if options.largeReplayEvents > 0 {
                try await Dataset.grow(cluster: cluster, toEvents: options.largeReplayEvents, usersPerApp: 1_000_000)
                for figure in try await ReplayBenchmark(cluster: cluster).run(label: "(large)") { log(figure) }
            }
            return report
        }

        let append = AppendBenchmark(cluster: cluster, seconds: options.appendSeconds)
        try append.prepareReference()
        let single = try await append.single()
        log(single)
        log(try await append.batched(batches: options.batches))
        if options.appendOnly {
            FileHandle.standardError.write(Data(cluster.topStatements().utf8))
            return report
        }

        let (dataset, loadSeconds) = try await Dataset.load(cluster: cluster, accounts: options.accounts, usersPerApp: options.usersPerApp)
        FileHandle.standardError.write(Data("bench: data set of \(dataset.payingUsers) paying users loaded in \(Int(loadSeconds)) s\n".utf8))
        for figure in try await ReplayBenchmark(cluster: cluster).run(label: "(data set)") { log(figure) }

        let signer = try AppStoreTestSigner()
        let server = try await Self.startServer(cluster: cluster, signer: signer)
        defer { server.stop() }
        report.figures.append(Figure(name: "server memory at rest", workload: "after start", value: server.peakRSSMiB(), unit: "MiB",
                                     target: "< 150 MB under load"))
        try await readsIngestAndTracing(cluster: cluster, dataset: dataset, server: server, signer: signer, singleAppend: single.value, log: log)
        log(try await InvoiceBenchmark(cluster: cluster, dataset: dataset).run())
        log(try await ConsoleBenchmark(cluster: cluster, server: server).run())
        // After the invoices: its users pay in the invoiced month too.
        if options.liveStreams > 0 {
            for figure in try await LiveBenchmark(cluster: cluster, server: server, signer: signer, users: options.liveStreams,
                                                  renewals: options.liveRenewals, seconds: options.ingestSeconds).run() { log(figure) }
        }
        server.stop()

        if options.largeReplayEvents > 0 {
            try await Dataset.grow(cluster: cluster, toEvents: options.largeReplayEvents, usersPerApp: 1_000_000)
            for figure in try await ReplayBenchmark(cluster: cluster).run(label: "(large)") { log(figure) }
        }
        return report
    }

    /// The status reads and the ingest on `server` (tracing off), then what tracing costs (`TracingBenchmark`: two more
    /// servers, tracing off and on, loaded at the same time, stopped before the next figures).
    private func readsIngestAndTracing(
        cluster: BenchCluster, dataset: Dataset, server: ServerProcess, signer: AppStoreTestSigner, singleAppend: Double,
        log: (Figure) -> Void
    ) async throws {
        let reads = try await ReadBenchmark(cluster: cluster, server: server, dataset: dataset, seconds: options.readSeconds).run()
        reads.forEach(log)
        let ingest = try await IngestBenchmark(cluster: cluster, server: server, signer: signer, notifications: options.notifications,
                                               seconds: options.ingestSeconds).run(singleAppendPerSecond: singleAppend)
        log(ingest)
        let tracing = TracingBenchmark(
            cluster: cluster, signer: signer, dataset: dataset, readSeconds: options.readSeconds, ingestSeconds: options.ingestSeconds,
            notifications: options.notifications, control: options.tracingControl, ratio: options.tracingRatio,
            start: { environment in try await Self.startServer(cluster: cluster, signer: signer, environment: environment) })
        for figure in try await tracing.run(ingest: ingest) { log(figure) }
    }

    /// `ledger serve` on the cluster, trusting the test signer's root.
    static func startServer(cluster: BenchCluster, signer: AppStoreTestSigner, environment: [String: String] = [:]) async throws -> ServerProcess {
        let root = NSTemporaryDirectory() + "ledger-bench-root.der"
        try Data(try TestPKI_der(signer)).write(to: URL(fileURLWithPath: root))
        return try await ServerProcess.start(
            cluster: cluster, appleRoot: root, log: NSTemporaryDirectory() + "ledger-bench-server.log", environment: environment)
    }

    private static func TestPKI_der(_ signer: AppStoreTestSigner) throws -> [UInt8] { try TestPKI.der(signer.jws.root) }
}
