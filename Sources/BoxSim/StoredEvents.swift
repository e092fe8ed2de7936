import Foundation

/// The box's stored (tracked) events, kept in the data folder as the box keeps them in SQLite (contract §7.1): ids
/// increase across restarts and are never reused (AUTOINCREMENT), and events older than a day are pruned when the
/// box starts.
struct StoredEvents: Sendable {
    struct Event: Codable, Sendable, Equatable {
        var id: Int
        var name: String
        /// The event's payload as JSON text.
        var data: String
        var at: Date
    }

    private struct File: Codable {
        var lastId: Int
        var events: [Event]
    }

    static let retention: TimeInterval = 24 * 3_600
    private let path: String
    private(set) var lastId: Int
    private(set) var events: [Event]

    /// Loads what an earlier run stored, pruning what is more than a day old.
    init(directory: String, now: Date = Date()) throws {
        path = directory + "/events.json"
        if let data = FileManager.default.contents(atPath: path) {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let file = try decoder.decode(File.self, from: data)
            lastId = file.lastId
            events = file.events.filter { now.timeIntervalSince($0.at) < Self.retention }
        } else {
            lastId = 0
            events = []
        }
        save()
    }

    /// Stores an event under the next id.
    mutating func append(name: String, data: String, at: Date = Date()) -> Event {
        lastId += 1
        let event = Event(id: lastId, name: name, data: data, at: at)
        events.append(event)
        save()
        return event
    }

    /// The events after `lastEventId`, in order. Only a positive number names a point to resume from: "0", "" and
    /// anything non-numeric replay nothing.
    func after(_ lastEventId: String) -> [Event] {
        guard let last = Int(lastEventId), last > 0 else { return [] }
        return events.filter { $0.id > last }
    }

    private func save() {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(File(lastId: lastId, events: events)) else { return }
        try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
