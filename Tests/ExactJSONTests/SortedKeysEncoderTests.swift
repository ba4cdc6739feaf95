import ExactJSON
import Foundation
import Testing

/// `SortedKeysEncoder` writes the bytes `JSONEncoder` writes with sorted keys and unescaped slashes: the API's answers
/// are compared byte for byte by clients (and signed), so the faster encoder must not change one.
@Suite struct SortedKeysEncoderTests {
    static func foundation(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// Keys whose orders differ by bytes, by case, by digits and by underscores; strings with every escape.
    static let keys = ["a", "B", "b", "a_b", "ab", "aB", "A", "a1", "a10", "a2", "_", "é", "z", "Z", "", "a b", "a/b", "key\u{1}"]
    static let strings = [
        "", "plain", "a/b", "quote \" back \\ slash", "\n\r\t\u{08}\u{0C}", "\u{0}\u{1}\u{1F}\u{7F}", "é😀", "\u{2028}\u{2029}",
        String(repeating: "long ", count: 40)
    ]

    /// Documents made from the lists above, every shape to depth three: objects, arrays, strings, integers to the
    /// limits, decimals, booleans, null.
    static func document(_ seed: Int, depth: Int) -> JSONValue {
        let scalars: [JSONValue] = [
            .null, .bool(true), .bool(false), .number("0"), .number("-9223372036854775808"), .number("9223372036854775807"),
            .number("12.5"), .number("-0.001"), .number("1e3"), .string(strings[seed % strings.count])
        ]
        guard depth > 0 else { return scalars[seed % scalars.count] }
        switch seed % 3 {
        case 0:
            return .object(
                (0..<(seed % 7)).map {
                    JSONMember(key: keys[(seed * 7 + $0 * 5) % keys.count], value: document(seed / 3 + $0 * 11, depth: depth - 1))
                })
        case 1:
            return .array((0..<(seed % 5)).map { document(seed / 3 + $0 * 13, depth: depth - 1) })
        default:
            return scalars[seed % scalars.count]
        }
    }

    @Test func documentsOfEveryShapeAreTheBytesJSONEncoderWrites() throws {
        for seed in 0..<2_000 {
            let value = Self.document(seed, depth: 3)
            let ours = try SortedKeysEncoder().encode(value)
            let theirs = try Self.foundation(value)
            #expect(ours == theirs, "seed \(seed): \(String(decoding: ours, as: UTF8.self)) vs \(String(decoding: theirs, as: UTF8.self))")
        }
    }

    @Test func aKeyWrittenTwiceKeepsItsLastValueAsInJSONEncoder() throws {
        for keys in [["a", "b", "a"], ["b", "a", "b", "a"], ["z", "z", "z"], ["c", "a", "b", "a", "c"]] {
            let value = JSONValue.object(keys.enumerated().map { JSONMember(key: $0.element, value: .number("\($0.offset)")) })
            #expect(try SortedKeysEncoder().encode(value) == Self.foundation(value), "\(keys)")
        }
    }

    struct Answer: Encodable {
        struct Item: Encodable {
            var id: String
            var count: Int
            var optional: String?
            var tiny: Int8
            var unsigned: UInt64
        }
        var name: String
        var items: [Item]
        var flags: [Bool]
        var nested: [String: [Int64]]
        var price: Decimal
        var missing: Int?
        var empty: [String: String]

        enum CodingKeys: String, CodingKey {
            case name, items, flags, nested, price, missing, empty
            case renamed = "zz_renamed"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(items, forKey: .items)
            try container.encode(flags, forKey: .flags)
            try container.encode(nested, forKey: .nested)
            try container.encode(price, forKey: .price)
            try container.encodeIfPresent(missing, forKey: .missing)
            try container.encode(empty, forKey: .empty)
            var inner = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .renamed)
            try inner.encodeNil(forKey: .name)
            try container.encode("name written twice", forKey: .name)
        }
    }

    @Test func typedAnswersWithOptionalsNestedContainersAndAKeyWrittenTwiceAreTheSame() throws {
        let answer = Answer(
            name: "n/a \"x\"",
            items: [
                .init(id: "1", count: -3, optional: nil, tiny: -8, unsigned: .max), .init(id: "2", count: 0, optional: "o", tiny: 7, unsigned: 0)
            ],
            flags: [true, false], nested: ["b": [1, 2], "a": [], "B": [Int64.min]], price: Decimal(string: "19.99")!, missing: nil, empty: [:])
        #expect(try SortedKeysEncoder().encode(answer) == Self.foundation(answer))
    }

    /// Doubles, dates, URLs and data are JSONEncoder's to format (its rules, not a second copy of them).
    @Test func whatItLeavesToJSONEncoderIsWhatJSONEncoderWrites() throws {
        struct Mixed: Encodable {
            var name = "mixed"
            var ratio = 1.5
            var tiny: Float = 0.1
            var at = Date(timeIntervalSince1970: 1_700_000_000.25)
            var url = URL(string: "https://example.com/a/b")!
            var bytes = Data([0, 1, 2, 255])
        }
        #expect(try SortedKeysEncoder().encode(Mixed()) == Self.foundation(Mixed()))
        #expect(try SortedKeysEncoder().encode([["x": 1e-7]]) == Self.foundation([["x": 1e-7]]))
    }
}
