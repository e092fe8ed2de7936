import BoxVoiceCore
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

    public static func decode(_ line: String) throws -> ControlRequest {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            throw DecodingError(reason: "expected one JSON object")
        }
        for key in object.keys where key != "command" && key != "follow" {
            throw DecodingError(reason: "unknown field '\(key)'")
        }
        struct Fields: Decodable {
            var command: String
            var follow: Bool?
        }
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: Data(line.utf8))
        } catch {
            throw DecodingError(reason: "'command' must be a string and 'follow' true or false")
        }
        guard let command = Command(rawValue: fields.command) else {
            throw DecodingError(reason: "unknown command '\(fields.command)' (one of \(Command.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let follow = fields.follow ?? false
        guard !follow || command == .status else { throw DecodingError(reason: "only status can follow") }
        return ControlRequest(command, follow: follow)
    }

    public var encoded: String {
        follow ? #"{"command":"\#(command.rawValue)","follow":true}"# : #"{"command":"\#(command.rawValue)"}"#
    }
}

/// What the daemon is doing, as its control socket reports it (the raw values are the wire spelling).
public enum DaemonState: String, Sendable, Equatable, CaseIterable {
    case idle
    case dictating
    /// The request could not be read, so nothing can be said of the state.
    case unknown
}

/// The daemon's answer: whether the command did something, the dictation state after it, and a sentence for people.
public struct ControlReply: Sendable, Equatable {
    public var ok: Bool
    public var state: DaemonState
    public var message: String

    public init(ok: Bool, state: DaemonState, message: String) {
        self.ok = ok
        self.state = state
        self.message = message
    }

    public var object: [String: Any] { ["ok": ok, "state": state.rawValue, "message": message] }

    public static func decode(_ line: String) -> ControlReply? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
              let ok = object["ok"] as? Bool, let state = (object["state"] as? String).flatMap(DaemonState.init(rawValue:)),
              let message = object["message"] as? String
        else { return nil }
        return ControlReply(ok: ok, state: state, message: message)
    }
}

/// One JSON object as one line, keys sorted.
public func jsonLine(_ object: [String: Any]) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
}
