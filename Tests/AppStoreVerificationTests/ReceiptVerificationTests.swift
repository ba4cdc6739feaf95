import AppStoreSamples
import Foundation
import Testing
import X509
@testable import AppStoreVerification

/// Legacy receipts: PKCS#7 in DER and BER, signature and chain verification, field decoding, input mistakes.
@Suite struct ReceiptVerificationTests {
    let pki: TestPKI
    let verifier: AppStoreVerifier

    init() throws {
        var options = TestPKI.Options()
        options.rsaLeaf = true
        pki = try TestPKI(options)
        verifier = Self.verifier(roots: [pki.root])
    }

    static func verifier(roots: [Certificate], environment: AppStoreEnvironment = .sandbox) -> AppStoreVerifier {
        AppStoreVerifier(
            configuration: AppConfiguration(bundleId: "com.example.app", environment: environment),
            roots: TrustRoots(certificates: roots)
        )
    }

    func receipt(
        _ payload: [UInt8] = ReceiptBuilder.payload(inApp: [ReceiptBuilder.purchase()]),
        options: ReceiptBuilder.Options = .init()
    ) throws -> [UInt8] {
        try ReceiptBuilder.sign(payload, signer: pki.leaf, key: pki.leafKey, chain: pki.chain, options: options)
    }

    func expectError(_ code: AppStoreVerificationError.Code, _ body: () async throws(AppStoreVerificationError) -> Void) async -> String {
        do throws(AppStoreVerificationError) {
            try await body()
            Issue.record("expected \(code), got success")
        } catch {
            #expect(error.code == code, "\(error)")
            return error.message
        }
        return ""
    }

    @Test(arguments: [(false, false, false), (true, false, false), (false, true, false), (true, true, true)])
    func acceptsDERAndBERReceipts(ber: Bool, signedAttributes: Bool, sha1: Bool) async throws {
        let bytes = try receipt(options: .init(ber: ber, signedAttributes: signedAttributes, digestSHA1: sha1))
        let decoded = try await verifier.verifyReceipt(base64: Data(bytes).base64EncodedString(options: .lineLength64Characters))
        #expect(decoded.receiptType == "ProductionSandbox")
        #expect(decoded.bundleId == "com.example.app")
        #expect(decoded.applicationVersion == "42")
        #expect(decoded.originalApplicationVersion == "1.0")
        #expect(decoded.receiptCreationDateMs == 1_740_830_400_000)
        #expect(decoded.expirationDate == nil)
        let purchase = try #require(decoded.inAppPurchases.first)
        #expect(purchase.quantity == 1)
        #expect(purchase.productId == "com.example.monthly")
        #expect(purchase.transactionId == "70000000000001")
        #expect(purchase.originalTransactionId == "70000000000000")
        #expect(purchase.purchaseDateMs == 1_738_402_200_000)
        #expect(purchase.originalPurchaseDateMs == 1_735_723_800_250)
        #expect(purchase.expiresDate == "2025-03-01T09:30:00Z")
        #expect(purchase.webOrderLineItemId == 12345)
        #expect(purchase.cancellationDate == nil)
        #expect(purchase.isInIntroOfferPeriod == true)
        #expect(purchase.unknownAttributes == [ReceiptAttribute(type: 1799, version: 1, value: "3q0=")])
    }

    @Test func rejectsAlteredContentAndSignature() async throws {
        let bytes = try receipt()
        let index = try #require(bytes.firstIndex(of: UInt8(ascii: "4")))  // inside app version "42"
        var altered = bytes
        altered[index] ^= 0x01
        _ = await expectError(.invalidSignature) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyReceipt(der: altered) }
        var badSignature = bytes
        badSignature[bytes.count - 10] ^= 0x01
        _ = await expectError(.invalidSignature) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyReceipt(der: badSignature) }
        let attributes = try receipt(options: .init(signedAttributes: true))
        var alteredWithAttributes = attributes
        alteredWithAttributes[try #require(attributes.firstIndex(of: UInt8(ascii: "4")))] ^= 0x01
        _ = await expectError(.invalidSignature) { () throws(AppStoreVerificationError) in
            _ = try await verifier.verifyReceipt(der: alteredWithAttributes)
        }
    }

    @Test func rejectsUntrustedAndNonAppleChains() async throws {
        let foreignVerifier = Self.verifier(roots: [try TestPKI(name: "Other").root])
        let genuine = try receipt()
        _ = await expectError(.untrustedChain) { () throws(AppStoreVerificationError) in _ = try await foreignVerifier.verifyReceipt(der: genuine) }
        let twoEmbedded = try receipt(options: .init(certificates: [pki.leaf, pki.intermediate]))
        _ = await expectError(.untrustedChain) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyReceipt(der: twoEmbedded) }
        var options = TestPKI.Options()
        options.rsaLeaf = true
        options.leafOID = false
        let noOID = try TestPKI(options)
        let bytes = try ReceiptBuilder.sign(ReceiptBuilder.payload(), signer: noOID.leaf, key: noOID.leafKey, chain: noOID.chain)
        _ = await expectError(.missingAppleOID) { () throws(AppStoreVerificationError) in
            _ = try await Self.verifier(roots: [noOID.root]).verifyReceipt(der: bytes)
        }
    }

    @Test func checksChainAtCreationDate() async throws {
        var options = TestPKI.Options()
        options.rsaLeaf = true
        options.leafValidity = Date(timeIntervalSince1970: 1_700_000_000)...Date(timeIntervalSince1970: 1_710_000_000)
        let shortLived = try TestPKI(options)
        let bytes = try ReceiptBuilder.sign(ReceiptBuilder.payload(), signer: shortLived.leaf, key: shortLived.leafKey, chain: shortLived.chain)
        _ = await expectError(.certificateExpired) { () throws(AppStoreVerificationError) in
            _ = try await Self.verifier(roots: [shortLived.root]).verifyReceipt(der: bytes)
        }
    }

    @Test func rejectsOtherAppsAndEnvironments() async throws {
        let other = try receipt(ReceiptBuilder.payload(bundleId: "com.other"))
        _ = await expectError(.wrongBundleId) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyReceipt(der: other) }
        let production = try receipt(ReceiptBuilder.payload(type: "Production"))
        _ = await expectError(.wrongEnvironment) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyReceipt(der: production) }
        let unknownType = try receipt(ReceiptBuilder.payload(type: "ProductionInternal"))
        _ = await expectError(.wrongEnvironment) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyReceipt(der: unknownType) }
    }

    @Test func acceptsXcodeReceiptsOnlyForXcode() async throws {
        let (certificate, key) = try TestPKI.selfSigned(rsa: true)
        let bytes = try ReceiptBuilder.sign(
            ReceiptBuilder.payload(type: "Xcode"), signer: certificate, key: key, chain: [certificate], options: .init(ber: true)
        )
        let xcode = Self.verifier(roots: [], environment: .xcode)
        #expect(try await xcode.verifyReceipt(der: bytes).receiptType == "Xcode")
        _ = await expectError(.untrustedChain) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyReceipt(der: bytes) }
        var altered = bytes
        altered[try #require(bytes.firstIndex(of: UInt8(ascii: "4")))] ^= 0x01
        _ = await expectError(.invalidSignature) { () throws(AppStoreVerificationError) in _ = try await xcode.verifyReceipt(der: altered) }
    }

    @Test func explainsCommonInputMistakes() async throws {
        let bytes = try receipt()
        let base64 = Data(bytes).base64EncodedString()
        var messages: Set<String> = []
        for input in [
            "", "  \n", Data(base64.utf8).base64EncodedString(), "eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ.c2ln", "!!!not base64!!!",
            Data([1, 2, 3, 4, 5, 6, 7, 8, 9]).base64EncodedString()
        ] {
            messages.insert(
                await expectError(.malformed) { () throws(AppStoreVerificationError) in
                    _ = try await verifier.verifyReceipt(base64: input)
                })
        }
        #expect(messages.count == 5)  // both empty inputs share a message; every other mistake has its own
        #expect(messages.contains { $0.contains("base64-encoded twice") })
        #expect(messages.contains { $0.contains("is a JWS") })
        #expect(messages.contains { $0.contains("empty") })
        let trailing = bytes + [0, 0, 0, 0]
        _ = await expectError(.malformed) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyReceipt(der: trailing) }
    }

    @Test func parserKeepsUnknownAttributesAndRejectsBadValues() throws {
        let parsed = try ReceiptParser.parse(payload: ReceiptBuilder.payload(extra: [ReceiptBuilder.attribute(9999, [0xAB])]))
        #expect(parsed.unknownAttributes.contains(ReceiptAttribute(type: 9999, version: 1, value: "qw==")))
        #expect(parsed.opaqueValue == "AQIDBA==")
        #expect(throws: AppStoreVerificationError.self) {
            try ReceiptParser.parse(payload: ReceiptBuilder.set([ReceiptBuilder.attribute(12, ReceiptBuilder.ia5("yesterday"))]))
        }
        #expect(throws: AppStoreVerificationError.self) {
            try ReceiptParser.parse(payload: ReceiptBuilder.set([ReceiptBuilder.attribute(2, ReceiptBuilder.intValue(3))]))
        }
        #expect(throws: AppStoreVerificationError.self) { try ReceiptParser.parse(payload: [0x31, 0x05, 0x30]) }
    }
}
