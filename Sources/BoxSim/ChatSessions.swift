import Foundation

/// The box's chat sessions as a client can observe them (contract §2, §5): which ids take messages, which are being
/// deleted, which is the default, and which are busy with a run. Kept in the data folder, like the box's own.
struct ChatSessions: Sendable {
    enum Availability: String, Codable, Sendable {
        case live
        /// Being deleted: every send to it is 410.
        case deleting
    }

    private struct File: Codable {
        var sessions: [String: Availability]
        var defaultSession: String?
    }

    private let path: String
    private(set) var sessions: [String: Availability]
    /// What `GET /api/chat/default` names; it moves (see `started(_:)`, `assigned(_:)`).
    private(set) var defaultSession: String?
    private var busyUntil: [String: Date] = [:]

    init(directory: String, configured defaultSession: String?, extra: [String], seen: [String]) {
        path = directory + "/sessions.json"
        let saved = FileManager.default.contents(atPath: path).flatMap {
            try? JSONDecoder().decode(File.self, from: $0)
        }
        sessions = saved?.sessions ?? [:]
        self.defaultSession = saved?.defaultSession
        for id in extra + seen where sessions[id] == nil { sessions[id] = .live }
        if let defaultSession {
            // A default named when the box starts is where it is now.
            sessions[defaultSession] = .live
            self.defaultSession = defaultSession
        }
        save()
    }

    func availability(_ id: String) -> Availability? { sessions[id] }

    func isBusy(_ id: String, now: Date) -> Bool { (busyUntil[id] ?? .distantPast) > now }

    /// A run started in `id` (not a queued send): it becomes the default, and stays busy for `turnSeconds`.
    mutating func started(_ id: String, now: Date, turnSeconds: Double) {
        if turnSeconds > 0 { busyUntil[id] = now.addingTimeInterval(turnSeconds) }
        defaultSession = id
        save()
    }

    /// A `"new"` send got its session: it exists and is the default.
    mutating func assigned(_ id: String) {
        sessions[id] = .live
        defaultSession = id
        save()
    }

    /// Another client moved the default, or cleared it (simulator control).
    mutating func setDefault(_ id: String?) {
        if let id, sessions[id] == nil { sessions[id] = .live }
        defaultSession = id
        save()
    }

    /// A session is being deleted (410 to every send), or is gone (404 to an exact send, 410 otherwise).
    mutating func set(_ id: String, to availability: Availability?) {
        sessions[id] = availability
        if availability != .live, defaultSession == id { defaultSession = nil }
        save()
    }

    private func save() {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(File(sessions: sessions, defaultSession: defaultSession)) else { return }
        try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
