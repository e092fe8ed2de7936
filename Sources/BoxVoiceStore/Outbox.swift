import Foundation

/// A message waiting for, or done with, delivery.
public struct OutboxMessage: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Committed, not yet accepted by the box (or the outcome is unknown): will be (re)sent.
        case pending
        /// The box accepted it (any 200 shape).
        case delivered
        /// The box refused it definitively (4xx) or the device must re-pair; the text is kept for the user.
        case failed
        /// Kept when dictation stopped on the mic-off command: not sent until the user says so.
        case draft
    }

    public var messageId: String
    public var box: String
    /// The session to send into; nil means "new".
    public var session: String?
    /// The framed `<speech …>` message, exactly as it will be posted.
    public var body: String
    public var state: State
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var lastError: String?
    public var createdAt: Date
    public var outcome: String?
}

/// The durable outbox (SQLite): a message is committed here before any POST, so a killed process loses nothing and
/// the next run delivers it with the same `messageId` (which the box deduplicates for 7 days).
public final class Outbox: @unchecked Sendable {
    /// Waits after each uncertain attempt: 10 s, 30 s, 60 s, then every 120 s.
    public static let backoff: [TimeInterval] = [10, 30, 60, 120]

    private let database: SQLiteDatabase
    private let lock = NSLock()

    public init(database: SQLiteDatabase) throws {
        self.database = database
        try database.execute("""
            CREATE TABLE IF NOT EXISTS outbox (
                message_id TEXT PRIMARY KEY,
                box TEXT NOT NULL,
                session TEXT,
                body TEXT NOT NULL,
                state TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at REAL,
                last_error TEXT,
                created_at REAL NOT NULL,
                outcome TEXT
            )
            """)
    }

    /// Commits a message for delivery (or as a draft). The message id must be new.
    public func add(messageId: String, box: String, session: String?, body: String, state: OutboxMessage.State = .pending, now: Date = Date()) throws {
        try lock.withLock {
            try database.execute("""
                INSERT INTO outbox (message_id, box, session, body, state, attempts, next_attempt_at, created_at)
                VALUES (?, ?, ?, ?, ?, 0, ?, ?)
                """, [.text(messageId), .text(box), session.map { .text($0) } ?? .null, .text(body), .text(state.rawValue),
                      state == .pending ? .real(now.timeIntervalSince1970) : .null, .real(now.timeIntervalSince1970)])
        }
    }

    /// Pending messages whose next attempt is due, oldest first.
    public func due(box: String? = nil, now: Date = Date()) throws -> [OutboxMessage] {
        try select("WHERE state = 'pending' AND next_attempt_at <= ?" + (box == nil ? "" : " AND box = ?") + " ORDER BY created_at, message_id",
                   [.real(now.timeIntervalSince1970)] + (box.map { [.text($0)] } ?? []))
    }

    public func all() throws -> [OutboxMessage] { try select("ORDER BY created_at, message_id", []) }

    public func message(_ id: String) throws -> OutboxMessage? { try select("WHERE message_id = ?", [.text(id)]).first }

    /// The box accepted it.
    public func markDelivered(_ id: String, outcome: String) throws {
        try update(id, "state = 'delivered', outcome = ?, next_attempt_at = NULL, last_error = NULL, attempts = attempts + 1", [.text(outcome)])
    }

    /// The outcome is unknown (network, timeout, 5xx): try again later with the same id.
    public func markUncertain(_ id: String, error: String, now: Date = Date()) throws {
        try lock.withLock {
            try database.transaction {
                let rows = try database.query("SELECT attempts FROM outbox WHERE message_id = ?", [.text(id)])
                let attempts = Int(rows.first?.first?.integer ?? 0) + 1
                let wait = Self.backoff[min(attempts - 1, Self.backoff.count - 1)]
                try database.execute("UPDATE outbox SET attempts = ?, last_error = ?, next_attempt_at = ? WHERE message_id = ?",
                                     [.integer(Int64(attempts)), .text(error), .real(now.timeIntervalSince1970 + wait), .text(id)])
            }
        }
    }

    /// The box refused it for good, or the device must re-pair: kept, shown, never retried by itself.
    public func markFailed(_ id: String, error: String) throws {
        try update(id, "state = 'failed', last_error = ?, next_attempt_at = NULL, attempts = attempts + 1", [.text(error)])
    }

    /// Makes a draft or failed message pending again, due now (`boxvoice outbox send ID` / `retry`).
    public func requeue(_ id: String, now: Date = Date()) throws {
        try update(id, "state = 'pending', next_attempt_at = ?", [.real(now.timeIntervalSince1970)])
    }

    /// Forgets a message the user discarded. Delivered messages are history and stay.
    public func discard(_ id: String) throws {
        try lock.withLock { try database.execute("DELETE FROM outbox WHERE message_id = ? AND state != 'delivered'", [.text(id)]) }
    }

    private func update(_ id: String, _ assignments: String, _ values: [SQLiteValue]) throws {
        try lock.withLock {
            try database.execute("UPDATE outbox SET \(assignments) WHERE message_id = ?", values + [.text(id)])
        }
    }

    private func select(_ clause: String, _ values: [SQLiteValue]) throws -> [OutboxMessage] {
        try lock.withLock {
            try database.query("""
                SELECT message_id, box, session, body, state, attempts, next_attempt_at, last_error, created_at, outcome
                FROM outbox \(clause)
                """, values).map { row in
                OutboxMessage(messageId: row[0].text ?? "", box: row[1].text ?? "", session: row[2].text, body: row[3].text ?? "",
                              state: OutboxMessage.State(rawValue: row[4].text ?? "") ?? .failed, attempts: Int(row[5].integer ?? 0),
                              nextAttemptAt: row[6].real.map(Date.init(timeIntervalSince1970:)), lastError: row[7].text,
                              createdAt: Date(timeIntervalSince1970: row[8].real ?? 0), outcome: row[9].text)
            }
        }
    }
}
