/// PostgreSQL's COPY text format, read.
enum CopyText {
    /// A log row's stream as the rebuild reads the log (`FoldPass.logInStreamOrder`: app and stream id first): its
    /// first two fields, escaped as they came, with the tab between. Rows of one stream have equal keys; the reader
    /// cuts chunks and the workers end states where it changes.
    static func streamKey(_ line: [UInt8]) -> ArraySlice<UInt8> {
        var seen = 0
        for (index, byte) in line.enumerated() where byte == 0x09 {
            seen += 1
            if seen == 2 { return line[..<index] }
        }
        return line[...]
    }

    /// Where the fields of one row lie (its trailing newline dropped), escaped as they are, into `fields`.
    static func fields(_ line: [UInt8], into fields: inout [Range<Int>]) {
        fields.removeAll(keepingCapacity: true)
        var end = line.count
        if end > 0, line[end - 1] == 0x0A { end -= 1 }
        var start = 0
        var index = 0
        while index <= end {
            if index == end || line[index] == 0x09 {
                fields.append(start..<index)
                start = index + 1
            }
            index += 1
        }
    }

    /// A field's text, unescaped; `\N` (NULL) reads as empty.
    static func text(_ line: [UInt8], _ field: Range<Int>) -> String { unescape(line[field]) }

    /// A field's decimal integer, read from its bytes; nil when it is not one.
    static func integer(_ line: [UInt8], _ field: Range<Int>) -> Int64? {
        var index = field.lowerBound
        let negative = index < field.upperBound && line[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < field.upperBound else { return nil }
        var value: Int64 = 0
        while index < field.upperBound {
            let digit = line[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(negative ? -Int64(digit) : Int64(digit))
            guard !overflow, !overflowSum else { return nil }
            value = sum
            index += 1
        }
        return value
    }

    private static func unescape(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(0x5C) else { return String(decoding: bytes, as: UTF8.self) }
        if bytes.elementsEqual([0x5C, UInt8(ascii: "N")]) { return "" }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var escaped = false
        for byte in bytes {
            if escaped {
                switch byte {
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "v"): out.append(0x0B)
                default: out.append(byte)
                }
                escaped = false
            } else if byte == 0x5C {
                escaped = true
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// COPY's text format, cell by cell: tab-separated, `\N` for NULL, backslash escapes.
enum CopyTextCells {
    static func null(into buffer: inout [UInt8]) {
        buffer.append(0x5C)
        buffer.append(UInt8(ascii: "N"))
    }

    static func text(_ value: String, into buffer: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            // Most cells need no escape: copied whole, not byte by byte.
            guard bytes.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
                buffer.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case 0x5C: buffer.append(0x5C); buffer.append(0x5C)
                case 0x09: buffer.append(0x5C); buffer.append(UInt8(ascii: "t"))
                case 0x0A: buffer.append(0x5C); buffer.append(UInt8(ascii: "n"))
                case 0x0D: buffer.append(0x5C); buffer.append(UInt8(ascii: "r"))
                default: buffer.append(byte)
                }
            }
        }
    }

    /// Decimal digits, without a string.
    static func integer(_ value: Int64, into buffer: inout [UInt8]) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
