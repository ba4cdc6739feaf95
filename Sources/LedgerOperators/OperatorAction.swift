import UTCTime

/// Who acted and from where: what every row of the operator record carries beside the action itself.
package struct OperatorActor: Sendable, Equatable {
    package enum Channel: String, Sendable, Equatable, CaseIterable {
        case console, api, cli
    }

    /// The operator's id; empty for break-glass and for a sign-in that was refused.
    package var operatorID: String
    /// The operator's name (or the name given with the break-glass token).
    package var name: String

    /// Who an event in the log names as its actor: the operator's id, the shell's login, or `break-glass:<name>`.
    package var eventActor: String {
        guard operatorID.isEmpty else { return operatorID }
        return channel == .cli ? name : "break-glass:" + name  // the shell's `shell:<login>`, or the admin token's
    }
    /// The role used; empty when none was (a refused sign-in).
    package var role: String
    package var channel: Channel
    /// The peer's address as the connection gives it (no forwarding header is trusted); empty for the CLI.
    package var sourceAddress: String
    /// The request id (`Request-Id`), empty for the CLI.
    package var requestID: String

    package init(
        operatorID: String, name: String, role: String, channel: Channel, sourceAddress: String? = nil, requestID: String? = nil
    ) {
        self.operatorID = operatorID
        self.name = name
        self.role = role
        self.channel = channel
        self.sourceAddress = sourceAddress ?? ""
        self.requestID = requestID ?? ""
    }

    /// The person at the server's shell, running `ledger operators …` (who has the database's credentials).
    package static func shell(user: String) -> OperatorActor {
        OperatorActor(operatorID: "", name: user.isEmpty ? "(shell)" : "shell:\(user)", role: "", channel: .cli)
    }
}

/// One row of the operator record (`ledger.operator_actions`), with its place in the chain.
package struct OperatorAction: Sendable, Equatable {
    package var seq: Int64
    package var at: Instant
    package var actor: OperatorActor
    /// What was done, a dotted verb (`sign_in`, `invoice.finalize`, `api.write`, `break_glass`…).
    package var action: String
    /// What it was done to (an invoice, a key, an operator, a request path).
    package var target: String
    package var detail: String
    package var previousHash: [UInt8]
    package var hash: [UInt8]
}

/// What the record is listed by: an operator (id or name), an action, a time window; newest first, below `before`.
package struct OperatorActionFilter: Sendable, Equatable {
    package var `operator`: String?
    package var action: String?
    package var since: Instant?
    package var until: Instant?
    /// Only rows with a smaller `seq` (the next page of a listing).
    package var before: Int64?

    package init(operator: String? = nil, action: String? = nil, since: Instant? = nil, until: Instant? = nil, before: Int64? = nil) {
        self.operator = `operator`
        self.action = action
        self.since = since
        self.until = until
        self.before = before
    }
}
