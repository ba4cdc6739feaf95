import ExactJSON

// The status bodies write their own JSON (`JSONWritable`): the same bytes as their `Encodable` conformance, members in
// the order of their keys (`UserBodiesJSONTests` compares the two). A member added to a body is added here too.

extension SubscriptionBody: JSONWritable {
    package func write(to json: inout JSONOutput) {
        json.object { json in
            json.member(CodingKeys.appTransactionID, appTransactionID)
            json.member(CodingKeys.autoRenew, autoRenew)
            json.member(CodingKeys.billingPlanType, billingPlanType)
            json.member(CodingKeys.commitment, commitment)
            json.member(CodingKeys.environment, environment)
            json.member(CodingKeys.expirationReason, expirationReason)
            json.member(CodingKeys.expiresAt, expiresAt)
            json.member(CodingKeys.familyShared, familyShared)
            json.member(CodingKeys.gracePeriodExpiresAt, gracePeriodExpiresAt)
            json.member(CodingKeys.isEntitled, isEntitled)
            json.member(CodingKeys.latestTransactionID, latestTransactionID)
            json.member(CodingKeys.nextProductID, nextProductID)
            json.member(CodingKeys.offer, offer)
            json.member(CodingKeys.originalTransactionID, originalTransactionID)
            json.member(CodingKeys.priceIncrease, priceIncrease)
            json.member(CodingKeys.productID, productID)
            json.member(CodingKeys.status, status)
            json.member(CodingKeys.subscriptionGroup, subscriptionGroup)
        }
    }
}

extension OfferBody: JSONWritable {
    package func write(to json: inout JSONOutput) {
        json.object { json in
            json.member(CodingKeys.identifier, identifier)
            json.member(CodingKeys.paymentMode, paymentMode)
            json.member(CodingKeys.period, period)
            json.member(CodingKeys.type, type)
        }
    }
}

extension CommitmentBody: JSONWritable {
    package func write(to json: inout JSONOutput) {
        json.object { json in
            json.member(CodingKeys.billingPeriodNumber, billingPeriodNumber)
            json.member(CodingKeys.currency, currency)
            json.member(CodingKeys.expiresAt, expiresAt)
            json.member(CodingKeys.priceAfterMilliunits, priceAfterMilliunits)
            json.member(CodingKeys.totalBillingPeriods, totalBillingPeriods)
        }
    }
}

extension IntroOfferEligibilityBody: JSONWritable {
    package func write(to json: inout JSONOutput) {
        json.object { json in
            json.member(CodingKeys.eligible, eligible)
            json.member(CodingKeys.subscriptionGroup, subscriptionGroup)
        }
    }
}

extension EntitlementBody: JSONWritable {
    package func write(to json: inout JSONOutput) {
        json.object { json in
            json.member(CodingKeys.expiresAt, expiresAt)
            json.member(CodingKeys.id, id)
            json.member(CodingKeys.isActive, isActive)
            json.member(CodingKeys.productID, productID)
        }
    }
}

extension PurchaseBody: JSONWritable {
    package func write(to json: inout JSONOutput) {
        json.object { json in
            json.member(CodingKeys.consumedAt, consumedAt)
            json.member(CodingKeys.environment, environment)
            json.member(CodingKeys.expiresAt, expiresAt)
            json.member(CodingKeys.isActive, isActive)
            json.member(CodingKeys.originalTransactionID, originalTransactionID)
            json.member(CodingKeys.productID, productID)
            json.member(CodingKeys.purchasedAt, purchasedAt)
            json.member(CodingKeys.refunded, refunded)
            json.member(CodingKeys.transactionID, transactionID)
            json.member(CodingKeys.type, type)
        }
    }
}

extension UnconsumedBody: JSONWritable {
    package func write(to json: inout JSONOutput) {
        json.object { json in
            json.member(CodingKeys.developerPayload, developerPayload)
            json.member(CodingKeys.originalTransactionID, originalTransactionID)
            json.member(CodingKeys.productID, productID)
            json.member(CodingKeys.purchasedAt, purchasedAt)
            json.member(CodingKeys.quantity, quantity)
            json.member(CodingKeys.transactionID, transactionID)
        }
    }
}

extension ProductStatusBody: JSONWritable {
    package func write(to json: inout JSONOutput) {
        json.object { json in
            json.member(CodingKeys.id, id)
            json.member(CodingKeys.status, status)
        }
    }
}

extension GrantBody: JSONWritable {
    package func write(to json: inout JSONOutput) {
        json.object { json in
            json.member(CodingKeys.entitlementID, entitlementID)
            json.member(CodingKeys.expiresAt, expiresAt)
            json.member(CodingKeys.grantID, grantID)
            json.member(CodingKeys.grantedAt, grantedAt)
            json.member(CodingKeys.isActive, isActive)
            json.member(CodingKeys.revokedAt, revokedAt)
        }
    }
}
