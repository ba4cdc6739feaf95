import AppStoreSamples
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509
@testable import AppStoreVerification

/// The building blocks: timestamps, RFC 3339, base64, trust roots.
@Suite struct SupportTests {
    @Test func timestampsKeepFractionalMilliseconds() throws {
        let timestamp = try #require(AppStoreTimestamp(literal: "1697679936049.7297"))
        #expect(timestamp.wholeMilliseconds == 1_697_679_936_049)
        #expect(abs(timestamp.date.timeIntervalSince1970 - 1_697_679_936.0497297) < 0.000_01)
        #expect(AppStoreTimestamp(literal: "-62135769600000")?.wholeMilliseconds == -62_135_769_600_000)
        #expect(AppStoreTimestamp(literal: "1e300") == nil)
    }

    @Test func rfc3339Dates() {
        #expect(RFC3339.milliseconds("2023-10-19T01:18:54Z") == 1_697_678_334_000)
        #expect(RFC3339.milliseconds("4001-01-01T00:00:00Z") == 64_092_211_200_000)
        #expect(RFC3339.milliseconds("2025-01-01T09:30:00.25Z") == 1_735_723_800_250)
        #expect(RFC3339.milliseconds("2025-01-01T10:30:00+01:00") == 1_735_723_800_000)
        for bad in ["", "2025-02-30T00:00:00Z", "2025-01-01 00:00:00Z", "2025-01-01T00:00:00", "2025-01-01T00:00:00Zjunk"] {
            #expect(RFC3339.milliseconds(bad) == nil, "\(bad)")
        }
    }

    @Test func base64URLIsCanonical() {
        #expect(Base64.decodeURLStrict("AQID") == [1, 2, 3])
        #expect(Base64.decodeURLStrict("AQ") == [1])
        #expect(Base64.decodeURLStrict("AR") == nil)  // same bytes as "AQ" with non-zero unused bits
        #expect(Base64.decodeURL("AR") == [1])
        #expect(Base64.decodeURLStrict("A") == nil)
        #expect(Base64.decodeURLStrict("AQ==") == nil)
    }

    /// The byte-level decoder agrees with Foundation's on every length and byte, and refuses what is not base64url.
    @Test func base64URLDecodesWhatFoundationEncodes() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let url = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64.decodeURLStrict(Substring(url)) == bytes)
            #expect(Base64.decodeURL(Substring(url)) == bytes)
        }
        for bad in ["AQ+D", "AQ/D", "AQ=D", "AQ D", "AQé", "A\u{0}QD"] { #expect(Base64.decodeURL(Substring(bad)) == nil) }
    }

    @Test func jwsSegmentsSplitAtEveryDot() {
        #expect(CompactJWS.segments("a.b.c") == ["a", "b", "c"])
        #expect(CompactJWS.segments("..") == ["", "", ""])
        #expect(CompactJWS.segments("abc") == ["abc"])
        #expect(CompactJWS.segments("é.ü.") == ["é", "ü", ""])
        #expect(CompactJWS.segments("a.b.c.d").count == 4)
    }

    /// The shipped roots are the real Apple roots, by SHA-256 fingerprint.
    @Test func shippedRootsAreApples() throws {
        let expected: Set<String> = [
            "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179",  // Apple Root CA - G3
            "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024"  // Apple Inc. Root CA
        ]
        func fingerprints(_ roots: [Certificate]) throws -> Set<String> {
            Set(try roots.map { try SHA256.hash(data: TestPKI.der($0)).map { String(format: "%02x", $0) }.joined() })
        }
        #expect(try fingerprints(TrustRoots.appleDefaults().certificates) == expected)
        #expect(try fingerprints(EmbeddedRoots.pem.map { try Certificate(pemEncoded: $0) }) == expected)
    }

    @Test func rootsAreConfigurable() throws {
        let pki = try TestPKI()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let der = directory.appendingPathComponent("root.der").path
        let pem = directory.appendingPathComponent("root.pem").path
        _ = FileManager.default.createFile(atPath: der, contents: Data(try TestPKI.der(pki.root)))
        _ = FileManager.default.createFile(atPath: pem, contents: Data(try pki.root.serializeAsPEM().pemString.utf8))

        #expect(try TrustRoots.resolve(paths: [der]).certificates == [pki.root])
        #expect(try TrustRoots.resolve(paths: [], environment: ["LEDGER_APPLE_ROOTS": "\(pem),\(der)"]).certificates == [pki.root, pki.root])
        #expect(try TrustRoots.resolve(paths: [], environment: ["LEDGER_APPLE_ROOTS": "default:\(der)"]).certificates.count == 3)
        #expect(try TrustRoots.resolve(paths: [], environment: [:]).certificates.count == 2)
        #expect(throws: AppStoreVerificationError.self) { try TrustRoots.resolve(paths: ["/nonexistent/root.pem"]) }
    }

    @Test func openEnumerationsKeepUnknownValues() {
        #expect(NotificationType(rawValue: "SUBSCRIBED").isKnown)
        #expect(!NotificationType(rawValue: "SOMETHING_NEW").isKnown)
        #expect(NotificationType.documented.count == 23)
        #expect(AppStoreEnvironment(configurationName: "localtesting") == .localTesting)
        #expect(AppStoreEnvironment(configurationName: "Staging") == nil)
    }
}
