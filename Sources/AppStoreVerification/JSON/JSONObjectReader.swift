import ExactJSON
import Foundation

/// Typed, validating access to the members of a payload object.
///
/// Every App Store field is optional (Apple omits what does not apply), but a present field of the wrong JSON type
/// makes the payload `malformed`, as it does in Apple's own library; `null` counts as absent.
struct JSONObjectReader {
    let object: JSONValue
    /// Where this object sits, for messages (e.g. `payload.data`).
    let path: String

    init(_ value: JSONValue, path: String) throws(AppStoreVerificationError) {
        guard value.isObject else { throw .malformed("\(path) must be a JSON object") }
        self.object = value
        self.path = path
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    private func wrongType(_ key: String, _ expected: String) -> AppStoreVerificationError {
        .malformed("\(path).\(key) must be \(expected)")
    }

    func string(_ key: String) throws(AppStoreVerificationError) -> String? {
        guard let value = present(key) else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, "a string") }
        return text
    }

    func bool(_ key: String) throws(AppStoreVerificationError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let flag) = value else { throw wrongType(key, "a boolean") }
        return flag
    }

    /// An integer member; fractions and values outside Int64 are rejected rather than rounded.
    func int64(_ key: String) throws(AppStoreVerificationError) -> Int64? {
        guard let value = present(key) else { return nil }
        guard case .number(let literal) = value, let integer = Int64(literal) else {
            throw wrongType(key, "an integer")
        }
        return integer
    }

    func int32(_ key: String) throws(AppStoreVerificationError) -> Int32? {
        guard let integer = try int64(key) else { return nil }
        guard let narrow = Int32(exactly: integer) else { throw wrongType(key, "a 32-bit integer") }
        return narrow
    }

    func timestamp(_ key: String) throws(AppStoreVerificationError) -> AppStoreTimestamp? {
        guard let value = present(key) else { return nil }
        guard case .number(let literal) = value, let timestamp = AppStoreTimestamp(literal: literal) else {
            throw wrongType(key, "epoch milliseconds")
        }
        return timestamp
    }

    func strings(_ key: String) throws(AppStoreVerificationError) -> [String]? {
        guard let value = present(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, "an array of strings") }
        var result: [String] = []
        for element in elements {
            guard case .string(let text) = element else { throw wrongType(key, "an array of strings") }
            result.append(text)
        }
        return result
    }

    func object(_ key: String) throws(AppStoreVerificationError) -> JSONObjectReader? {
        guard let value = present(key) else { return nil }
        return try JSONObjectReader(value, path: "\(path).\(key)")
    }

    /// Members kept verbatim without interpretation (e.g. nested objects we do not model yet).
    func raw(_ key: String) -> JSONValue? { present(key) }

    func stringEnum<T: RawRepresentable<String>>(_ key: String, as type: T.Type) throws(AppStoreVerificationError) -> T? {
        try string(key).flatMap { T(rawValue: $0) }
    }

    func intEnum<T: RawRepresentable<Int32>>(_ key: String, as type: T.Type) throws(AppStoreVerificationError) -> T? {
        try int32(key).flatMap { T(rawValue: $0) }
    }
}
