import Foundation

extension MessageStore {
    /// Waits after each uncertain attempt: 10 s, 30 s, 60 s, then every 120 s.
    public static let backoff: [TimeInterval] = [10, 30, 60, 120]

    /// Pending messages whose next attempt is due, oldest first; `ignoringBackoff` takes every pending one (the user
    /// asked now, or a new command started: the box may be back).
    public func due(box: String? = nil, now: Date = Date(), ignoringBackoff: Bool = false) throws -> [DictatedMessage] {
        try read { db in
            var clause = "WHERE state = 'pending'"
            var values: [SQLiteValue] = []
            if !ignoringBackoff {
                clause += " AND (next_attempt_at IS NULL OR next_attempt_at <= ?)"
                values.append(.real(now.timeIntervalSince1970))
            }
            if let box {
                clause += " AND box = ?"
                values.append(.text(box))
            }
            return try select(clause + " ORDER BY command_at, recorded_at, id", values, in: db)
        }
    }

    /// Boxes that have messages pending or awaiting HQ (what `outbox retry` must visit).
    public func boxesWithWork() throws -> [String] {
        try read { db in
            try db.query("SELECT DISTINCT box FROM messages WHERE state IN ('pending', 'awaiting-hq') ORDER BY box").compactMap { $0[0].text }
        }
    }

    /// The box accepted it.
    public func recordAccepted(_ id: MessageID, outcome: String) throws {
        try write { db in
            try change(id, .accepted, [("outcome", .text(outcome)), ("next_attempt_at", .null), ("last_error", .null), ("failure", .null),
                                       ("attempts", .integer(Int64(try attempts(id, in: db) + 1)))], in: db)
        }
    }

    /// The outcome is unknown: tried again after the backoff, with the same id.
    public func recordUncertain(_ id: MessageID, reason: String, now: Date = Date()) throws {
        try write { db in
            let attempts = try attempts(id, in: db) + 1
            let wait = Self.backoff[min(attempts - 1, Self.backoff.count - 1)]
            try change(id, .uncertain, [("attempts", .integer(Int64(attempts))), ("last_error", .text(reason)),
                                        ("failure", .text(DeliveryFailureKind.uncertain.rawValue)),
                                        ("next_attempt_at", .real(now.timeIntervalSince1970 + wait))], in: db)
        }
    }

    /// The box refused it for good (or the device must re-pair). After an earlier uncertain attempt the first may
    /// have arrived, so it is `possiblyDelivered` rather than `failed`. Returns the state it is now in.
    @discardableResult
    public func recordRefused(_ id: MessageID, kind: DeliveryFailureKind, reason: String, afterUncertainAttempt: Bool) throws -> MessageState {
        try write { db in
            let transition: MessageTransition = afterUncertainAttempt && kind == .refused ? .refusedAfterUncertain : .refused
            return try change(id, transition, [("attempts", .integer(Int64(try attempts(id, in: db) + 1))), ("last_error", .text(reason)),
                                               ("failure", .text(kind.rawValue)), ("next_attempt_at", .null)], in: db).state
        }
    }

    private func attempts(_ id: MessageID, in db: SQLiteDatabase) throws -> Int {
        Int(try db.query("SELECT attempts FROM messages WHERE id = ?", [.text(id.rawValue)]).first?.first?.integer ?? 0)
    }
}
