import Foundation

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
final class BoxSimRecords: @unchecked Sendable {
    // @unchecked: the lists change under `lock` only, and each change is written through before it is released.
    private let directory: String
    private let lock = NSLock()
    private(set) var devices: [SimDevice]
    private(set) var messages: [SimMessage]
    private(set) var transcriptions: [SimTranscription]

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        devices = try Self.load(directory + "/devices.json") ?? []
        messages = try Self.load(directory + "/messages.json") ?? []
        transcriptions = try Self.load(directory + "/transcriptions.json") ?? []
    }

    func withLock<T>(_ body: (BoxSimRecords) throws -> T) rethrows -> T {
        try lock.withLock { try body(self) }
    }

    func addDevice(_ device: SimDevice) {
        devices.append(device)
        save(devices, "devices.json")
    }

    func addMessage(_ message: SimMessage) {
        messages.append(message)
        save(messages, "messages.json")
    }

    func addTranscription(_ transcription: SimTranscription) {
        transcriptions.append(transcription)
        save(transcriptions, "transcriptions.json")
    }

    private static func load<T: Decodable>(_ path: String) throws -> T? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: data)
    }

    private func save<T: Encodable>(_ value: T, _ name: String) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(value) else { return }
        try? data.write(to: URL(fileURLWithPath: directory + "/" + name), options: .atomic)
    }
}
