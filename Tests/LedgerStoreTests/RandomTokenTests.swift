import Crypto
import Foundation
import LedgerStore
import Testing

@Suite struct RandomTokenTests {
    @Test func aDerivedIdentifierIsTheSameForTheSamePartsAndShapedLikeARandomOne() {
        let derived = RandomToken.identifier(prefix: "grant_", derivedFrom: ["grant", "app", "user", "key"])
        #expect(derived == RandomToken.identifier(prefix: "grant_", derivedFrom: ["grant", "app", "user", "key"]))
        #expect(derived.count == RandomToken.identifier(prefix: "grant_").count)
        #expect(derived.dropFirst(6).allSatisfy { "0123456789abcdef".contains($0) })
        // SHA-256 of each part prefixed by its length (4 bytes, big-endian), its first 12 bytes in hex.
        let bytes: [UInt8] = ["grant", "app", "user", "key"].flatMap { [0, 0, 0, UInt8($0.utf8.count)] + Array($0.utf8) }
        #expect(derived == "grant_" + SHA256.hash(data: bytes).prefix(12).map { String(format: "%02x", $0) }.joined())
    }

    @Test func partsAreNotConfusedWhereTheyMeet() {
        let ids = [["ab", "c"], ["a", "bc"], ["abc"], ["abc", ""], ["", "abc"]].map { RandomToken.identifier(prefix: "", derivedFrom: $0) }
        #expect(Set(ids).count == ids.count)
    }
}
