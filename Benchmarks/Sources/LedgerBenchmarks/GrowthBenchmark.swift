import AppStoreSamples
import Foundation

/// How each cost grows with the data (issue 40, item 5): the same data set at two sizes, ten times apart — status reads,
/// the rebuild and the invoices, each beside its reference measured on the same cluster in the same phase — then the
/// large log's rebuild. Each size runs on a cluster of its own, so that the smaller set is not read from the larger
/// one's caches. The table (`table`) sets side by side what the data grew by and what each cost grew by.
struct GrowthBenchmark {
    let options: LedgerBenchmarks
    /// Billing accounts of the small and the large data set (each `usersPerApp` paying users).
    let sizes: [Int]

    /// Runs both sizes (the first on `first`, which it stops); returns every figure, each name suffixed with its size.
    func run(first: BenchCluster, log: (Figure) -> Void) async throws -> [Figure] {
        var figures: [Figure] = []
        func keep(_ figure: Figure, size: String) {
            var figure = figure
            figure.name += " [\(size)]"
            figures.append(figure)
            log(figure)
        }
        for (index, accounts) in sizes.enumerated() {
            let cluster = index == 0 ? first : try BenchCluster.start()
            defer { cluster.stop() }
            let (dataset, _) = try await Dataset.load(cluster: cluster, accounts: accounts, usersPerApp: options.usersPerApp)
            let size = "\(dataset.payingUsers) paying users"
            FileHandle.standardError.write(Data("bench: growth: data set of \(size) loaded\n".utf8))
            for figure in try await ReplayBenchmark(cluster: cluster).run(label: "(data set)") { keep(figure, size: size) }
            let signer = try AppStoreTestSigner()
            let server = try await Suite.startServer(cluster: cluster, signer: signer)
            let reads = try await ReadBenchmark(cluster: cluster, server: server, dataset: dataset, seconds: options.readSeconds).run()
            server.stop()
            reads.forEach { keep($0, size: size) }
            keep(try await InvoiceBenchmark(cluster: cluster, dataset: dataset).run(), size: size)
            if index == sizes.count - 1, options.largeReplayEvents > 0 {
                try await Dataset.grow(cluster: cluster, toEvents: options.largeReplayEvents, usersPerApp: 1_000_000)
                for figure in try await ReplayBenchmark(cluster: cluster).run(label: "(large)") { keep(figure, size: "large log") }
            }
        }
        return figures
    }

    /// The growth table: per cost, its value at each size and the reference's, and how much each grew.
    static func table(_ figures: [Figure]) -> String {
        func find(_ prefix: String, reference: String? = nil) -> [Figure] {
            figures.filter { figure in
                figure.name.hasPrefix(prefix) && (reference.map { figure.reference?.hasPrefix($0) == true } ?? true)
            }
        }
        func number(_ value: Double) -> String { value >= 100 ? String(format: "%.0f", value) : String(format: "%.3g", value) }
        func grew(_ pair: [Double]) -> String {
            guard pair.count >= 2, pair[0] > 0 else { return "—" }
            return String(format: "× %.2f", pair[pair.count - 1] / pair[0])
        }
        var rows: [String] = []
        func row(_ what: String, _ sizes: [String], ledger: [Double], reference: [Double], referenceName: String) {
            let referenceCell = reference.isEmpty ? "—" : "\(referenceName): \(reference.map(number).joined(separator: " → "))"
            rows.append("| \(what) | \(sizes.joined(separator: " → ")) | \(ledger.map(number).joined(separator: " → ")) | \(grew(ledger)) | "
                        + "\(referenceCell) | \(grew(reference)) |")
        }
        func users(_ figure: Figure) -> String {
            figure.name.split(separator: "[").last.map { String($0.dropLast()) } ?? "?"
        }
        for endpoint in ["GET /productsStatus", "GET /v1/users/{id}"] {
            let reads = find("status reads: \(endpoint)", reference: "GET /health")
            let sizes = reads.map(users)
            row("\(endpoint): requests/s", sizes, ledger: reads.map(\.value), reference: reads.compactMap(\.referenceValue),
                referenceName: "`/health` requests/s")
            row("\(endpoint): p99 ms", sizes, ledger: reads.compactMap { $0.detail["p99 ms"] }, reference: [], referenceName: "—")
            let statement = find("status reads: \(endpoint)", reference: "the read's own statement")
            row("\(endpoint): requests/s", sizes, ledger: statement.map(\.value), reference: statement.compactMap(\.referenceValue),
                referenceName: "its statement alone through libpq, statements/s")
        }
        let replays = find("replay (", reference: "COPY").filter { !$0.name.contains("peak memory") }
        row("rebuild: seconds", replays.map { "\(Int($0.detail["events"] ?? 0)) events" }, ledger: replays.compactMap { $0.detail["seconds"] },
            reference: replays.compactMap { $0.detail["reference seconds"] }, referenceName: "COPY out of the log, seconds")
        let shares = find("replay (", reference: "PostgreSQL's own share")
        row("rebuild: seconds", shares.map { "\(Int($0.detail["events"] ?? 0)) events" }, ledger: shares.compactMap { $0.detail["seconds"] },
            reference: shares.compactMap { $0.detail["reference seconds"] }, referenceName: "PostgreSQL's own share, seconds")
        let memory = figures.filter { $0.name.hasPrefix("replay (") && $0.name.contains("peak memory") }
        row("rebuild: peak RSS MiB", memory.map(users), ledger: memory.map(\.value), reference: [], referenceName: "—")
        let invoices = find("invoices")
        row("invoices: seconds", invoices.map(users), ledger: invoices.map(\.value), reference: invoices.compactMap(\.referenceValue),
            referenceName: "count(DISTINCT (app, user)) over the month, seconds")
        return "| cost | data | ledger | ledger grew | reference (same cluster, same phase) | reference grew |\n"
            + "|---|---|---|---:|---|---:|\n" + rows.joined(separator: "\n") + "\n"
    }
}
