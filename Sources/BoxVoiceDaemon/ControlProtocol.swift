import BoxVoiceDictation
import Foundation

/// One request on the daemon's control socket: a single JSON line, `{"command": "toggle"}` or
/// `{"command": "status", "follow": true}`. Decoding is strict so a typo is an error, not a silent no-op.
public struct ControlRequest: Sendable, Equatable {
    public enum Command: String, Sendable, CaseIterable {
        /// Begin a dictation turn (the microphone opens).
        case start
        /// End the turn: what was said is sent, the microphone closes.
        case stop
        /// start when idle, else stop: the one a hotkey binds.
        case toggle
        /// Drop the message being dictated and end the turn.
        case cancel
        /// Send what was said so far and keep listening (Enter).
        case send
        /// What the daemon is doing; with `follow`, then every dictation event as it happens.
        case status
    }

    public struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { "not a control request: \(reason)" }
    }

    public var command: Command
    public var follow: Bool

    public init(_ command: Command, follow: Bool = false) {
        self.command = command
        self.follow = follow
    }

    public static func decode(_ line: String) throws(DecodingError) -> ControlRequest {
        do {
            return try JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8))
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError(reason: "expected one JSON object")
        }
    }

    public var encoded: String { jsonLine(self) }
}

extension ControlRequest: Codable {
    private enum Field: String, CodingKey {
        case command, follow
    }

    /// Any key spelled otherwise, so an unknown field can be named.
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        let all = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = all.allKeys.map(\.stringValue).sorted().first(where: { Field(rawValue: $0) == nil }) {
            throw DecodingError(reason: "unknown field '\(unknown)'")
        }
        let fields = try decoder.container(keyedBy: Field.self)
        let name: String
        let follow: Bool
        do {
            name = try fields.decode(String.self, forKey: .command)
            follow = try fields.decodeIfPresent(Bool.self, forKey: .follow) ?? false
        } catch {
            throw DecodingError(reason: "'command' must be a string and 'follow' true or false")
        }
        guard let command = Command(rawValue: name) else {
            throw DecodingError(
                reason: "unknown command '\(name)' (one of \(Command.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        guard !follow || command == .status else { throw DecodingError(reason: "only status can follow") }
        self.init(command, follow: follow)
    }

    public func encode(to encoder: Encoder) throws {
        var fields = encoder.container(keyedBy: Field.self)
        try fields.encode(command.rawValue, forKey: .command)
        if follow { try fields.encode(true, forKey: .follow) }
    }
}

/// What the daemon is doing, as its control socket reports it (the raw values are the wire spelling).
public enum DaemonState: String, Sendable, Equatable, CaseIterable, Codable {
    case idle
    case dictating
    /// The request could not be read, so nothing can be said of the state.
    case unknown
}

/// The daemon's answer: whether the command did something, the dictation state after it, and a sentence for people.
public struct ControlReply: Sendable, Equatable, Codable {
    public var ok: Bool
    public var state: DaemonState
    public var message: String

    public init(ok: Bool, state: DaemonState, message: String) {
        self.ok = ok
        self.state = state
        self.message = message
    }

    public static func decode(_ line: String) -> ControlReply? {
        try? JSONDecoder().decode(ControlReply.self, from: Data(line.utf8))
    }
}

/// A value as one JSON line, keys sorted.
public func jsonLine<Value: Encodable>(_ value: Value) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
}
