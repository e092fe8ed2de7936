import Foundation
import Synchronization

/// A paired device, as the box keeps it.
public struct SimDevice: Codable, Sendable, Equatable {
    public var deviceId: String
    public var label: String
    public var token: String
    public var pairedAt: Date
    /// The `bbx_mobile` cookie value that authenticates like the token (absent in data from before cookies).
    public var cookie: String?
}

/// A message the box accepted through `chat/send`.
public struct SimMessage: Codable, Sendable, Equatable {
    public var messageId: String
    public var message: String
    public var session: String
    public var receivedAt: Date
    public var turnId: String?
    public var queued: Bool
}

/// One `transcribe-audio` call, as boxsim saw it (for tests and people to inspect).
public struct SimTranscription: Codable, Sendable, Equatable {
    public var at: Date
    /// The `session` field, when it came before the file part.
    public var session: String?
    /// Text fields sent after the file part: never read, as on the real box.
    public var ignoredFields: [String]
    public var filename: String?
    /// The audio format the box guesses from the filename extension.
    public var guessedFormat: String
    public var bytes: Int
    public var sampleRate: Int?
    public var channels: Int?
    public var float32: Bool?
    public var frames: Int64?
    /// How the audio was stored, as decoded (`wav`, `ogg-opus`, …).
    public var container: String? = nil
    public var status: Int
    public var text: String?
}

/// What boxsim keeps in its data folder, written through on every change so a restart keeps it (as a real box would).
/// Pairing tickets are not here: they die with the process, like the box's.
final class BoxSimRecords: Sendable {
    /// The lists, changed only through `withLock`; each change is written through before the lock is released.
    struct Lists {
        fileprivate let directory: String
        private(set) var devices: [SimDevice]
        private(set) var messages: [SimMessage]
        private(set) var transcriptions: [SimTranscription]

        mutating func addDevice(_ device: SimDevice) {
            devices.append(device)
            save(devices, "devices.json")
        }

        mutating func addMessage(_ message: SimMessage) {
            messages.append(message)
            save(messages, "messages.json")
        }

        mutating func addTranscription(_ transcription: SimTranscription) {
            transcriptions.append(transcription)
            save(transcriptions, "transcriptions.json")
        }

        private func save<T: Encodable>(_ value: T, _ name: String) {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            guard let data = try? encoder.encode(value) else { return }
            try? data.write(to: URL(fileURLWithPath: directory + "/" + name), options: .atomic)
        }
    }

    private let lists: Mutex<Lists>

    init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        lists = Mutex(
            Lists(
                directory: directory, devices: try Self.load(directory + "/devices.json") ?? [],
                messages: try Self.load(directory + "/messages.json") ?? [],
                transcriptions: try Self.load(directory + "/transcriptions.json") ?? []))
    }

    func withLock<T>(_ body: (inout Lists) throws -> T) rethrows -> T {
        try lists.withLock { try body(&$0) }
    }

    var messages: [SimMessage] { withLock { $0.messages } }

    private static func load<T: Decodable>(_ path: String) throws -> T? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: data)
    }
}
