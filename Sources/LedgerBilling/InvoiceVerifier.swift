import LedgerDomain
import PostgresClient
import UTCTime

/// Finds tampering with finalized invoices, for `ledger verify`: content that no longer matches its hash, gaps or
/// extra numbers in a year's sequence (a deleted or inserted invoice), numbers out of finalization order (numbers
/// swapped or reassigned: a number is taken under a row lock and the invoice stamped while the lock is held, so
/// numbers rise with `finalized_at`), and, with `replay`, content (and hash) that the event log no longer reproduces.
package enum InvoiceVerifier {
    package static func verify(on connection: PostgresConnection, replay: Bool) throws -> (checked: Int, problems: [String]) {
        guard try connection.query("SELECT to_regclass('ledger.invoices') IS NOT NULL").first?.decode(Bool.self, at: 0) == true else {
            return (0, [])
        }
        var problems: [String] = []
        let rows = try connection.query("SELECT id, year, number, content, content_hash, finalized_at FROM ledger.invoices ORDER BY year, number")
        var numbers: [Int32: [Int32]] = [:]
        var previous: (year: Int32, number: Int32, finalizedAt: Instant)? = nil
        for row in rows {
            let (id, year, number) = (try row.decode(String.self, at: 0), try row.decode(Int32.self, at: 1), try row.decode(Int32.self, at: 2))
            let finalizedAt = try row.decode(Instant.self, at: 5)
            numbers[year, default: []].append(number)
            if let previous, previous.year == year, previous.finalizedAt >= finalizedAt {
                problems.append(
                    "invoice \(id) (\(year)-\(number)) was finalized before number \(previous.number): numbers were swapped or " + "reassigned")
            }
            previous = (year, number, finalizedAt)
            if InvoiceCanonicalJSON.hash(try row.decode(String.self, at: 3)) != (try row.decode([UInt8].self, at: 4)) {
                problems.append("invoice \(id) (\(year)-\(number)): its content does not match its hash (edited)")
            }
        }
        let last = Dictionary(
            uniqueKeysWithValues: try connection.query("SELECT year, last FROM ledger.invoice_numbers").map {
                (try $0.decode(Int32.self, at: 0), try $0.decode(Int32.self, at: 1))
            })
        for year in Set(numbers.keys).union(last.keys).sorted() {
            let used = numbers[year] ?? []
            let top = max(last[year] ?? 0, used.max() ?? 0)
            guard top > 0 else { continue }
            let expected = Array(1...top)
            let missing = Set(expected).subtracting(used).sorted()
            if !missing.isEmpty {
                problems.append("invoices of \(year): numbers \(missing.map(String.init).joined(separator: ", ")) are missing " + "(deleted)")
            }
            if used.count != Set(used).count || (used.max() ?? 0) > (last[year] ?? 0) {
                problems.append("invoices of \(year): numbers beyond the sequence or repeated (inserted)")
            }
        }
        if replay {
            for row in rows {
                let id = try row.decode(String.self, at: 0)
                let reproduced = try InvoiceStore.reproduce(id: id, on: connection)
                if !reproduced.isReproduced {
                    problems.append("invoice \(id) (\(reproduced.stored.displayNumber)): the event log no longer reproduces it")
                }
            }
        }
        return (rows.count, problems)
    }
}
