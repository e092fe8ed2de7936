import BoxVoiceContract
import Foundation

/// A run of dictated messages — one `dictate`, one hotkey turn — that belong in one conversation (contract §5): the
/// first goes to the session asked for (or the box's default, or `"new"`), every later one to the session the box
/// actually put the first one in.
public struct SessionRun: Sendable, Equatable {
    public struct ID: Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        static func new() -> ID { ID(rawValue: UUID().uuidString) }
    }

    public enum State: String, Sendable {
        /// Nothing of the run has reached the box yet: the first message goes to `requested`, or to the default.
        case open
        /// Its first message went out as `"new"`: the rest wait until the box says which session that opened.
        case assigning
        /// Every message goes to `session`.
        case known
    }

    public let id: ID
    public let box: BoxReference
    /// What the user asked for: a session id, `"new"`, or nil for the box's default.
    public let requested: String?
    public var state: State
    /// The session the run's messages go into, once known.
    public var session: String?
    /// The message that went out as `"new"` (while `assigning`).
    public var firstMessage: MessageID?
    /// When the state last changed: how long an assignment has been awaited.
    public var updatedAt: Date

    /// Where the next message of this run goes, when that is known without asking the box.
    public var target: String? {
        switch state {
        case .known: session
        case .open: requested
        case .assigning: nil
        }
    }
}

/// What the MessageStore keeps about runs.
extension MessageStore {
    /// Starts a run. A named session (not `"new"`) is known at once.
    public func beginRun(box: BoxReference, requested: String?, now: Date = Date()) throws -> SessionRun.ID {
        let id = SessionRun.ID.new()
        let known = requested.flatMap { $0 == "new" ? nil : $0 }
        try write { db in
            try db.execute(
                "INSERT INTO runs (id, box, requested, session, state, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .text(id.rawValue), .text(box.storeKey), requested.map { .text($0) } ?? .null,
                    known.map { .text($0) } ?? .null,
                    .text((known == nil ? SessionRun.State.open : .known).rawValue), .real(now.timeIntervalSince1970),
                ])
        }
        return id
    }

    public func run(_ id: SessionRun.ID) throws -> SessionRun? {
        try read { db in try fetchRun(id, in: db) }
    }

    /// Whether the run still waits for the box to name its session while some of its messages are ready to go.
    public func runIsHolding(_ id: SessionRun.ID) throws -> Bool {
        try read { db in
            try !db.query(
                """
                SELECT 1 FROM runs JOIN messages ON messages.run = runs.id
                WHERE runs.id = ? AND runs.state = 'assigning' AND messages.state = 'pending' LIMIT 1
                """, [.text(id.rawValue)]
            ).isEmpty
        }
    }

    /// The box accepted one of the run's messages, sent to `session` (`"new"` or an id). A run whose first message
    /// went to an id now knows its session, and so do its messages; one whose first went out as `"new"` waits for
    /// the assignment (unless it was learnt meanwhile — the box's event can arrive before its HTTP answer).
    public func recordRunAccepted(_ id: SessionRun.ID, message: MessageID, sentTo session: String, now: Date = Date())
        throws
    {
        try write { db in
            guard let run = try fetchRun(id, in: db), run.state != .known else { return }
            if session == "new" {
                guard run.state == .open else { return }
                try db.execute(
                    "UPDATE runs SET state = 'assigning', first_message = ?, updated_at = ? WHERE id = ?",
                    [.text(message.rawValue), .real(now.timeIntervalSince1970), .text(id.rawValue)])
            } else {
                try know(id, session: session, now: now, in: db)
            }
        }
    }

    /// The box named the session the run's first message opened: the run and all its messages (sent or not) are in
    /// it, so their retranscription answers carry it.
    public func assignRunSession(_ id: SessionRun.ID, session: String, now: Date = Date()) throws {
        try write { db in
            guard try fetchRun(id, in: db) != nil else { throw StoreError.unknownRun(id) }
            try know(id, session: session, now: now, in: db)
        }
    }

    private func know(_ id: SessionRun.ID, session: String, now: Date, in db: SQLiteDatabase) throws {
        try db.execute(
            "UPDATE runs SET state = 'known', session = ?, updated_at = ? WHERE id = ?",
            [.text(session), .real(now.timeIntervalSince1970), .text(id.rawValue)])
        try db.execute(
            "UPDATE messages SET session = ?, session_unresolved = 0, updated_at = ? WHERE run = ?",
            [.text(session), .real(now.timeIntervalSince1970), .text(id.rawValue)])
    }

    func fetchRun(_ id: SessionRun.ID, in db: SQLiteDatabase) throws -> SessionRun? {
        guard
            let row = try db.query(
                "SELECT id, box, requested, state, session, first_message, updated_at FROM runs WHERE id = ?",
                [.text(id.rawValue)]
            ).first,
            let state = row[3].text.flatMap(SessionRun.State.init(rawValue:))
        else { return nil }
        return SessionRun(
            id: id, box: BoxReference(storeKey: row[1].text ?? ""), requested: row[2].text, state: state,
            session: row[4].text,
            firstMessage: row[5].text.flatMap(MessageID.init(exactly:)),
            updatedAt: Date(timeIntervalSince1970: row[6].real ?? 0))
    }
}
