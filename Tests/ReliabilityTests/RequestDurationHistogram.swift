import Foundation

/// The server's own request timings, read from its `/metrics` (`http_server_request_duration`, a Prometheus
/// histogram by route, method and status).
///
/// Latency measured inside the test process is not the server's: under the full parallel suite on two cores, a
/// finished request can wait seconds for a free thread of the test process before its timer stops. The server's
/// histogram is measured where the promise is made.
struct RequestDurationHistogram {
    /// Per series (labels without `le`): bucket bound in seconds → cumulative count; `.infinity` is the total.
    private(set) var series: [String: [Double: Int]] = [:]

    init(exposition: String) {
        let prefix = "http_server_request_duration_bucket{"
        for line in exposition.split(separator: "\n") where line.hasPrefix(prefix) {
            guard let close = line.lastIndex(of: "}"), let count = Int(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)),
                let leRange = line.range(of: "le=\"")
            else { continue }
            let afterLe = line[leRange.upperBound...]
            guard let quote = afterLe.firstIndex(of: "\"") else { continue }
            let bound = afterLe[..<quote] == "+Inf" ? Double.infinity : Double(afterLe[..<quote])
            guard let bound else { continue }
            let labels = String(line[line.index(line.startIndex, offsetBy: prefix.count)..<leRange.lowerBound])
            series[labels, default: [:]][bound] = count
        }
    }

    /// Requests of every series that took longer than `seconds`, which must be one of the histogram's bounds.
    func answersSlowerThan(seconds: Double) -> Int? {
        var slower = 0
        for buckets in series.values {
            guard let within = buckets[seconds], let total = buckets[.infinity] else { return nil }
            slower += total - within
        }
        return slower
    }

    var total: Int { series.values.reduce(0) { $0 + ($1[.infinity] ?? 0) } }
}
