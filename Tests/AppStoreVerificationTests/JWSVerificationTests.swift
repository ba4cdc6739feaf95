import AppStoreSamples
import ExactJSON
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509
@testable import AppStoreVerification

/// Every accept and reject path of signed data, against an in-process PKI.
@Suite struct JWSVerificationTests {
    static let bundleId = "com.example.app"
    static let signedDate = "1735689600000.25"  // 2025-01-01, fractional as Xcode writes it

    let pki: TestPKI
    let verifier: AppStoreVerifier

    init() throws {
        pki = try TestPKI()
        verifier = Self.verifier(roots: [pki.root])
    }

    static func verifier(roots: [Certificate], environment: AppStoreEnvironment = .sandbox, appAppleId: Int64? = nil) -> AppStoreVerifier {
        AppStoreVerifier(
            configuration: AppConfiguration(bundleId: bundleId, appAppleId: appAppleId, environment: environment),
            roots: TrustRoots(certificates: roots)
        )
    }

    static func transaction(bundleId: String = bundleId, environment: String = "Sandbox", signedDate: String = signedDate) -> String {
        """
        {"transactionId":"2000000001","originalTransactionId":"2000000000","bundleId":"\(bundleId)","productId":"monthly",\
        "purchaseDate":1697679936049.7297,"expiresDate":1700358336049,"type":"Auto-Renewable Subscription",\
        "offerType":9,"inAppOwnershipType":"PURCHASED","price":9223372036854775807,"currency":"USD",\
        "environment":"\(environment)","signedDate":\(signedDate),"brandNewField":{"nested":[1,2.50]}}
        """
    }

    func expectError(_ code: AppStoreVerificationError.Code, _ body: () async throws(AppStoreVerificationError) -> Void) async {
        do throws(AppStoreVerificationError) {
            try await body()
            Issue.record("expected \(code), got success")
        } catch {
            #expect(error.code == code, "\(error)")
        }
    }

    @Test func acceptsValidTransactionAndKeepsEverything() async throws {
        let transaction = try await verifier.verifyTransaction(try JWSSigner.sign(Self.transaction(), pki: pki))
        #expect(transaction.transactionId == "2000000001")
        #expect(transaction.purchaseDate?.milliseconds == Decimal(string: "1697679936049.7297"))
        #expect(transaction.purchaseDate?.wholeMilliseconds == 1_697_679_936_049)
        #expect(transaction.price == Int64.max)
        #expect(transaction.type == .autoRenewableSubscription)
        #expect(transaction.offerType == OfferType(rawValue: 9))
        #expect(transaction.offerType?.isKnown == false)
        #expect(transaction.raw["brandNewField"] != nil)
        #expect(JWSVerificationTests.rawNumber(transaction.raw, "purchaseDate") == "1697679936049.7297")
    }

    static func rawNumber(_ value: JSONValue, _ key: String) -> String? {
        if case .number(let literal)? = value[key] { return literal }
        return nil
    }

    @Test func rejectsOtherAlgorithms() async throws {
        let jws = try JWSSigner.sign(Self.transaction(), pki: pki, alg: "RS256")
        await expectError(.unsupportedAlgorithm) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(jws) }
        let none = try JWSSigner.sign(Self.transaction(), pki: pki, alg: "none")
        await expectError(.unsupportedAlgorithm) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(none) }
    }

    @Test func rejectsAlteredPayloadAndSignature() async throws {
        let jws = try JWSSigner.sign(Self.transaction(), pki: pki)
        for position in [0, 17, 60, 150] {
            let payload = JWSSigner.tamper(jws, segment: 1, at: position)
            await expectError(.invalidSignature) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(payload) }
            let signature = JWSSigner.tamper(jws, segment: 2, at: position)
            await expectError(.invalidSignature) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(signature) }
        }
        // Changing only the unused low bits of the last base64url character must not pass as the same signature.
        var lastBitsChanged = jws
        let last = lastBitsChanged.removeLast()
        lastBitsChanged.append(last == "A" ? "B" : "A")
        await expectError(.invalidSignature) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(lastBitsChanged) }
    }

    @Test func rejectsForeignRootAndDamagedCertificates() async throws {
        let foreign = try TestPKI(name: "Foreign")
        let jws = try JWSSigner.sign(Self.transaction(), pki: foreign)
        await expectError(.untrustedChain) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(jws) }
        // Our leaf presented with a foreign intermediate.
        let mixed = try JWSSigner.sign(Self.transaction(), key: pki.leafKey, chain: [pki.leaf, foreign.intermediate, pki.root])
        await expectError(.untrustedChain) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(mixed) }
        let twoCerts = try JWSSigner.sign(Self.transaction(), key: pki.leafKey, chain: [pki.leaf, pki.intermediate])
        await expectError(.untrustedChain) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(twoCerts) }
    }

    @Test func rejectsMissingAppleOIDs() async throws {
        var options = TestPKI.Options()
        options.leafOID = false
        let noLeafOID = try TestPKI(options)
        let jws = try JWSSigner.sign(Self.transaction(), pki: noLeafOID)
        await expectError(.missingAppleOID) { () throws(AppStoreVerificationError) in
            _ = try await Self.verifier(roots: [noLeafOID.root]).verifyTransaction(jws)
        }
        options = TestPKI.Options()
        options.intermediateOID = false
        let noIntermediateOID = try TestPKI(options)
        let other = try JWSSigner.sign(Self.transaction(), pki: noIntermediateOID)
        await expectError(.missingAppleOID) { () throws(AppStoreVerificationError) in
            _ = try await Self.verifier(roots: [noIntermediateOID.root]).verifyTransaction(other)
        }
    }

    @Test func checksValidityAtSignedDateNotNow() async throws {
        var options = TestPKI.Options()
        options.leafValidity = Date(timeIntervalSince1970: 1_700_000_000)...Date(timeIntervalSince1970: 1_710_000_000)
        let shortLived = try TestPKI(options)
        let verifier = Self.verifier(roots: [shortLived.root])
        // Signed while the leaf was valid: accepted although the leaf has expired since.
        let inside = try JWSSigner.sign(Self.transaction(signedDate: "1705000000000"), pki: shortLived)
        _ = try await verifier.verifyTransaction(inside)
        let after = try JWSSigner.sign(Self.transaction(signedDate: "1715000000000"), pki: shortLived)
        await expectError(.certificateExpired) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(after) }
        let before = try JWSSigner.sign(Self.transaction(signedDate: "1690000000000"), pki: shortLived)
        await expectError(.certificateExpired) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(before) }
    }

    @Test func rejectsNonP256LeafKey() async throws {
        var options = TestPKI.Options()
        options.p384Leaf = true
        let p384 = try TestPKI(options)
        let jws = try JWSSigner.sign(Self.transaction(), pki: p384)
        await expectError(.invalidSignature) { () throws(AppStoreVerificationError) in
            _ = try await Self.verifier(roots: [p384.root]).verifyTransaction(jws)
        }
    }

    @Test func rejectsOtherAppsAndEnvironments() async throws {
        let otherBundle = try JWSSigner.sign(Self.transaction(bundleId: "com.other"), pki: pki)
        await expectError(.wrongBundleId) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(otherBundle) }
        let production = try JWSSigner.sign(Self.transaction(environment: "Production"), pki: pki)
        await expectError(.wrongEnvironment) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(production) }
        let notification = """
            {"notificationType":"TEST","notificationUUID":"u","signedDate":\(Self.signedDate),\
            "data":{"appAppleId":99,"bundleId":"\(Self.bundleId)","environment":"Production"}}
            """
        let signed = try JWSSigner.sign(notification, pki: pki)
        let productionVerifier = Self.verifier(roots: [pki.root], environment: .production, appAppleId: 1234)
        await expectError(.wrongAppAppleId) { () throws(AppStoreVerificationError) in _ = try await productionVerifier.verifyNotification(signed) }
        let matching = Self.verifier(roots: [pki.root], environment: .production, appAppleId: 99)
        #expect(try await matching.verifyNotification(signed).payload.notificationType == .test)
        // Sandbox does not check the app Apple id, as Apple's library.
        await expectError(.wrongEnvironment) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyNotification(signed) }
    }

    @Test func rejectsMalformedInput() async throws {
        for text in ["", "a.b", "a.b.c.d", "not a jws", "e30.e30.AAAA", "eyJhbGciOiJFUzI1NiJ9.e30.AAAA"] {
            await expectError(text == "e30.e30.AAAA" ? .unsupportedAlgorithm : .malformed) { () throws(AppStoreVerificationError) in
                _ = try await verifier.verifyTransaction(text)
            }
        }
        let wrongType = try JWSSigner.sign(#"{"bundleId":"com.example.app","environment":"Sandbox","price":"9.99"}"#, pki: pki)
        await expectError(.malformed) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(wrongType) }
        let notJSON = try JWSSigner.sign("not json", pki: pki)
        await expectError(.malformed) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(notJSON) }
    }

    @Test func verifiesNestedSignedDataOfNotifications() async throws {
        let transaction = try JWSSigner.sign(Self.transaction(), pki: pki)
        let renewal = try JWSSigner.sign(#"{"environment":"Sandbox","autoRenewStatus":7,"renewalPrice":12990,"signedDate":1735689600000}"#, pki: pki)
        func notification(_ signedTransaction: String) -> String {
            """
            {"notificationType":"DID_RENEW","subtype":"BRAND_NEW_SUBTYPE","notificationUUID":"n-1","version":"2.0",\
            "signedDate":\(Self.signedDate),"data":{"bundleId":"\(Self.bundleId)","environment":"Sandbox","status":1,\
            "signedTransactionInfo":"\(signedTransaction)","signedRenewalInfo":"\(renewal)"}}
            """
        }
        let verified = try await verifier.verifyNotification(try JWSSigner.sign(notification(transaction), pki: pki))
        #expect(verified.payload.notificationType == .didRenew)
        #expect(verified.payload.subtype?.rawValue == "BRAND_NEW_SUBTYPE")
        #expect(verified.payload.subtype?.isKnown == false)
        #expect(verified.transaction?.transactionId == "2000000001")
        #expect(verified.renewalInfo?.autoRenewStatus?.rawValue == 7)
        #expect(verified.renewalInfo?.renewalPrice == 12990)
        let forged = try JWSSigner.sign(notification(JWSSigner.tamper(transaction, segment: 1)), pki: pki)
        do throws(AppStoreVerificationError) {
            _ = try await verifier.verifyNotification(forged)
            Issue.record("a forged nested transaction was accepted")
        } catch {
            #expect(error.code == .invalidSignature)
            #expect(error.message.hasPrefix("data.signedTransactionInfo"))
        }
    }

    @Test func acceptsSelfSignedDataOnlyForLocalEnvironments() async throws {
        let (certificate, key) = try TestPKI.selfSigned(rsa: false)
        let jws = try JWSSigner.sign(Self.transaction(environment: "Xcode"), key: key, chain: [certificate])
        let xcode = Self.verifier(roots: [], environment: .xcode)
        #expect(try await xcode.verifyTransaction(jws).environment == .xcode)
        await expectError(.untrustedChain) { () throws(AppStoreVerificationError) in _ = try await verifier.verifyTransaction(jws) }
        await expectError(.invalidSignature) { () throws(AppStoreVerificationError) in
            _ = try await xcode.verifyTransaction(JWSSigner.tamper(jws, segment: 1))
        }
        await expectError(.wrongEnvironment) { () throws(AppStoreVerificationError) in
            _ = try await Self.verifier(roots: [], environment: .localTesting).verifyTransaction(jws)
        }
        // Another key's signature with this certificate: the certificate is intact, the signature is not.
        let otherKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let resigned = try JWSSigner.sign(Self.transaction(environment: "Xcode"), key: otherKey, chain: [certificate])
        await expectError(.invalidSignature) { () throws(AppStoreVerificationError) in _ = try await xcode.verifyTransaction(resigned) }
    }

    @Test func appTransactionsUseReceiptCreationDate() async throws {
        let payload =
            #"{"bundleId":"com.example.app","receiptType":"Sandbox","receiptCreationDate":1735689600000,"appAppleId":5,"#
            + #""originalPurchaseDate":-62135769600000}"#
        let appTransaction = try await verifier.verifyAppTransaction(try JWSSigner.sign(payload, pki: pki))
        #expect(appTransaction.receiptType == .sandbox)
        #expect(appTransaction.originalPurchaseDate?.wholeMilliseconds == -62_135_769_600_000)
    }

    @Test func cachesVerifiedChains() async throws {
        let cache = ChainCache(capacity: 2)
        let chain = ChainVerifier(roots: [pki.root], cache: cache)
        let when = Date(timeIntervalSince1970: 1_735_689_600)
        try await chain.verify(leaf: pki.leaf, intermediate: pki.intermediate, at: when)
        try await chain.verify(leaf: pki.leaf, intermediate: pki.intermediate, at: when)
        #expect(cache.count == 1)
        #expect(cache.contains(.init(leaf: pki.leaf, intermediate: pki.intermediate), validAt: when))
        // A hit never covers a time outside the chain's validity.
        #expect(!cache.contains(.init(leaf: pki.leaf, intermediate: pki.intermediate), validAt: Date(timeIntervalSince1970: 2_200_000_000)))
        for name in ["A", "B", "C"] {
            let other = try TestPKI(name: name)
            try await ChainVerifier(roots: [other.root], cache: cache).verify(leaf: other.leaf, intermediate: other.intermediate, at: when)
        }
        #expect(cache.count == 2)
        #expect(!cache.contains(.init(leaf: pki.leaf, intermediate: pki.intermediate), validAt: when))
    }

    @Test func parsesEachCertificateOnceAndKeepsOnlyABoundedNumber() throws {
        let cache = CertificateCache(capacity: 2)
        func base64(_ certificate: Certificate) throws -> String {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return Data(serializer.serializedBytes).base64EncodedString()
        }
        let leaf = try base64(pki.leaf)
        #expect(cache.certificate(leaf) == pki.leaf)
        #expect(cache.certificate(leaf) == pki.leaf)
        #expect(cache.count == 1)
        #expect(cache.certificate("not a certificate") == nil)
        #expect(cache.certificate(Data([0x30, 0x03, 0x02, 0x01, 0x01]).base64EncodedString()) == nil)
        #expect(cache.count == 1, "only certificates that parsed are kept")
        _ = cache.certificate(try base64(pki.intermediate))
        _ = cache.certificate(try base64(pki.root))
        #expect(cache.count <= 2)
        #expect(cache.certificate(leaf) == pki.leaf, "parsed again after it was dropped")
    }
}
