import Foundation

/// Request bodies built from an operation's documented example: each string member replaced by each hostile
/// string, each member given a wrong type, and a fixed list of bodies that are not the JSON asked for at all.
struct HostileBody: Sendable {
    var name: String
    var bytes: [UInt8]
    /// Must be refused: everything but an example whose member holds a legal (if odd) string.
    var mustReject: Bool

    /// Bodies that are never what any operation takes.
    static let malformed: [(String, String)] = [
        ("empty", ""), ("truncated", #"{"a":"#), ("single-quotes", "{'a':1}"), ("trailing-garbage", "{} x"),
        ("bare-array", "[]"), ("bare-string", #""x""#), ("bare-number", "42"), ("null", "null"), ("bare-true", "true"),
        ("nul-byte", "{\u{0}}"), ("bom", "\u{FEFF}{}"), ("deep-nesting", String(repeating: "[", count: 20_000)),
        ("deep-objects", String(repeating: #"{"a":"#, count: 10_000)), ("huge-exponent", #"{"a":1e999999999}"#),
        ("lone-surrogate-key", #"{"\ud800":1}"#), ("duplicate-keys", #"{"a":1,"a":2}"#), ("unknown-member", #"{"zzz_unknown":1}"#),
        ("numbers-as-keys", #"{1:2}"#), ("comment", "/* x */ {}")
    ]

    /// Every hostile body for an operation whose documented example body is `example`.
    static func corpus(example: String, strings: [HostileString], limit: Int) -> [HostileBody] {
        var bodies = malformed.map { HostileBody(name: $0.0, bytes: Array($0.1.utf8), mustReject: true) }
        bodies.append(
            HostileBody(
                name: "over-the-limit",
                bytes: Array(#"{"data":""#.utf8)
                    + Array(
                        repeating: UInt8(ascii: "A"),
                        count: limit) + Array(#""}"#.utf8), mustReject: true))
        bodies.append(HostileBody(name: "invalid-utf8", bytes: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D], mustReject: true))
        guard let tree = try? JSONSerialization.jsonObject(with: Data(example.utf8), options: [.fragmentsAllowed]) else { return bodies }
        for path in leaves(of: tree) {
            let name = path.map { "\($0)" }.joined(separator: ".")
            if let wrong = wrongType(for: value(at: path, in: tree)) {
                bodies.append(
                    HostileBody(
                        name: "\(name):wrong-type", bytes: Array(encode(replacing(path, in: tree, with: wrong)).utf8),
                        mustReject: true))
            }
            guard value(at: path, in: tree) is String else { continue }
            let marked = encode(replacing(path, in: tree, with: marker))
            for string in strings {
                let text = marked.replacingOccurrences(of: "\"\(marker)\"", with: "\"\(string.json)\"")
                bodies.append(HostileBody(name: "\(name)=\(string.name)", bytes: Array(text.utf8), mustReject: string.rejectInBody))
            }
        }
        return bodies
    }

    private static let marker = "@@hostile@@"

    /// Paths (member names and array indexes) to every scalar and to every member, in document order.
    static func leaves(of value: Any, prefix: [AnyHashable] = []) -> [[AnyHashable]] {
        if let object = value as? [String: Any] {
            return object.keys.sorted().flatMap { key in
                [prefix + [key]]
                    + leaves(
                        of: object[key]!,
                        prefix: prefix + [key]
                    ).filter { $0.count > prefix.count + 1 }
            }
        }
        if let array = value as? [Any] {
            return array.indices.flatMap { index in
                [prefix + [index]]
                    + leaves(
                        of: array[index],
                        prefix: prefix + [index]
                    ).filter { $0.count > prefix.count + 1 }
            }
        }
        return []
    }

    static func value(at path: [AnyHashable], in tree: Any) -> Any? {
        guard let head = path.first else { return tree }
        if let key = head as? String, let object = tree as? [String: Any], let next = object[key] {
            return value(
                at: Array(path.dropFirst()),
                in: next)
        }
        if let index = head as? Int, let array = tree as? [Any], array.indices.contains(index) {
            return value(
                at: Array(path.dropFirst()),
                in: array[index])
        }
        return nil
    }

    static func replacing(_ path: [AnyHashable], in tree: Any, with replacement: Any) -> Any {
        guard let head = path.first else { return replacement }
        if let key = head as? String, var object = tree as? [String: Any], let next = object[key] {
            object[key] = replacing(Array(path.dropFirst()), in: next, with: replacement)
            return object
        }
        if let index = head as? Int, var array = tree as? [Any], array.indices.contains(index) {
            array[index] = replacing(Array(path.dropFirst()), in: array[index], with: replacement)
            return array
        }
        return tree
    }

    /// A value of another JSON type than `value`'s.
    static func wrongType(for value: Any?) -> Any? {
        switch value {
        case is String: return 12_345
        case is [Any]: return ["not": "an array"]
        case is [String: Any]: return [1, 2]
        case is NSNumber: return "not a number"
        default: return nil
        }
    }

    static func encode(_ tree: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: tree, options: [.sortedKeys, .fragmentsAllowed]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
