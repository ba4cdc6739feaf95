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
    }
}
