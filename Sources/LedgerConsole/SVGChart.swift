/// Bar charts as inline SVG, made on the server: no JavaScript, no library. Labels are escaped like any text.
enum SVGChart {
    /// One bar per point; `format` writes a value for its label (integers by default).
    static func bars(title: String, points: [(label: String, value: Int64)], format: (Int64) -> String = { String($0) }) -> String {
        guard !points.isEmpty else { return "<figure><figcaption>\(HTML.escape(title))</figcaption><p class=empty>No data yet.</p></figure>" }
        let (barWidth, gap, height, top, bottom, left) = (36, 10, 160, 20, 40, 10)
        let width = left * 2 + points.count * (barWidth + gap)
        let maximum = max(points.map(\.value).max() ?? 1, 1)
        var parts: [String] = []
        for (index, point) in points.enumerated() {
            let barHeight = Int(Double(max(point.value, 0)) / Double(maximum) * Double(height))
            let x = left + index * (barWidth + gap)
            let y = top + height - barHeight
            parts.append(
                "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(barWidth)\" height=\"\(barHeight)\" fill=\"#457b9d\">"
                    + "<title>\(HTML.escape(point.label)): \(HTML.escape(format(point.value)))</title></rect>")
            parts.append(
                "<text x=\"\(x + barWidth / 2)\" y=\"\(y - 4)\" font-size=\"10\" text-anchor=\"middle\">"
                    + "\(HTML.escape(format(point.value)))</text>")
            parts.append(
                "<text x=\"\(x + barWidth / 2)\" y=\"\(top + height + 14)\" font-size=\"9\" text-anchor=\"middle\">"
                    + "\(HTML.escape(point.label))</text>")
        }
        let total = top + height + bottom
        return """
            <figure><figcaption>\(HTML.escape(title))</figcaption>
            <svg xmlns="http://www.w3.org/2000/svg" role="img" width="\(width)" height="\(total)" viewBox="0 0 \(width) \(total)">\
            <title>\(HTML.escape(title))</title>\(parts.joined())</svg></figure>
            """
    }
}
