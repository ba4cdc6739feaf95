import AppStoreSamples
import AppStoreVerification
import Foundation
import Testing

@Suite struct VerifierSetTests {
    @Test func theClaimedEnvironmentPicksTheVerifierAndUnacceptedOnesAreRefused() async throws {
        let signer = try AppStoreTestSigner()
        let roots = TrustRoots(certificates: signer.roots)
        let live = AppStoreVerifierSet(bundleId: "com.example.app", appAppleId: 1234, environments: [.production, .sandbox], roots: roots)
        let sandbox = try signer.sign(AppStorePayloads.transaction(id: "1", original: "1", environment: "Sandbox"))
        let production = try signer.sign(AppStorePayloads.transaction(id: "2", original: "2", environment: "Production"))
        let xcode = try signer.sign(AppStorePayloads.transaction(id: "3", original: "3", environment: "Xcode"))
        #expect(try await live.verifyTransaction(sandbox).environment == .sandbox)
        #expect(try await live.verifyTransaction(production).environment == .production)
        await #expect(throws: AppStoreVerificationError.self) { try await live.verifyTransaction(xcode) }
        do {
            _ = try await live.verifyTransaction(xcode)
        } catch {
            #expect(error.code == .wrongEnvironment)
            #expect(error.message.contains("allow_xcode"))
        }
        // Unreadable data still gets the verifier's own diagnosis.
        do {
            _ = try await live.verifyTransaction("not a jws")
        } catch {
            #expect(error.code == .malformed)
        }
        // A forged payload claiming an accepted environment is still checked by that environment's verifier.
        do {
            _ = try await live.verifyTransaction(JWSSigner.tamper(sandbox, segment: 1))
            Issue.record("a tampered transaction was accepted")
        } catch {
            #expect(error.code == .invalidSignature)
        }
    }
}
