// The SDK apps add: the portable core, plus the StoreKit adapter where StoreKit exists (StoreKitPurchaseStore.swift).
@_exported import SubscriptionLedgerSDKCore
