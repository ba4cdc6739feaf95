import Foundation

/// One Server-Sent Event (a comment line such as the heartbeat is not an event).
public struct ServerSentEvent: Sendable, Equatable {
    public var id: String?
    public var event: String
    public var data: String

    public init(id: String? = nil, event: String = "message", data: String) {
        self.id = id
        self.event = event
        self.data = data
    }
}

/// Parses a `text/event-stream` as its bytes arrive, in chunks cut anywhere (even inside a UTF-8 character or
/// between `\r` and `\n`), per the HTML Server-Sent Events rules: lines end with LF, CR or CRLF; a blank line ends an
/// event; `data:` lines join with LF; one space after the colon is dropped; lines starting with `:` are comments.
public struct ServerSentEventParser: Sendable {
    private var buffer: [UInt8] = []
    private var lastWasCR = false
    private var id: String?
    private var event: String?
    private var data: [String] = []
    /// Comments seen (the ledger's heartbeats), for liveness.
    public private(set) var comments = 0

    public init() {}

    /// The events completed by `bytes`.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if lastWasCR {
                lastWasCR = false
                if byte == 0x0A { continue }  // the LF of a CRLF
            }
            if byte == 0x0A || byte == 0x0D {
                lastWasCR = byte == 0x0D
                if let event = line(String(decoding: buffer, as: UTF8.self)) { events.append(event) }
                buffer.removeAll(keepingCapacity: true)
            } else {
                buffer.append(byte)
            }
        }
        return events
    }

    private mutating func line(_ line: String) -> ServerSentEvent? {
        if line.isEmpty {
            defer {
                event = nil
                data = []
            }
            guard !data.isEmpty else { return nil }
            return ServerSentEvent(id: id, event: event ?? "message", data: data.joined(separator: "\n"))
        }
        if line.hasPrefix(":") {
            comments += 1
            return nil
        }
        let field: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(line)
            value = ""
        }
        switch field {
        case "data": data.append(String(value))
        case "event": event = String(value)
        case "id" where !value.contains("\0"): id = String(value)  // the id persists across events, as the spec says
        default: break
        }
        return nil
    }
}
