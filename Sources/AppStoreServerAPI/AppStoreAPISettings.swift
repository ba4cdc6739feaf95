import Foundation

/// Each app's App Store Server API settings, from the JSON file named by `LEDGER_APPSTORE_API_CONFIG` (or `--config`):
///
///     {"apps": {"<ledger app id>": {
///         "key_id": "2X9R4HXF34",                         // the In-App Purchase key's id (App Store Connect)
///         "issuer_id": "57246542-96fe-1a63-e053-0824d011072a",
///         "private_key_file": "/etc/ledger/AuthKey_2X9R4HXF34.p8",   // or "private_key_env": "APPSTORE_KEY_NOTES"
///         "environment": "production",                    // or "sandbox"
///         "base_url": "https://…",                        // optional: replaces Apple's host of that environment
///         "consumption_information": {"opted_in": true, "sample_content_provided": false}   // optional
///     }}}
///
/// The bundle id and the app's Apple id are the app's record in the ledger. The private key itself is never in this
/// file, nor in PostgreSQL, nor in logs: only where to read it.
package struct AppStoreAPISettings: Sendable, Equatable {
    package var apps: [String: AppSettings]

    package init(apps: [String: AppSettings] = [:]) { self.apps = apps }

    package enum PrivateKeySource: Sendable, Equatable {
        case file(String)
        case environment(String)
    }

    /// Answers to `CONSUMPTION_REQUEST`: considered only when `optedIn`, and sent only for users who recorded their consent
    /// (the ledger's `user.consumption_consent_recorded`); the refund preference is the app's `refund_policy` in the
    /// ledger. `sampleContentProvided` says whether the app offers a free sample or trial before purchase.
    package struct ConsumptionSettings: Sendable, Equatable {
        package var optedIn: Bool
        package var sampleContentProvided: Bool

        package init(optedIn: Bool = false, sampleContentProvided: Bool = false) {
            self.optedIn = optedIn
            self.sampleContentProvided = sampleContentProvided
        }
    }

    /// Members of `consumption_information` for the retired V1 body, refused with what replaced them (silently ignoring
    /// them would let an operator believe, say, that `refund_preference` still applies).
    static let retiredConsumptionMembers: [String: String] = [
        "customer_consented": "consent is now recorded per user (POST /v1/users/{user_id}/consumption-consent, or the SDK)",
        "refund_preference": "the refund preference now comes from the app's refund_policy (POST /v1/admin/apps, "
            + "PUT /v1/admin/apps/{app_id}/refund-policy)",
        "account_tenure": "Apple's v2 body has no such field", "play_time": "Apple's v2 body has no such field",
        "lifetime_dollars_refunded": "Apple's v2 body has no such field", "lifetime_dollars_purchased": "Apple's v2 body has no such field",
        "user_status": "Apple's v2 body has no such field"
    ]

    package struct AppSettings: Sendable, Equatable {
        package var keyID: String
        package var issuerID: String
        package var privateKey: PrivateKeySource
        package var environment: AppStoreServerAPIClient.Environment
        package var baseURL: String
        package var consumption: ConsumptionSettings

        package init(
            keyID: String, issuerID: String, privateKey: PrivateKeySource, environment: AppStoreServerAPIClient.Environment,
            baseURL: String? = nil, consumption: ConsumptionSettings = ConsumptionSettings()
        ) {
            self.keyID = keyID
            self.issuerID = issuerID
            self.privateKey = privateKey
            self.environment = environment
            self.baseURL = baseURL ?? environment.defaultBaseURL
            self.consumption = consumption
        }

        /// The app's key, its private key read now from the file or the environment variable.
        package func key(bundleID: String, environment variables: [String: String] = ProcessInfo.processInfo.environment)
            throws(AppStoreAPIKeyError) -> AppStoreAPIKey
        {
            let pem: String
            switch privateKey {
            case .file(let path):
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw AppStoreAPIKeyError("private_key_file \(path) cannot be read; give the path of the AuthKey_\(keyID).p8 file")
                }
                pem = String(decoding: data, as: UTF8.self)
            case .environment(let name):
                guard let value = variables[name], !value.isEmpty else {
                    throw AppStoreAPIKeyError(
                        "the environment variable \(name) (private_key_env) is not set; set it to the text of AuthKey_\(keyID).p8")
                }
                pem = value
            }
            return try AppStoreAPIKey(keyID: keyID, issuerID: issuerID, bundleID: bundleID, pkcs8PEM: pem)
        }
    }

    /// The settings in the file at `path`.
    package static func load(path: String) throws(AppStoreAPIKeyError) -> AppStoreAPISettings {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AppStoreAPIKeyError("the App Store API configuration \(path) cannot be read")
        }
        do throws(AppStoreAPIKeyError) {
            return try parse(data)
        } catch {
            throw AppStoreAPIKeyError("\(path): \(error.message)")
        }
    }

    /// The settings of `LEDGER_APPSTORE_API_CONFIG` (or `path` when given); none when neither names a file.
    package static func load(path: String?, environment: [String: String]) throws(AppStoreAPIKeyError) -> AppStoreAPISettings {
        guard let path = path ?? environment["LEDGER_APPSTORE_API_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return AppStoreAPISettings()
        }
        return try load(path: path)
    }

    /// Parses the file's JSON, refusing what it does not know (a misspelt member would otherwise be silently ignored).
    package static func parse(_ data: Data) throws(AppStoreAPIKeyError) -> AppStoreAPISettings {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw AppStoreAPIKeyError("the file must be a JSON object {\"apps\": {\"<app id>\": {…}}}")
        }
        try checkMembers(root, allowed: ["apps"], at: "the file")
        guard let apps = root["apps"] as? [String: Any] else { throw AppStoreAPIKeyError("`apps` must be an object of app id → settings") }
        for (appID, value) in apps {
            guard let object = value as? [String: Any] else { throw AppStoreAPIKeyError("apps.\(appID) must be an object") }
            try checkMembers(object, allowed: Set(AppModel.CodingKeys.allCases.map(\.rawValue)), at: "apps.\(appID)")
            if let c = object["consumption_information"] as? [String: Any] {
                let at = "apps.\(appID).consumption_information"
                if let retired = c.keys.sorted().first(where: { retiredConsumptionMembers[$0] != nil }) {
                    throw AppStoreAPIKeyError(
                        "\(at).\(retired) belonged to the retired V1 consumption body; remove it: "
                            + (retiredConsumptionMembers[retired] ?? ""))
                }
                try checkMembers(c, allowed: Set(ConsumptionModel.CodingKeys.allCases.map(\.rawValue)), at: at)
            }
        }
        let file: FileModel
        do {
            file = try JSONDecoder().decode(FileModel.self, from: data)
        } catch let DecodingError.typeMismatch(type, context) {
            let expected = type == Bool.self ? "true or false" : type == Int.self ? "a whole number" : "a \(type)"
            throw AppStoreAPIKeyError("\(Self.path(context.codingPath)) must be \(expected)")
        } catch {
            throw AppStoreAPIKeyError("the file is not a valid configuration: \(error)")
        }
        var settings = AppStoreAPISettings()
        for (appID, model) in file.apps {
            settings.apps[appID] = try app(model, at: "apps.\(appID)")
        }
        return settings
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    struct FileModel: Decodable { var apps: [String: AppModel] }

    struct AppModel: Decodable {
        var keyID: String?
        var issuerID: String?
        var privateKeyFile: String?
        var privateKeyEnv: String?
        var environment: String?
        var baseURL: String?
        var consumptionInformation: ConsumptionModel?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case keyID = "key_id"
            case issuerID = "issuer_id"
            case privateKeyFile = "private_key_file"
            case privateKeyEnv = "private_key_env"
            case environment
            case baseURL = "base_url"
            case consumptionInformation = "consumption_information"
        }
    }

    struct ConsumptionModel: Decodable {
        var optedIn: Bool?
        var sampleContentProvided: Bool?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case optedIn = "opted_in"
            case sampleContentProvided = "sample_content_provided"
        }
    }

    static func app(_ o: AppModel, at path: String) throws(AppStoreAPIKeyError) -> AppSettings {
        func required(_ value: String?, _ name: String) throws(AppStoreAPIKeyError) -> String {
            guard let value, !value.isEmpty else { throw AppStoreAPIKeyError("\(path).\(name) must be a non-empty string") }
            return value
        }
        let keyID = try required(o.keyID, "key_id")
        let issuerID = try required(o.issuerID, "issuer_id")
        let key: PrivateKeySource
        switch (o.privateKeyFile, o.privateKeyEnv) {
        case (let file?, nil) where !file.isEmpty: key = .file(file)
        case (nil, let variable?) where !variable.isEmpty: key = .environment(variable)
        default:
            throw AppStoreAPIKeyError(
                "\(path) needs exactly one of private_key_file (the .p8 file's path) and private_key_env (a variable holding its text)")
        }
        let environmentName = try required(o.environment, "environment")
        guard let environment = AppStoreServerAPIClient.Environment(rawValue: environmentName.lowercased()) else {
            throw AppStoreAPIKeyError("\(path).environment must be \"production\" or \"sandbox\", not \"\(environmentName)\"")
        }
        var baseURL: String?
        if let text = o.baseURL {
            do throws(AppStoreAPIKeyError) {
                baseURL = try AppStoreServerAPIClient.checkedBaseURL(text)
            } catch {
                throw AppStoreAPIKeyError("\(path).\(error.message)")
            }
        }
        let consumption =
            o.consumptionInformation.map {
                ConsumptionSettings(optedIn: $0.optedIn ?? false, sampleContentProvided: $0.sampleContentProvided ?? false)
            } ?? ConsumptionSettings()
        return AppSettings(
            keyID: keyID, issuerID: issuerID, privateKey: key, environment: environment, baseURL: baseURL,
            consumption: consumption)
    }

    static func checkMembers(_ o: [String: Any], allowed: Set<String>, at path: String) throws(AppStoreAPIKeyError) {
        if let unknown = o.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw AppStoreAPIKeyError("\(path) has an unknown member \"\(unknown)\"; known: \(allowed.sorted().joined(separator: ", "))")
        }
    }
}
