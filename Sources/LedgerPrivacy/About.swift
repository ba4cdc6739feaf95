// LedgerPrivacy: the installation's master keys and what they protect.
//
// - MasterKeyring.swift: the master key file (current key first, older ones during a rotation), read again by a
//   running service when it changes.
// - SecretBox.swift: AES-GCM sealing of small secrets under the current master key, named by its fingerprint.
// - SealedColumn.swift: what a rotation seals again, column by column.
// - DataKeyStore.swift, IdentityStore.swift: data keys, pseudonyms and the blind index (docs/erasure.md).
// - ErasureCertificate.swift: the signed proof an erasure answers with.
//
// `ledger keys rotate` (LedgerCommands) moves everything sealed to a new key while the service runs.
