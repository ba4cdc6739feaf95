import LedgerDomain
import PostgresClient

/// The fold of a rebuild: the log streamed out with one COPY in stream order, each stream's keys folded in memory,
/// each final state written once with COPY into `schema`'s tables (one connection per table, side by side with the
/// reader), so memory holds one stream's states at a time.
///
/// Every read model is keyed by original transaction id, and every event about one lies in its stream
/// (`StreamNaming`). An event that names a key outside its own stream (written by another writer) is kept aside;
/// `finish` folds each such key again from its own stream and those events, and upserts it.
struct FoldPass {
    let models: [any ReadModel.Type]
    let schema: String
    /// Events of transactions below the cut, every one of them committed.
    let cut: UInt64
    /// Whether rows carry their fold state (a check compares it) or leave it to be folded again when needed.
    let foldStates: Bool

    /// Runs the pass on `reader` (inside a repeatable-read transaction whose snapshot sees every transaction below
    /// the cut) with `writers` (one per table of `models`, in order); returns the events read.
    func run(reader: PostgresConnection, writers: [PostgresConnection], progress: (Int) -> Void) throws -> (events: Int, strays: [any StrayFold]) {
        let tables = models.flatMap { $0.tables }
        precondition(writers.count == tables.count, "one writer per table")
        var folders = models.map { $0.folder() }
        var events = 0
        // The writers' COPYs are opened one inside the other; the innermost body runs the reader's COPY out.
        func open(_ index: Int, _ sinks: [CopyInWriter]) throws {
            if index < tables.count {
                try writers[index].copyIn(tables[index].copyStatement(schema: schema)) { writer in try open(index + 1, sinks + [writer]) }
                return
            }
            var output = TableOutput(sinks: sinks)
            var stream: (app: Substring, id: Substring)?
            try reader.copyOut("""
                COPY (SELECT app_id, stream_id, position, event_type, schema_version, payload,
                             (extract(epoch FROM occurred_at) * 1000000)::bigint, (extract(epoch FROM recorded_at) * 1000000)::bigint
                      FROM ledger.events
                      WHERE transaction_id < '\(cut)'::xid8 AND event_type <> 'appstore.notification'
                      ORDER BY app_id, stream_id, stream_version) TO STDOUT
                """) { line in
                let fields = CopyText.fields(line)
                guard fields.count == 8 else { throw PostgresError.copyFailed(message: "a COPY row of the log has \(fields.count) fields") }
                let app = fields[0], streamID = fields[1]
                if let current = stream, current.app != app || current.id != streamID {
                    for index in folders.indices { try folders[index].flush(into: &output, tableOffset: offset(of: index), foldStates: foldStates) }
                }
                stream = (app, streamID)
                events += 1
                if events % 10_000 == 0 { progress(events) }
                guard let position = Int64(fields[2]), let version = Int32(fields[4]), let occurred = Int64(fields[6]),
                      let recorded = Int64(fields[7]),
                      let event = DomainEventDecoding.decode(appID: String(app), position: position, type: String(fields[3]),
                                                             schemaVersion: version, payload: String(fields[5]),
                                                             occurredAt: occurred, recordedAt: recorded) else { return }
                for index in folders.indices { folders[index].apply(event, stream: streamID) }
            }
            for index in folders.indices { try folders[index].flush(into: &output, tableOffset: offset(of: index), foldStates: foldStates) }
            try output.sendAll()
        }
        try open(0, [])
        progress(events)
        return (events, folders.map { $0.strays })
    }

    /// The index of model `index`'s first table among all tables.
    private func offset(of index: Int) -> Int { models.prefix(index).reduce(0) { $0 + $1.tables.count } }
}

/// Rows on their way into the writers' COPYs, sent in chunks of about 256 kB.
struct TableOutput {
    let sinks: [CopyInWriter]
    private var buffers: [[UInt8]]

    init(sinks: [CopyInWriter]) {
        self.sinks = sinks
        self.buffers = Array(repeating: [], count: sinks.count)
    }

    mutating func write(_ row: [String?], table: Int) throws {
        ReadModelTable.copyLine(row, into: &buffers[table])
        if buffers[table].count >= 256 * 1024 {
            try sinks[table].send(buffers[table])
            buffers[table].removeAll(keepingCapacity: true)
        }
    }

    mutating func sendAll() throws {
        for index in sinks.indices where !buffers[index].isEmpty {
            try sinks[index].send(buffers[index])
            buffers[index].removeAll()
        }
    }
}

/// One read model's part of a fold pass, its state type erased.
protocol ModelFolding {
    mutating func apply(_ event: DomainEvent, stream: Substring)
    /// Writes the states of the stream that just ended.
    mutating func flush(into output: inout TableOutput, tableOffset: Int, foldStates: Bool) throws
    var strays: any StrayFold { get }
}

/// Keys that events outside their own stream touched, with those events.
protocol StrayFold: Sendable {
    var isEmpty: Bool { get }
    /// Folds each key again from its own stream (events of transactions below `cut`) and the events kept aside,
    /// and upserts it into `schema`'s tables.
    func finish(cut: UInt64, schema: String, on connection: PostgresConnection) throws
}

struct ModelFolder<Model: ReadModel>: ModelFolding {
    private var states: [StateKey: (state: Model.Reducer.State, position: Int64)] = [:]
    private var strayEvents: [StateKey: [DomainEvent]] = [:]

    mutating func apply(_ event: DomainEvent, stream: Substring) {
        for key in Set(Model.Reducer.keys(for: event)) {
            let stateKey = StateKey(appID: event.appID, key: key)
            guard Model.ownStream(of: key) == stream else {
                strayEvents[stateKey, default: []].append(event)
                continue
            }
            let current = states[stateKey]?.state ?? Model.Reducer.initial(key: key)
            states[stateKey] = (Model.Reducer.apply(current, event), max(states[stateKey]?.position ?? 0, event.position))
        }
    }

    mutating func flush(into output: inout TableOutput, tableOffset: Int, foldStates: Bool) throws {
        for (key, entry) in states {
            for (index, rows) in Model.rows(appID: key.appID, state: entry.state, position: entry.position, foldState: foldStates).enumerated() {
                for row in rows { try output.write(row, table: tableOffset + index) }
            }
        }
        states.removeAll(keepingCapacity: true)
    }

    var strays: any StrayFold { Strays<Model>(events: strayEvents) }
}

struct Strays<Model: ReadModel>: StrayFold {
    let events: [StateKey: [DomainEvent]]

    var isEmpty: Bool { events.isEmpty }

    func finish(cut: UInt64, schema: String, on connection: PostgresConnection) throws {
        var states: [StateKey: (state: Model.Reducer.State, position: Int64)] = [:]
        for (key, aside) in events {
            let own = try EventColumns.decode(connection.query("""
                SELECT \(unescaped: EventColumns.listSkippingRecords) FROM ledger.events
                WHERE app_id = \(key.appID) AND stream_id = \(Model.ownStream(of: key.key))
                  AND transaction_id < \(TransactionIDValue(value: cut))
                ORDER BY position
                """)).compactMap(DomainEventDecoding.decode)
            let all = (own + aside).filter { Model.Reducer.keys(for: $0).contains(key.key) }.sorted { $0.position < $1.position }
            states[key] = (fold(Model.Reducer.self, key: key.key, events: all, asOf: nil), all.last?.position ?? 0)
        }
        try Model.save(states, schema: schema, on: connection)
    }
}

extension ReadModel {
    static func folder() -> any ModelFolding { ModelFolder<Self>() }
}

/// PostgreSQL's COPY text format, read.
enum CopyText {
    /// The fields of one row (its trailing newline dropped), unescaped; `\N` (NULL) reads as empty.
    static func fields(_ line: [UInt8]) -> [Substring] {
        var end = line.count
        if end > 0, line[end - 1] == 0x0A { end -= 1 }
        var fields: [Substring] = []
        var start = 0
        var index = 0
        while index <= end {
            if index == end || line[index] == 0x09 {
                fields.append(unescape(line[start..<index]))
                start = index + 1
            }
            index += 1
        }
        return fields
    }

    private static func unescape(_ bytes: ArraySlice<UInt8>) -> Substring {
        guard bytes.contains(0x5C) else { return Substring(decoding: bytes, as: UTF8.self) }
        if bytes.elementsEqual([0x5C, UInt8(ascii: "N")]) { return "" }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var escaped = false
        for byte in bytes {
            if escaped {
                switch byte {
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "v"): out.append(0x0B)
                default: out.append(byte)
                }
                escaped = false
            } else if byte == 0x5C {
                escaped = true
            } else {
                out.append(byte)
            }
        }
        return Substring(decoding: out, as: UTF8.self)
    }
}
