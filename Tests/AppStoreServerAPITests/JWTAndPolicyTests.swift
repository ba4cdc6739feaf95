import AppStoreServerAPI
import AppStoreSync
import Crypto
import Foundation
import Testing
import UTCTime

/// The pure parts of the client: the token, the retry decision, the settings file, the reconciliation schedule.
@Suite struct AppStoreJWTTests {
    static let privateKey = P256.Signing.PrivateKey()
    static let key = AppStoreAPIKey(
        keyID: "2X9R4HXF34", issuerID: "57246542-96fe-1a63-e053-0824d011072a", bundleID: "com.example.app",
        privateKey: privateKey)

    @Test func theTokenCarriesAppleClaimsAndVerifiesWithThePublicKey() throws {
        let issued = Instant(microsecondsSinceEpoch: 1_767_225_600_750_000)
        let token = try AppStoreJWT.token(for: Self.key, issuedAt: issued)
        let (header, claims) = try #require(AppStoreJWT.verified(token, publicKey: Self.key.publicKey))
        #expect(header == AppStoreJWT.Header(alg: "ES256", kid: "2X9R4HXF34", typ: "JWT"))
        #expect(
            claims
                == AppStoreJWT.Claims(
                    iss: "57246542-96fe-1a63-e053-0824d011072a", iat: 1_767_225_600, exp: 1_767_225_900,
                    aud: "appstoreconnect-v1", bid: "com.example.app"))
        // Another key's public half does not verify it, nor does a token with one changed claim.
        #expect(AppStoreJWT.verified(token, publicKey: P256.Signing.PrivateKey().publicKey) == nil)
        let parts = token.split(separator: ".").map(String.init)
        let forged = try AppStoreJWT.token(
            for: AppStoreAPIKey(
                keyID: "2X9R4HXF34", issuerID: "x", bundleID: "com.other",
                privateKey: P256.Signing.PrivateKey()), issuedAt: issued)
        let spliced = [parts[0], forged.split(separator: ".").map(String.init)[1], parts[2]].joined(separator: ".")
        #expect(AppStoreJWT.verified(spliced, publicKey: Self.key.publicKey) == nil)
    }

    @Test func theHeaderIsExactlyWhatAppleDocuments() throws {
        let token = try AppStoreJWT.token(for: Self.key, issuedAt: Instant(secondsSinceEpoch: 0))
        var text = String(token.split(separator: ".")[0])
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let header = try #require(Data(base64Encoded: text))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","kid":"2X9R4HXF34","typ":"JWT"}"#)
    }

    @Test func aKeyDescriptionNeverShowsThePrivateKey() throws {
        let pem = Self.privateKey.pemRepresentation
        let loaded = try AppStoreAPIKey(keyID: "K", issuerID: "I", bundleID: "B", pkcs8PEM: pem)
        #expect(loaded.publicKey.rawRepresentation == Self.key.publicKey.rawRepresentation)
        #expect(!"\(loaded)".contains("PRIVATE") && "\(loaded)".contains("hidden"))
        #expect(throws: AppStoreAPIKeyError.self) { try AppStoreAPIKey(keyID: "K", issuerID: "I", bundleID: "B", pkcs8PEM: "not a key") }
    }
}

@Suite struct AppStoreRetryPolicyTests {
    let policy = AppStoreRetryPolicy(maximumAttempts: 4, base: .seconds(1), maximumBackoff: .seconds(5), maximumRetryAfter: .seconds(60))

    @Test func tooManyRequestsWaitsWhatRetryAfterSaysWithinTheBound() {
        let limited = AppStoreServerAPIError.rejected(status: 429, errorCode: 4_290_000, errorMessage: nil)
        #expect(policy.decision(attempt: 1, error: limited, retryAfter: "3", random: 0.9) == .retry(after: .seconds(3)))
        #expect(policy.decision(attempt: 1, error: limited, retryAfter: "86400", random: 0.9) == .retry(after: .seconds(60)))
        // No usable Retry-After: the backoff applies.
        #expect(policy.decision(attempt: 2, error: limited, retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT", random: 1) == .retry(after: .seconds(2)))
    }

    @Test func retryableCodesAndServerErrorsBackOffExponentiallyWithJitterUpToTheCap() {
        for code in [4_040_002, 4_040_004, 4_040_006, 5_000_001] {
            let error = AppStoreServerAPIError.rejected(status: code / 10_000, errorCode: code, errorMessage: nil)
            #expect(policy.decision(attempt: 1, error: error, retryAfter: nil, random: 1) == .retry(after: .seconds(1)))
        }
        let unavailable = AppStoreServerAPIError.rejected(status: 503, errorCode: nil, errorMessage: nil)
        #expect(policy.decision(attempt: 2, error: unavailable, retryAfter: nil, random: 1) == .retry(after: .seconds(2)))
        #expect(policy.decision(attempt: 3, error: unavailable, retryAfter: nil, random: 1) == .retry(after: .seconds(4)))
        #expect(policy.decision(attempt: 3, error: unavailable, retryAfter: nil, random: 0.5) == .retry(after: .seconds(2)))
        #expect(policy.decision(attempt: 3, error: unavailable, retryAfter: nil, random: 0) == .retry(after: .zero))
        let capped = AppStoreRetryPolicy(maximumAttempts: 40, base: .seconds(1), maximumBackoff: .seconds(5))
        #expect(capped.decision(attempt: 30, error: unavailable, retryAfter: nil, random: 1) == .retry(after: .seconds(5)))
        #expect(policy.decision(attempt: 1, error: .transport("refused"), retryAfter: nil, random: 1) == .retry(after: .seconds(1)))
    }

    @Test func clientErrorsFailAtOnceAndAttemptsAreBounded() {
        let notFound = AppStoreServerAPIError.rejected(status: 404, errorCode: 4_040_010, errorMessage: "Transaction id not found.")
        #expect(policy.decision(attempt: 1, error: notFound, retryAfter: nil, random: 1) == .giveUp)
        #expect(policy.decision(attempt: 1, error: .rejected(status: 401, errorCode: nil, errorMessage: nil), retryAfter: nil, random: 1) == .giveUp)
        #expect(policy.decision(attempt: 1, error: .malformedResponse("x"), retryAfter: nil, random: 1) == .giveUp)
        let unavailable = AppStoreServerAPIError.rejected(status: 500, errorCode: 5_000_001, errorMessage: nil)
        #expect(policy.decision(attempt: 3, error: unavailable, retryAfter: nil, random: 1) != .giveUp)
        #expect(policy.decision(attempt: 4, error: unavailable, retryAfter: nil, random: 1) == .giveUp)
        #expect(notFound.code == 4_040_010 && notFound.description.contains("4040010"))
        #expect(AppStoreServerAPIError.rejected(status: 401, errorCode: nil, errorMessage: nil).description.contains("key_id"))
    }
}

@Suite struct AppStoreAPISettingsTests {
    func parse(_ json: String) throws(AppStoreAPIKeyError) -> AppStoreAPISettings { try AppStoreAPISettings.parse(Data(json.utf8)) }

    @Test func aCompleteFileIsRead() throws {
        let settings = try parse(
            """
            {"apps": {"app_1": {"key_id": "K1", "issuer_id": "I1", "private_key_file": "/keys/AuthKey_K1.p8", "environment": "sandbox",
              "consumption_information": {"opted_in": true, "sample_content_provided": true}},
             "app_2": {"key_id": "K2", "issuer_id": "I2", "private_key_env": "KEY2", "environment": "production",
              "base_url": "http://127.0.0.1:9000/"}}}
            """)
        let one = try #require(settings.apps["app_1"])
        #expect(one.privateKey == .file("/keys/AuthKey_K1.p8") && one.baseURL == "https://api.storekit-sandbox.itunes.apple.com")
        #expect(one.consumption == AppStoreAPISettings.ConsumptionSettings(optedIn: true, sampleContentProvided: true))
        let two = try #require(settings.apps["app_2"])
        #expect(two.privateKey == .environment("KEY2") && two.baseURL == "http://127.0.0.1:9000" && two.environment == .production)
        #expect(!two.consumption.optedIn)
    }

    @Test(arguments: [
        (#"{"apps": {"a": {"key_id": "K", "issuer_id": "I", "environment": "sandbox"}}}"#, "exactly one of private_key_file"),
        (#"{"apps": {"a": {"key_id": "K", "issuer_id": "I", "private_key_env": "V", "environment": "prod"}}}"#, "\"production\" or \"sandbox\""),
        (
            #"{"apps": {"a": {"key_id": "K", "issuer_id": "I", "private_key_env": "V", "environment": "sandbox", "private_key": "x"}}}"#,
            "unknown member \"private_key\""
        ),
        (#"{"apps": {"a": {"issuer_id": "I", "private_key_env": "V", "environment": "sandbox"}}}"#, "apps.a.key_id"),
        (
            #"{"apps": {"a": {"key_id": "K", "issuer_id": "I", "private_key_env": "V", "environment": "sandbox", "#
                + #""base_url": "http://example.com"}}}"#,
            "must be https"
        ),
        // The retired V1 body's members say what replaced them.
        (
            #"{"apps": {"a": {"key_id": "K", "issuer_id": "I", "private_key_env": "V", "environment": "sandbox", "#
                + #""consumption_information": {"opted_in": true, "customer_consented": true}}}}"#,
            "customer_consented belonged to the retired V1 consumption body; remove it: consent is now recorded per user"
        ),
        (
            #"{"apps": {"a": {"key_id": "K", "issuer_id": "I", "private_key_env": "V", "environment": "sandbox", "#
                + #""consumption_information": {"refund_preference": 2}}}}"#,
            "the refund preference now comes from the app's refund_policy"
        ),
        (
            #"{"apps": {"a": {"key_id": "K", "issuer_id": "I", "private_key_env": "V", "environment": "sandbox", "#
                + #""consumption_information": {"opted_in": true, "sample_content": true}}}}"#,
            "unknown member \"sample_content\""
        ),
        (
            #"{"apps": {"a": {"key_id": "K", "issuer_id": "I", "private_key_env": "V", "environment": "sandbox", "#
                + #""consumption_information": {"opted_in": 1}}}}"#,
            "opted_in must be true or false"
        ),
        (#"{"applications": {}}"#, "unknown member \"applications\""),
        ("[]", "must be a JSON object")
    ])
    func aBadFileSaysWhatToFix(json: String, expected: String) {
        #expect {
            try parse(json)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func thePrivateKeyIsReadFromTheEnvironmentOrAFileAndItsAbsenceIsExplained() throws {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let fromEnv = AppStoreAPISettings.AppSettings(keyID: "K", issuerID: "I", privateKey: .environment("APPSTORE_KEY"), environment: .sandbox)
        #expect(try fromEnv.key(bundleID: "com.b", environment: ["APPSTORE_KEY": pem]).bundleID == "com.b")
        #expect { try fromEnv.key(bundleID: "com.b", environment: [:]) } throws: { "\($0)".contains("APPSTORE_KEY") }
        let missing = AppStoreAPISettings.AppSettings(
            keyID: "K", issuerID: "I", privateKey: .file("/nonexistent/AuthKey_K.p8"),
            environment: .sandbox)
        #expect { try missing.key(bundleID: "com.b") } throws: { "\($0)".contains("/nonexistent/AuthKey_K.p8 cannot be read") }
    }
}

@Suite struct ReconcileScheduleTests {
    let schedule = ReconcileSchedule()
    let now = Instant(secondsSinceEpoch: 1_780_000_000)

    @Test func aRunIsDueOnceADay() {
        #expect(schedule.isDue(lastStartedAt: nil, now: now))
        #expect(!schedule.isDue(lastStartedAt: now.adding(.seconds(-3_600)), now: now))
        #expect(!schedule.isDue(lastStartedAt: now.adding(.seconds(-86_399)), now: now))
        #expect(schedule.isDue(lastStartedAt: now.adding(.seconds(-86_400)), now: now))
        #expect(schedule.dueIfStartedBefore(now: now) == now.adding(.seconds(-86_400)))
        // A failed run is tried again an hour later, not the next day.
        #expect(!schedule.isDue(lastStartedAt: now.adding(.seconds(-3_599)), lastFailed: true, now: now))
        #expect(schedule.isDue(lastStartedAt: now.adding(.seconds(-3_600)), lastFailed: true, now: now))
        #expect(schedule.failedDueIfStartedBefore(now: now) == now.adding(.seconds(-3_600)))
    }

    @Test func aRunCoversSinceTheLastSuccessWithOverlapWithinApplesLimit() {
        #expect(schedule.periodStart(lastSuccessStartedAt: nil, now: now) == now.adding(.seconds(-7 * 86_400)))
        #expect(schedule.periodStart(lastSuccessStartedAt: now.adding(.seconds(-86_400)), now: now) == now.adding(.seconds(-2 * 86_400)))
        // Down for a year: as far back as Apple keeps.
        #expect(
            schedule.periodStart(lastSuccessStartedAt: now.adding(.seconds(-365 * 86_400)), now: now)
                == now.adding(.seconds(-180 * 86_400 + 60)))
    }

    @Test func reconcilingFromBeforeApplesLimitIsRefusedClearly() {
        #expect { try AppStoreReconciliation.check(since: now.adding(.seconds(-181 * 86_400)), now: now) } throws: {
            "\($0)".contains("within the last 180 days")
        }
        #expect(throws: Never.self) { try AppStoreReconciliation.check(since: now.adding(.seconds(-179 * 86_400)), now: now) }
    }
}
