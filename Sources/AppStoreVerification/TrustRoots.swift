import Foundation
import SwiftASN1
import X509

/// The root certificates App Store data must chain to.
///
/// Defaults: Apple Root CA - G3 (anchors StoreKit 2 JWS) and Apple Inc. Root CA (anchors legacy receipts), compiled
/// in (`EmbeddedRoots`). Configuration *replaces* the defaults, so a test or staging setup trusts exactly what it
/// names; the token `default` in the list adds the shipped roots back (e.g. `LEDGER_APPLE_ROOTS=default:/etc/extra-root.pem`).
public struct TrustRoots: Sendable {
    /// The environment variable holding root files, separated by `:` or `,`.
    public static let environmentVariable = "LEDGER_APPLE_ROOTS"
    /// The token that stands for the shipped roots in a configured list.
    public static let defaultToken = "default"

    public let certificates: [Certificate]

    public init(certificates: [Certificate]) { self.certificates = certificates }

    /// The shipped roots, compiled into the binary so that a copied `ledger` needs no resource bundle beside it.
    public static func appleDefaults() -> TrustRoots {
        TrustRoots(certificates: EmbeddedRoots.pem.compactMap { try? Certificate(pemEncoded: $0) })
    }

    /// Loads roots from files (DER or PEM, several PEM certificates per file allowed); `default` adds the shipped
    /// roots.
    public static func load(paths: [String]) throws(AppStoreVerificationError) -> TrustRoots {
        var certificates: [Certificate] = []
        for path in paths {
            if path == defaultToken {
                certificates += appleDefaults().certificates
                continue
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .malformed("cannot read root certificate file \(path)")
            }
            do {
                certificates += try parse(Array(data))
            } catch {
                throw .malformed("\(path) is not a DER or PEM certificate")
            }
        }
        return TrustRoots(certificates: certificates)
    }

    /// The roots to use: `paths` if given (e.g. `--root`), else `LEDGER_APPLE_ROOTS` if set, else the defaults.
    public static func resolve(
        paths: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(AppStoreVerificationError) -> TrustRoots {
        if !paths.isEmpty { return try load(paths: paths) }
        if let list = environment[environmentVariable]?.trimmingCharacters(in: .whitespaces), !list.isEmpty {
            let entries = list.split(whereSeparator: { $0 == ":" || $0 == "," }).map { String($0).trimmingCharacters(in: .whitespaces) }
            return try load(paths: entries.filter { !$0.isEmpty })
        }
        return appleDefaults()
    }

    /// Parses one file's bytes: PEM (one or more certificates) if it looks like text, else DER.
    static func parse(_ bytes: [UInt8]) throws -> [Certificate] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("-----BEGIN CERTIFICATE-----") else { return [try Certificate(derEncoded: bytes)] }
        var certificates: [Certificate] = []
        var remainder = Substring(text)
        while let begin = remainder.range(of: "-----BEGIN CERTIFICATE-----"),
            let end = remainder.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<remainder.endIndex)
        {
            certificates.append(try Certificate(pemEncoded: String(remainder[begin.lowerBound..<end.upperBound])))
            remainder = remainder[end.upperBound...]
        }
        return certificates
    }
}
