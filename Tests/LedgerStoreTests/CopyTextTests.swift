@testable import LedgerStore
import Testing

/// COPY's text format as the rebuild writes its rows (`CopyTextCells`) and reads the log (`CopyText`): what one
/// writes, the other reads back, whatever the cells hold.
@Suite struct CopyTextTests {
    /// A row of cells, written as COPY writes them, then its trailing newline.
    private static func row(_ cells: [String?]) -> [UInt8] {
        var line: [UInt8] = []
        for (index, cell) in cells.enumerated() {
            if index > 0 { line.append(0x09) }
            if let cell { CopyTextCells.text(cell, into: &line) } else { CopyTextCells.null(into: &line) }
        }
        line.append(0x0A)
        return line
    }

    @Test func cellsWrittenAreReadBackWithTheirTabsNewlinesAndBackslashes() {
        let cells: [String?] = ["app\tone", "stream\\n not a newline", "line\nbreak\r", "", nil, "ünï ✓ 🧾", #"{"a": "\\u0000"}"#]
        let line = Self.row(cells)
        var fields: [Range<Int>] = []
        CopyText.fields(line, into: &fields)
        #expect(fields.count == cells.count)
        #expect(fields.indices.map { CopyText.text(line, fields[$0]) } == cells.map { $0 ?? "" })
    }

    /// Every cell of up to three characters from the bytes COPY escapes and their neighbours, between other cells.
    @Test func everyShortCellSurvivesTheRoundTrip() {
        let alphabet: [String] = ["a", "\t", "\n", "\r", "\\", "N", "t", "é", "\u{8}"]
        var cells: [String] = [""]
        var level: [String] = [""]
        for _ in 1...3 {
            level = level.flatMap { cell in alphabet.map { cell + $0 } }
            cells += level
        }
        #expect(cells.count == 1 + 9 + 81 + 729)
        var fields: [Range<Int>] = []
        for cell in cells {
            let line = Self.row([cell, "\\N", cell])
            CopyText.fields(line, into: &fields)
            #expect(fields.indices.map { CopyText.text(line, fields[$0]) } == [cell, "\\N", cell], "\(Array(cell.unicodeScalars))")
        }
    }

    @Test func integersAreReadFromTheirDigitsAndAnythingElseIsNone() {
        for value: Int64 in [0, 7, -7, 1_775_779_200_000_000, .max, .min] {
            var line: [UInt8] = []
            CopyTextCells.integer(value, into: &line)
            #expect(CopyText.integer(line, 0..<line.count) == value)
        }
        for text in ["", "-", "12a", "1.5", "\\N", "9223372036854775808", "-9223372036854775809", " 1"] {
            let line = Array(text.utf8)
            #expect(CopyText.integer(line, 0..<line.count) == nil, "\(text)")
        }
    }

    /// The stream's key is the first two fields as they came: escaped tabs inside them do not end it, and two rows
    /// of one stream have equal keys whatever follows.
    @Test func aRowsStreamKeyIsItsAppAndStreamAsWritten() {
        let first = Self.row(["app\tx", "otx:1", "10", "subscription.started"])
        let second = Self.row(["app\tx", "otx:1", "11", "subscription.renewed"])
        let other = Self.row(["app\tx", "otx:12", "12", "subscription.renewed"])
        #expect(CopyText.streamKey(first).elementsEqual(CopyText.streamKey(second)))
        #expect(!CopyText.streamKey(first).elementsEqual(CopyText.streamKey(other)))
        #expect(String(decoding: CopyText.streamKey(first), as: UTF8.self) == "app\\tx\totx:1")
    }
}
