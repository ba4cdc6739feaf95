import ExactJSON
import Testing

/// JSON kept exactly: literal numbers, member order, strict grammar.
@Suite struct ExactJSONTests {
    @Test func jsonRoundTripsVerbatim() throws {
        let text = #"{"b":1697679936049.7297,"a":[true,false,null,-0.5e-3],"s":"\u00e9\ud83d\ude00\n\"","big":9223372036854775807}"#
        let value = try JSONParser.parse(Array(text.utf8))
        #expect(value.keys == ["b", "a", "s", "big"])
        #expect(value["s"]?.stringValue == "é😀\n\"")
        #expect(JSONWriter.string(value) == #"{"b":1697679936049.7297,"a":[true,false,null,-0.5e-3],"s":"é😀\n\"","big":9223372036854775807}"#)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\":1}x", "01", "1.", "\"\\ud800\"", "\"\u{01}\"", "nul", String(repeating: "[", count: 100)])
    func jsonRejectsInvalidDocuments(_ text: String) {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    @Test func jsonRejectsInvalidUTF8() {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func quotedEscapesWhatJSONRequires() {
        #expect(JSONWriter.quoted("a\"b\\c\n\u{01}✓") == #""a\"b\\c\n\u0001✓""#)
        #expect(JSONWriter.quoted("\u{2028}x\u{2029}\u{2027}\u{1F}\u{7F}") == #""\u2028x\u2029\#u{2027}\u001f\#u{7F}""#)
    }

    /// Every string, escaped by runs of bytes, reads back as itself.
    @Test func quotedStringsReadBackAsThemselves() throws {
        let pieces = [
            "a", "\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{1F}", "\u{2028}", "\u{2029}", "\u{E2}",
            "é", "✓", "😀", "\u{2027}", " ", "/"
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let quoted = JSONWriter.quoted(text)
            #expect(try JSONParser.parse(Array(quoted.utf8)).stringValue == text)
            #expect(!quoted.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{2029}" })
        }
    }
}
