import Foundation
import LedgerDomain
import PostgresClient
import Synchronization
import UTCTime

/// The fold of a rebuild: the log streamed out with one COPY in stream order, each stream's keys folded in memory,
/// each final state written once with COPY into `schema`'s tables (one connection per table, side by side with the
/// reader), so memory holds a few streams' states at a time.
///
/// The reader only cuts the COPY into chunks of whole streams; worker threads (one per core) decode, fold and render
/// rows, each stream wholly in one worker, and send them to the shared writers. Every event below the cut is read
/// (so the count is the log's), but not the payloads of notification records: every fact in them is also a typed
/// event of its own.
///
/// Every event about a read model's key lies in the key's own stream (`ReadModel.ownStream`: a purchase's, or a
/// user's for grants; `StreamNaming`). An event that names a key outside its own stream (written by another writer)
/// is kept aside (its position); after the pass, `StrayFolds` folds each such key again from its own stream and those
/// events, whichever workers found them, and upserts it.
struct FoldPass: Sendable {
    let models: [any ReadModel.Type]
    let schema: String
    /// Events of transactions below the cut, every one of them committed.
    let cut: UInt64
    /// Whether rows carry their fold state (a check compares it) or leave it to be folded again when needed.
    let foldStates: Bool
    var workers = max(2, ProcessInfo.processInfo.activeProcessorCount)

    /// The log as a pass reads it: every event of the transactions below `cut`, stream by stream.
    static func logInStreamOrder(below cut: UInt64) -> String {
        """
        SELECT app_id, stream_id, position, event_type, schema_version,
               CASE WHEN event_type = 'appstore.notification' THEN '{}'::jsonb ELSE payload END,
               (extract(epoch FROM occurred_at) * 1000000)::bigint, (extract(epoch FROM recorded_at) * 1000000)::bigint
        FROM ledger.events
        WHERE transaction_id < '\(cut)'::xid8
        ORDER BY app_id, stream_id, stream_version
        """
    }

    /// The reader's settings, inside its transaction. The log is read in stream order; with the index on
    /// `(app_id, stream_id, stream_version)` rows stream out at once and cost PostgreSQL one process, where a sort
    /// (the plan under the default `random_page_cost`, which prices a storage of spinning disks) keeps the fold idle
    /// until it has sorted the whole log and, run in parallel, costs two more processes' CPU beside it. On a log whose
    /// streams are scattered over the table the planner may still sort. Nothing in the statement gains from JIT.
    /// `ledger replay`'s benchmark reads its reference with the same settings.
    package static let readerSettings = "SET LOCAL random_page_cost = 1.1; SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL jit = off"

    /// Runs the pass on `reader` (inside a repeatable-read transaction whose snapshot sees every transaction below
    /// the cut) with `writers` (one per table of `models`, in order); returns the events read.
    func run(reader: PostgresConnection, writers: [PostgresConnection], progress: (Int) -> Void) throws -> (events: Int, strays: [any StrayFold]) {
        let tables = models.flatMap { $0.tables }
        precondition(writers.count == tables.count, "one writer per table")
        var events = 0
        var strays: [any StrayFold] = []
        // The writers' COPYs are opened one inside the other; the innermost body runs the workers and the reader.
        // Each COPY freezes its rows (emptied in the same transaction, as FREEZE requires; the table is new and
        // nobody else reads it): they are all-visible at once, so the index-only scans of invoices and checks read no
        // heap, and no first reader and no autovacuum rewrites the whole table afterwards to set hint and
        // visibility bits (on a 1M-event rebuild, minutes of a core and writes competing with the service).
        func open(_ index: Int, _ sinks: [SharedSink]) throws {
            if index < tables.count {
                try writers[index].execute("BEGIN; TRUNCATE \(tables[index].qualified(schema))")
                try writers[index].copyIn(tables[index].copyStatement(schema: schema)) { writer in
                    try open(index + 1, sinks + [SharedSink(writer)])
                }
                try writers[index].execute("COMMIT")
                return
            }
            let queue = ChunkQueue(capacity: 2 * workers)
            let outcomes = WorkerOutcomes()
            let finished = DispatchGroup()
            for _ in 0..<workers {
                finished.enter()
                let worker = Worker(models: models, foldStates: foldStates, sinks: sinks)
                Thread {
                    outcomes.record(Result { try worker.run(queue) })
                    finished.leave()
                }.start()
            }
            defer {
                queue.close()
                finished.wait()
            }
            var chunk: [[UInt8]] = []
            var stream: [UInt8] = []
            try reader.copyOut("COPY (\(Self.logInStreamOrder(below: cut))) TO STDOUT") { line in
                let key = CopyText.streamKey(line)
                if !key.elementsEqual(stream) {
                    if chunk.count >= 1_000 {
                        guard queue.put(chunk) else { throw outcomes.firstError ?? PostgresError.copyFailed(message: "the fold stopped") }
                        chunk.removeAll(keepingCapacity: true)
                    }
                    stream = Array(key)
                }
                chunk.append(line)
                events += 1
                if events % 10_000 == 0 { progress(events) }
            }
            if !chunk.isEmpty { _ = queue.put(chunk) }
            queue.close()
            finished.wait()
            if let error = outcomes.firstError { throw error }
            strays = outcomes.strays
        }
        try open(0, [])
        progress(events)
        return (events, strays)
    }

    /// One worker thread: folds the chunks it takes, renders the rows, sends them.
    private struct Worker: Sendable {
        let models: [any ReadModel.Type]
        let foldStates: Bool
        let sinks: [SharedSink]

        func run(_ queue: ChunkQueue) throws -> [any StrayFold] {
            var folders = models.map { $0.folder() }
            var output = TableOutput(sinks: sinks, columns: models.flatMap { $0.tables.map(\.columns.count) })
            let offsets = models.indices.map { index in models.prefix(index).reduce(0) { $0 + $1.tables.count } }
            func flush() throws {
                for index in folders.indices { try folders[index].flush(into: &output, tableOffset: offsets[index], foldStates: foldStates) }
            }
            var fields: [Range<Int>] = []
            var type: (raw: ArraySlice<UInt8>, text: String) = ([], "")
            while let chunk = queue.take() {
                // The stream's key as it came (app and stream id, escaped): a new one ends the stream before it.
                var stream: (raw: ArraySlice<UInt8>, app: String, id: Substring)?
                for line in chunk {
                    CopyText.fields(line, into: &fields)
                    guard fields.count == 8 else { throw PostgresError.copyFailed(message: "a COPY row of the log has \(fields.count) fields") }
                    let key = CopyText.streamKey(line)
                    if stream == nil || !key.elementsEqual(stream!.raw) {
                        if stream != nil { try flush() }
                        stream = (key, CopyText.text(line, fields[0]), Substring(CopyText.text(line, fields[1])))
                    }
                    // A log has a few event types: each row's type is most often the one before it.
                    if !line[fields[3]].elementsEqual(type.raw) { type = (line[fields[3]], CopyText.text(line, fields[3])) }
                    guard let current = stream, let position = CopyText.integer(line, fields[2]),
                        let version = CopyText.integer(line, fields[4]).flatMap(Int32.init(exactly:)),
                        let occurred = CopyText.integer(line, fields[6]), let recorded = CopyText.integer(line, fields[7]),
                        let event = DomainEventDecoding.decode(
                            appID: current.app, position: position, type: type.text,
                            schemaVersion: version, payload: CopyText.text(line, fields[5]),
                            occurredAt: occurred, recordedAt: recorded)
                    else { continue }
                    for index in folders.indices { folders[index].apply(event, stream: current.id) }
                }
                try flush()
            }
            try output.sendAll()
            return folders.map { $0.strays }
        }
    }
}

/// Chunks of whole streams from the reader to the workers; `put` waits while `capacity` chunks are queued, so memory
/// stays bounded however fast the log streams out. The threads wait on `condition`; the queue itself is in a `Mutex`,
/// taken only while `condition` is held (so always in that order).
final class ChunkQueue: Sendable {
    private struct State {
        var chunks: [[[UInt8]]] = []
        var closed = false
    }

    private let condition = NSCondition()
    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// False when the queue was closed (a worker failed): the chunk was not taken.
    func put(_ chunk: [[UInt8]]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while state.withLock({ $0.chunks.count >= capacity && !$0.closed }) { condition.wait() }
        let taken = state.withLock { state in
            guard !state.closed else { return false }
            state.chunks.append(chunk)
            return true
        }
        if taken { condition.broadcast() }
        return taken
    }

    /// The next chunk; nil once the queue is closed and empty.
    func take() -> [[UInt8]]? {
        condition.lock()
        defer { condition.unlock() }
        while state.withLock({ $0.chunks.isEmpty && !$0.closed }) { condition.wait() }
        let chunk = state.withLock { state in state.chunks.isEmpty ? nil : state.chunks.removeFirst() }
        if chunk != nil { condition.broadcast() }
        return chunk
    }

    func close() {
        condition.lock()
        state.withLock { $0.closed = true }
        condition.broadcast()
        condition.unlock()
    }
}

/// The workers' results, and the first failure (which closes the queue so the reader stops).
final class WorkerOutcomes: Sendable {
    private let state = Mutex<(errors: [any Error], strays: [any StrayFold])>(([], []))

    func record(_ outcome: Result<[any StrayFold], any Error>) {
        state.withLock {
            switch outcome {
            case .success(let strays): $0.strays += strays
            case .failure(let error): $0.errors.append(error)
            }
        }
    }

    var firstError: (any Error)? { state.withLock { $0.errors.first } }
    var strays: [any StrayFold] { state.withLock { $0.strays } }
}

/// One writer's COPY shared by the workers: libpq allows one thread at a time on a connection, so each send holds
/// the lock. The connection does nothing else while its COPY is open (the rebuild dedicates it). A `Mutex` cannot
/// hold the writer: it comes from `copyIn`'s closure, not as a `sending` value.
// Safe to share across threads: both stored properties are `let`; the only use of `writer` (a libpq connection handle,
// not Sendable) is `send`, which holds `lock` for the whole call, so no two threads use the connection at once.
package final class SharedSink: @unchecked Sendable {  // safe: every use of `writer` is under `lock` (proof above)
    private let lock = NSLock()
    private let writer: CopyInWriter

    init(_ writer: CopyInWriter) { self.writer = writer }

    package func send(_ bytes: [UInt8]) throws { try lock.withLock { try writer.send(bytes) } }
}

/// Rows on their way into the writers' COPYs, written cell by cell in COPY's text format (`RowSink`), sent in
/// chunks of about 256 kB.
package struct TableOutput: RowSink {
    let sinks: [SharedSink]
    private let columns: [Int]
    private var buffers: [[UInt8]]
    /// Where the model writing now has its first table: its table `n` is `tableOffset + n` here.
    var tableOffset = 0
    private var table = 0
    private var cells = 0

    init(sinks: [SharedSink], columns: [Int]) {
        precondition(sinks.count == columns.count, "one sink per table")
        self.sinks = sinks
        self.columns = columns
        self.buffers = Array(repeating: [], count: sinks.count)
    }

    package mutating func begin(table: Int) {
        self.table = tableOffset + table
        cells = 0
    }

    private mutating func separate() {
        if cells > 0 { buffers[table].append(0x09) }
        cells += 1
    }

    package mutating func text(_ value: String?) {
        separate()
        guard let value else { return CopyTextCells.null(into: &buffers[table]) }
        CopyTextCells.text(value, into: &buffers[table])
    }

    package mutating func instant(_ value: Instant?) {
        separate()
        guard let value else { return CopyTextCells.null(into: &buffers[table]) }
        value.appendRFC3339(to: &buffers[table])
    }

    package mutating func bool(_ value: Bool?) {
        separate()
        guard let value else { return CopyTextCells.null(into: &buffers[table]) }
        buffers[table].append(UInt8(ascii: value ? "t" : "f"))
    }

    package mutating func integer(_ value: Int64?) {
        separate()
        guard let value else { return CopyTextCells.null(into: &buffers[table]) }
        CopyTextCells.integer(value, into: &buffers[table])
    }

    package mutating func textArray(_ values: [String]) { text(Cell.textArray(values)) }

    package mutating func end() throws {
        precondition(cells == columns[table], "a row of \(cells) cells for a table of \(columns[table]) columns")
        buffers[table].append(0x0A)
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
package protocol ModelFolding {
    mutating func apply(_ event: DomainEvent, stream: Substring)
    /// Writes the states of the stream that just ended.
    mutating func flush(into output: inout TableOutput, tableOffset: Int, foldStates: Bool) throws
    var strays: any StrayFold { get }
}

/// A read model's `ModelFolder` under a concrete type of its own (`Folder` in each model). Used as
/// `any ModelFolding`, the generic `ModelFolder` itself would fold unspecialized, looking up generic metadata on
/// every event; a concrete conformance lets the compiler specialize the loop.
package protocol ConcreteFolder: ModelFolding {
    associatedtype Model: ReadModel
    var folder: ModelFolder<Model> { get set }
}

extension ConcreteFolder {
    package mutating func apply(_ event: DomainEvent, stream: Substring) { folder.apply(event, stream: stream) }

    package mutating func flush(into output: inout TableOutput, tableOffset: Int, foldStates: Bool) throws {
        try folder.flush(into: &output, tableOffset: tableOffset, foldStates: foldStates)
    }

    package var strays: any StrayFold { folder.strays }
}

package struct ModelFolder<Model: ReadModel> {
    /// The states of the stream being folded: a few keys at most, so an array searched in order (cheaper than
    /// hashing two strings per event).
    private var states: [(key: StateKey, state: Model.Reducer.State, position: Int64)] = []
    /// Only the positions: a writer that puts many events outside their streams must not fill memory.
    private var strayPositions: [StateKey: [Int64]] = [:]

    package init() {}

    package mutating func apply(_ event: DomainEvent, stream: Substring) {
        let keys = Model.Reducer.keys(for: event)
        for (index, key) in keys.enumerated() where !keys[..<index].contains(key) {
            guard Model.isOwnStream(stream, of: key) else {
                strayPositions[StateKey(appID: event.appID, key: key), default: []].append(event.position)
                continue
            }
            if let slot = states.firstIndex(where: { $0.key.key == key && $0.key.appID == event.appID }) {
                Model.Reducer.apply(&states[slot].state, event)
                states[slot].position = max(states[slot].position, event.position)
            } else {
                states.append((StateKey(appID: event.appID, key: key), Model.Reducer.apply(Model.Reducer.initial(key: key), event), event.position))
            }
        }
    }

    package mutating func flush(into output: inout TableOutput, tableOffset: Int, foldStates: Bool) throws {
        output.tableOffset = tableOffset
        for entry in states {
            try Model.write(appID: entry.key.appID, state: entry.state, position: entry.position, foldState: foldStates, into: &output)
        }
        states.removeAll(keepingCapacity: true)
    }

    package var strays: any StrayFold { Strays<Model>(positions: strayPositions) }
}
