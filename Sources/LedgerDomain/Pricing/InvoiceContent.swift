import UTCTime

/// What a monthly invoice says: every figure of it, so that its canonical JSON (sorted keys) can be hashed, stored,
/// and recomputed from the log to prove it unchanged.
public struct InvoiceContent: Sendable, Hashable, Codable {
    /// Paying users of one app in the month (a user counts once per app per month).
    public struct AppLine: Sendable, Hashable, Codable {
        public var appID: String
        public var payingUsers: Int
    }

    /// Paying users of an earlier, already finalized month who became known after its invoice (late notifications,
    /// late uploads), billed here at the price they would have added to that month.
    public struct Adjustment: Sendable, Hashable, Codable {
        public var month: String
        public var appID: String
        public var users: Int
        public var planID: String
        public var amountMinor: Int64
    }

    public var accountID: String
    /// `YYYY-MM` (UTC).
    public var month: String
    public var planID: String
    public var currency: String
    public var apps: [AppLine]
    /// The sum of the apps' paying users: the quantity the plan's bands price.
    public var payingUsers: Int
    public var bands: [BandCharge]
    public var adjustments: [Adjustment]
    public var subtotalMinor: Int64
    public var adjustmentsMinor: Int64
    public var totalMinor: Int64
}

/// The invoice computation (pure): usage in, invoice content out.
///
/// Choices (SPEC §6): the quantity is the sum over the account's apps of each app's distinct paying users of the
/// month; only Production purchases and renewals count (`MonthlyPayingUsersReducer`), and a refund does not
/// un-count a user — the month's service was used. A month's users that appear after its invoice was finalized are
/// billed once, as adjustment lines of the next invoice; users who disappear later (a transfer merging two owners)
/// are not credited.
public enum InvoiceCalculator {
    /// - Parameters:
    ///   - usage: month → app → paying users, as the log says now (at the computation's horizon).
    ///   - billed: month → app → users already billed by finalized invoices (their lines and adjustments).
    ///   - plan: the account's plan for a month.
    public static func compute(
        account: String, month: CalendarMonth, apps: [String], usage: [String: [String: Int]],
        billed: [String: [String: Int]], plan: (CalendarMonth) -> PricePlan
    ) -> InvoiceContent {
        let monthKey = month.description
        let current = plan(month)
        let lines = apps.sorted().map { InvoiceContent.AppLine(appID: $0, payingUsers: usage[monthKey]?[$0] ?? 0) }
        let users = lines.reduce(0) { $0 + $1.payingUsers }
        let bands = current.bands(for: users)
        var adjustments: [InvoiceContent.Adjustment] = []
        for earlier in billed.keys.sorted() where earlier < monthKey {
            guard let earlierMonth = CalendarMonth(parsing: earlier) else { continue }
            let earlierPlan = plan(earlierMonth)
            let billedApps = billed[earlier] ?? [:]
            var alreadyBilled = billedApps.values.reduce(0, +)
            // App by app, each late user priced at the band it falls into after those billed before it.
            for app in apps.sorted() {
                let late = (usage[earlier]?[app] ?? 0) - (billedApps[app] ?? 0)
                guard late > 0 else { continue }
                let amount = earlierPlan.total(for: alreadyBilled + late) - earlierPlan.total(for: alreadyBilled)
                adjustments.append(.init(month: earlier, appID: app, users: late, planID: earlierPlan.id, amountMinor: amount))
                alreadyBilled += late
            }
        }
        let subtotal = bands.reduce(0) { $0 + $1.amountMinor }
        let adjustmentsTotal = adjustments.reduce(0) { $0 + $1.amountMinor }
        return InvoiceContent(
            accountID: account, month: monthKey, planID: current.id, currency: current.currency, apps: lines,
            payingUsers: users, bands: bands, adjustments: adjustments, subtotalMinor: subtotal,
            adjustmentsMinor: adjustmentsTotal, totalMinor: subtotal + adjustmentsTotal)
    }

    /// What finalized invoices billed: month → app → users (lines of each month's invoice plus later adjustments).
    public static func billed(by invoices: [InvoiceContent]) -> [String: [String: Int]] {
        var billed: [String: [String: Int]] = [:]
        for invoice in invoices {
            for line in invoice.apps { billed[invoice.month, default: [:]][line.appID, default: 0] += line.payingUsers }
            for adjustment in invoice.adjustments {
                billed[adjustment.month, default: [:]][adjustment.appID, default: 0] += adjustment.users
            }
        }
        return billed
    }
}
