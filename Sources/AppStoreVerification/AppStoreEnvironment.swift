/// An App Store server environment, as it appears in signed data (`environment`, `receiptType`) and in configuration.
///
/// A string wrapper rather than a closed enum so that values Apple adds later decode and are reported verbatim.
public struct AppStoreEnvironment: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let production = Self(rawValue: "Production")
    public static let sandbox = Self(rawValue: "Sandbox")
    /// StoreKit testing in Xcode: data signed by a self-signed certificate on the developer's machine.
    public static let xcode = Self(rawValue: "Xcode")
    /// StoreKit local testing (e.g. in the simulator): also self-signed, never by the App Store.
    public static let localTesting = Self(rawValue: "LocalTesting")

    /// The environments a configuration may name.
    public static let configurable: [Self] = [.production, .sandbox, .xcode, .localTesting]

    /// Whether data for this environment is signed locally (by Xcode) rather than by the App Store.
    public var isLocal: Bool { self == .xcode || self == .localTesting }

    /// Parses a configured environment name, case-insensitively; nil for unknown names.
    public init?(configurationName: String) {
        guard let match = Self.configurable.first(where: { $0.rawValue.lowercased() == configurationName.lowercased() })
        else { return nil }
        self = match
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
