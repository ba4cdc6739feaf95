import LedgerServer

extension SyncWorld {
    /// The API on the world's database, with the world's master key.
    func makeAPI(_ configuration: LedgerAPI.Configuration) async throws -> LedgerAPI {
        var configuration = configuration
        configuration.masterKey = Self.masterKey
        return try await LedgerAPI.make(pool: pool, configuration: configuration, logger: logger)
    }
}
