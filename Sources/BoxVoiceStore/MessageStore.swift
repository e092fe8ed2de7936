import BoxVoiceKeywords
import BoxVoiceContract
import Foundation
import Synchronization

/// The one owner of every dictated message, from its first sample to its eviction: its id, its row, its recording
/// folder, its state (the `MessageState` table), its delivery outcome and its retention. Nobody else spells its paths
/// or deletes its files.
///
/// One SQLite connection behind one lock; every change is one `BEGIN IMMEDIATE … COMMIT` (WAL, full fsync), so a
/// message is durable the moment a call returns and other processes (the daemon, a second command) see it whole.
/// Files are removed only after the row that stops needing them is committed: a crash in between leaves a folder the
/// next `recover()` removes, never a row whose audio is gone.
public final class MessageStore: Sendable {
    /// Recordings kept per box for retranscription (contract §8).
    public let retentionLimit: Int
    /// The data folder: `boxvoice.sqlite` and `recordings/<box>/<id>/`.
    public let directory: String
    let connection: Mutex<SQLiteDatabase>

    public var databasePath: String { directory + "/boxvoice.sqlite" }
    var recordingsRoot: String { directory + "/recordings" }
    var reservePath: String { directory + "/reserve" }
    /// Space kept back so that a full disk still leaves room to commit what was said as a draft.
    static let reserveBytes = 1 << 20

    /// Opens (creating, or migrating in place from the earlier outbox/retention schema) the store in `directory`.
    /// The folder is made 0700 and the database 0600 (its WAL and shared-memory files inherit that mode).
    public init(directory: String, retentionLimit: Int = 5) throws {
        self.directory = directory
        self.retentionLimit = retentionLimit
        try PrivateFiles.directory(directory)
        try PrivateFiles.directory(directory + "/recordings")
        let path = directory + "/boxvoice.sqlite"
        try PrivateFiles.file(path)
        for companion in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + companion) {
            chmod(path + companion, 0o600)
        }
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path)
            try MessageSchema.prepare(database, recordingsRoot: directory + "/recordings")
        } catch let error as SQLiteError {
            throw StoreError.database(error)
        }
        connection = Mutex(database)
        Self.ensureReserve(at: directory + "/reserve")
    }

    // MARK: Recording

    /// A message being recorded: where its segments go, and the lease that marks it as this process's.
    public struct Recording: Sendable {
        public let id: MessageID
        /// The folder its `seg-NNNN.wav` files are written to (made 0700).
        public let folder: String
        public let lease: RecordingLease
    }

    /// Starts a message: its folder (0700, leased to this process before anyone can see it), then its row in state
    /// `recording`.
    /// - Parameters:
    ///   - run: the run it belongs to; its session is the run's (known now, or learnt when the run's first message is
    ///     sent). Without a run, `session` is used as given.
    ///   - sessionFromDefault: without a run, the box's default session is asked for at delivery (`session` ignored).
    public func beginRecording(
        box: BoxReference, session: String?, sessionFromDefault: Bool = false, run: SessionRun.ID? = nil,
        at date: Date = Date()
    ) throws -> Recording {
        let id = MessageID.new()
        let (folder, lease) = try makeLeasedFolder(box: box, id: id)
        try write { db in
            var known = sessionFromDefault ? nil : session
            var unresolved = sessionFromDefault
            if let run {
                guard let record = try fetchRun(run, in: db) else { throw StoreError.unknownRun(run) }
                known = record.session
                unresolved = record.session == nil
            }
            try db.execute(
                """
                INSERT INTO messages (id, box, session, session_unresolved, state, recorded_at, has_audio, updated_at, \
                run)
                VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)
                """,
                [
                    .text(id.rawValue), .text(box.storeKey), known.map { .text($0) } ?? .null,
                    .integer(unresolved ? 1 : 0),
                    .text(MessageState.recording.rawValue), .real(date.timeIntervalSince1970),
                    .real(Date().timeIntervalSince1970),
                    run.map { .text($0.rawValue) } ?? .null,
                ])
        }
        return Recording(id: id, folder: folder, lease: lease)
    }

    /// Keeps the words heard so far, so a crash mid-message leaves a draft with them.
    public func noteHeard(_ id: MessageID, text: String) throws {
        try write { db in
            try db.execute(
                "UPDATE messages SET heard_text = ?, updated_at = ? WHERE id = ? AND state = 'recording'",
                [.text(text), .real(Date().timeIntervalSince1970), .text(id.rawValue)])
        }
    }

    /// What a command commits, before any network call.
    public struct Ending: Sendable, Equatable {
        public var heardText: String
        public var typedPrefix: String
        public var command: HeardCommand?
        /// The resolved live text (what goes out if HQ fails).
        public var liveText: String
        public var at: Date

        public init(
            heardText: String, typedPrefix: String = "", command: HeardCommand?, liveText: String, at: Date = Date()
        ) {
            self.heardText = heardText
            self.typedPrefix = typedPrefix
            self.command = command
            self.liveText = liveText
            self.at = at
        }
    }

    /// A send ended the message: committed now, with its live text, command and time; `awaitingHQ` when its HQ text
    /// is still to come, else it is framed with `liveBody` and pending at once.
    public func commitSend(_ id: MessageID, _ ending: Ending, liveBody: String?) throws {
        try write { db in
            let transition: MessageTransition = liveBody == nil ? .commandAwaitingHQ : .commandLiveOnly
            var values = endingValues(ending)
            if let liveBody {
                values += [("body", .text(liveBody)), ("next_attempt_at", .real(ending.at.timeIntervalSince1970))]
            }
            try change(id, transition, values, in: db)
        }
    }

    /// Mic-off, end of input with `--on-eof draft`, or a fault: kept as a draft (text and audio), not sent. Segment
    /// headers a failed write left stale are repaired first, so the draft's audio plays whole.
    public func keepDraft(_ id: MessageID, _ ending: Ending) throws {
        if let message = try message(id) { _ = Self.repair(folder(of: message)) }
        let evicted = try write { db -> [String] in
            let message = try change(id, .keptAsDraft, endingValues(ending), in: db)
            return try evictBeyondLimit(box: message.box, in: db)
        }
        removeFolders(evicted)
    }

    /// Not a word was heard in it, live or by HQ: it is not sent, and goes back to the drafts with its audio.
    public func returnUnheardToDraft(_ id: MessageID) throws {
        try write { db in _ = try change(id, .nothingHeard, [], in: db) }
    }

    /// The message's text is final: framed `body`, with `text` (HQ, or live when HQ failed) as its committed text.
    /// - Parameter hqOwed: the text is live only because HQ could not reach the box (or the box refused the
    ///   device): HQ is redone before it is sent (`settleOwedHQ`).
    public func frame(_ id: MessageID, body: String, text: String, hqOwed: Bool = false, now: Date = Date()) throws {
        let evicted = try write { db -> [String] in
            let message = try change(
                id, .framed,
                [
                    ("body", .text(body)), ("text", .text(text)),
                    ("next_attempt_at", .real(now.timeIntervalSince1970)), ("hq_owed", .integer(hqOwed ? 1 : 0)),
                ], in: db)
            return try evictBeyondLimit(box: message.box, in: db)
        }
        removeFolders(evicted)
    }

    /// Erase, cancel or `outbox discard`: the row keeps no text, and the audio is removed once that is committed.
    public func discard(_ id: MessageID) throws {
        let folder = try write { db -> String? in
            let message = try change(
                id, .discard,
                [
                    ("heard_text", .text("")), ("body", .null), ("text", .null),
                    ("command_phrase", .null), ("has_audio", .integer(0)),
                ], in: db)
            return message.hasAudio ? self.folder(of: message) : nil
        }
        removeFolders(folder.map { [$0] } ?? [])
    }

    /// `outbox send ID`: a draft goes to HQ first (its audio is retranscribed), a failed one is pending again.
    @discardableResult
    public func requestSend(_ id: MessageID, now: Date = Date()) throws -> MessageState {
        try write { db in
            guard let message = try fetch(id, in: db) else { throw StoreError.unknownMessage(id) }
            let transition: MessageTransition = message.state == .draft ? .sendDraft : .retry
            let extra: [(String, SQLiteValue)] =
                transition == .retry
                ? [("next_attempt_at", .real(now.timeIntervalSince1970))]
                : [("command_at", .real(now.timeIntervalSince1970))]
            return try change(id, transition, extra, in: db).state
        }
    }

    /// The box named the session a message goes to (its default, asked at delivery): kept in the row, so its
    /// retranscription answers carry it.
    public func resolveSession(_ id: MessageID, to session: String?) throws {
        try write { db in
            try db.execute(
                "UPDATE messages SET session = ?, session_unresolved = 0, updated_at = ? WHERE id = ?",
                [session.map { .text($0) } ?? .null, .real(Date().timeIntervalSince1970), .text(id.rawValue)])
        }
    }

    // MARK: Reading

    public func message(_ id: MessageID) throws -> DictatedMessage? {
        try read { db in try fetch(id, in: db) }
    }

    /// Every message that is not discarded, oldest first.
    public func messages(box: BoxReference? = nil) throws -> [DictatedMessage] {
        try read { db in
            try select(
                "WHERE state != 'discarded'" + (box == nil ? "" : " AND box = ?") + " ORDER BY recorded_at, id",
                box.map { [.text($0.storeKey)] } ?? [], in: db)
        }
    }

    /// The message's segment files, in order (empty when its audio is not kept).
    public func segmentFiles(of message: DictatedMessage) -> [String] {
        guard message.hasAudio else { return [] }
        let folder = folder(of: message)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        // A compressed recording is one whole file (written under another name, synced, renamed): it replaces the
        // segments even if a crash left them beside it.
        if let compressed = RetentionFormat.compressedNames.first(where: names.contains) {
            return [folder + "/" + compressed]
        }
        return names.filter { $0.hasPrefix("seg-") && $0.hasSuffix(".wav") }.sorted().map { folder + "/" + $0 }
    }

    /// Frees the space held back for a full disk, so the draft that saves what was said can still be committed.
    public func releaseReserve() {
        try? FileManager.default.removeItem(atPath: reservePath)
    }

    // MARK: Internals shared by the extensions

    func folder(of message: DictatedMessage) -> String { folder(box: message.box, id: message.id) }

    func folder(box: BoxReference, id: MessageID) -> String { recordingsRoot + "/" + box.storeKey + "/" + id.rawValue }

    /// Made under a name recovery ignores, leased, then renamed into place: `recover()` in another process can only
    /// ever see it leased.
    func makeLeasedFolder(box reference: BoxReference, id: MessageID) throws -> (String, RecordingLease) {
        let box = reference.storeKey
        guard !box.isEmpty, !box.contains("/"), box != ".", box != "..", !box.hasPrefix(".") else {
            throw StoreError.invalidBoxName(box)
        }
        let parent = recordingsRoot + "/" + box
        try PrivateFiles.directory(parent)
        let staging = parent + "/.new-" + id.rawValue
        try PrivateFiles.directory(staging)
        guard case .taken(let lease) = RecordingLease.take(id: id, folder: staging) else {
            throw StoreError.io(path: staging, errno: EWOULDBLOCK, doing: "lease the new recording folder")
        }
        let folder = folder(box: reference, id: id)
        guard rename(staging, folder) == 0 else {
            throw StoreError.io(path: folder, errno: errno, doing: "create the recording folder")
        }
        return (folder, lease)
    }

    /// One transaction under the lock.
    @discardableResult
    func write<T: Sendable>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        do {
            return try connection.withLock { db in try db.transaction { try body(db) } }
        } catch let error as SQLiteError {
            throw StoreError.database(error)
        }
    }

    func read<T: Sendable>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        do {
            return try connection.withLock { db in try body(db) }
        } catch let error as SQLiteError {
            throw StoreError.database(error)
        }
    }

    /// Applies one transition of the table (refusing what it refuses) with the given column values.
    @discardableResult
    func change(
        _ id: MessageID, _ transition: MessageTransition, _ values: [(String, SQLiteValue)], in db: SQLiteDatabase
    ) throws -> DictatedMessage {
        guard let message = try fetch(id, in: db) else { throw StoreError.unknownMessage(id) }
        guard let next = message.state.after(transition) else {
            throw StoreError.notAllowed(id, from: message.state, transition)
        }
        let all = values + [("state", .text(next.rawValue)), ("updated_at", .real(Date().timeIntervalSince1970))]
        try db.execute(
            "UPDATE messages SET " + all.map { "\($0.0) = ?" }.joined(separator: ", ") + " WHERE id = ?",
            all.map(\.1) + [.text(id.rawValue)])
        var changed = message
        changed.state = next
        return changed
    }

    private func endingValues(_ ending: Ending) -> [(String, SQLiteValue)] {
        [
            ("heard_text", .text(ending.heardText)), ("typed_prefix", .text(ending.typedPrefix)),
            ("command_action", ending.command.map { .text($0.action.rawValue) } ?? .null),
            ("command_phrase", ending.command.map { .text($0.matchedPhrase) } ?? .null),
            ("command_at", .real(ending.at.timeIntervalSince1970)), ("text", .text(ending.liveText)),
        ]
    }

    func fetch(_ id: MessageID, in db: SQLiteDatabase) throws -> DictatedMessage? {
        try select("WHERE id = ?", [.text(id.rawValue)], in: db).first
    }

    static let columns = """
        id, box, session, state, heard_text, typed_prefix, command_action, command_phrase, command_at, body, text,
        recorded_at, has_audio, attempts, next_attempt_at, last_error, failure, outcome, session_unresolved, run,
        hq_owed
        """

    func select(_ clause: String, _ values: [SQLiteValue], in db: SQLiteDatabase) throws -> [DictatedMessage] {
        try db.query("SELECT \(Self.columns) FROM messages \(clause)", values).compactMap(Self.decode)
    }

    static func decode(_ row: [SQLiteValue]) -> DictatedMessage? {
        guard let id = row[0].text.flatMap(MessageID.init(exactly:)),
            let state = row[3].text.flatMap(MessageState.init(rawValue:))
        else {
            return nil
        }
        let command = row[6].text.flatMap(KeywordAction.init(rawValue:)).map {
            HeardCommand(action: $0, matchedPhrase: row[7].text ?? "")
        }
        return DictatedMessage(
            id: id, box: BoxReference(storeKey: row[1].text ?? ""), session: row[2].text, state: state,
            heardText: row[4].text ?? "",
            typedPrefix: row[5].text ?? "", command: command,
            commandAt: row[8].real.map(Date.init(timeIntervalSince1970:)),
            body: row[9].text, text: row[10].text, recordedAt: Date(timeIntervalSince1970: row[11].real ?? 0),
            hasAudio: (row[12].integer ?? 0) != 0, attempts: Int(row[13].integer ?? 0),
            nextAttemptAt: row[14].real.map(Date.init(timeIntervalSince1970:)), lastError: row[15].text,
            failure: row[16].text.flatMap(DeliveryFailureKind.init(rawValue:)),
            acceptance: row[17].text.flatMap(BoxAcceptance.init(storedText:)),
            sessionUnresolved: (row[18].integer ?? 0) != 0, run: row[19].text.map(SessionRun.ID.init(rawValue:)),
            hqOwed: (row[20].integer ?? 0) != 0)
    }

    func removeFolders(_ folders: [String]) {
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
    }

    private static func ensureReserve(at path: String) {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        // Real blocks, not a sparse hole: freeing them must give space back.
        let allocated = posix_fallocate(fd, 0, off_t(reserveBytes)) == 0
        close(fd)
        if !allocated { unlink(path) }
    }
}
