import BoxVoiceContract
import BoxVoiceLive
import EditDistance
import Foundation

/// What a user sets once instead of on every command line (`$XDG_CONFIG_HOME/boxvoice/config.json`). Flags override
/// it; the daemon reads it at each turn, so `boxvoice config set device …` needs no restart.
public struct UserSettings: Sendable, Equatable {
    /// The ALSA capture PCM.
    public var device: String?
    /// A self-contained ALSA configuration the capture device is looked up in (a user's own PCM definitions).
    public var alsaConfig: String?
    /// The paired box to dictate to (else the selected one).
    public var box: String?
    /// Another vocabulary file for the spoken commands.
    public var vocabulary: String?
    /// What happens to what was said when the input ends.
    public var onEOF: DictationStateMachine.EndOfInputPolicy?
    /// Hotkey turns: a spoken send also closes the microphone (off: it keeps listening for the next message).
    public var closeAfterSend = false
    /// Desktop notifications for daemon turns.
    public var notifications = true
    /// Short sounds through ALSA at start, stop and sent.
    public var sounds = false
    /// The ALSA playback PCM for the sounds.
    public var soundDevice: String?
    /// The daemon keeps the microphone open between turns, holding the last half second in memory only, so a turn
    /// starts with what was said just before the key press.
    public var preRoll = false
    /// When the live recognizer hears the audio through speexdsp's noise suppression (the recording stays as
    /// captured): by default only in a noisy room; `boxvoice calibrate` sets on or off by what finds more of the
    /// user's takes in their room.
    public var frontEnd = FrontEndUse.auto
    /// Whose text each utterance carries: Whisper at the utterance's end (pocketsphinx standing in when it is
    /// late), or pocketsphinx alone (lighter on an old machine, and what the spotter's tuning was measured with).
    public var recognizer = RecognizerChoice.whisper

    public init() {}

    /// Every key `config set` accepts, with what it takes.
    public enum Kind: Sendable, Equatable {
        case text, path, boolean
        case choice([String])
    }

    /// One setting: its key in the file and on the command line, what it takes, and how it is read and written
    /// (`nil` puts it back to its default). Everything below is driven by this one table.
    struct Field: Sendable {
        let key: String
        let kind: Kind
        let help: String
        let get: @Sendable (UserSettings) -> String?
        let set: @Sendable (inout UserSettings, String?) -> Void
    }

    static let fields: [Field] = [
        Field(
            key: "device", kind: .text, help: "ALSA capture PCM (boxvoice devices lists them)",
            get: { $0.device }, set: { $0.device = $1 }),
        Field(
            key: "alsa-config", kind: .path,
            help: "a self-contained ALSA configuration file the device is looked up in",
            get: { $0.alsaConfig }, set: { $0.alsaConfig = $1 }),
        Field(key: "box", kind: .text, help: "the paired box to dictate to", get: { $0.box }, set: { $0.box = $1 }),
        Field(
            key: "vocabulary", kind: .path, help: "another spoken-command vocabulary file",
            get: { $0.vocabulary }, set: { $0.vocabulary = $1 }),
        Field(
            key: "on-eof", kind: .choice(DictationStateMachine.EndOfInputPolicy.allCases.map(\.rawValue)),
            help: "what happens to what was said when the input ends",
            get: { $0.onEOF?.rawValue },
            set: { $0.onEOF = $1.flatMap(DictationStateMachine.EndOfInputPolicy.init(rawValue:)) }),
        Field(
            key: "close-after-send", kind: .boolean, help: "hotkey turns: a spoken send also closes the microphone",
            get: { String($0.closeAfterSend) },
            set: { $0.closeAfterSend = $1.map { $0 == "true" } ?? UserSettings().closeAfterSend }),
        Field(
            key: "notifications", kind: .boolean, help: "desktop notifications for daemon turns",
            get: { String($0.notifications) },
            set: { $0.notifications = $1.map { $0 == "true" } ?? UserSettings().notifications }),
        Field(
            key: "sounds", kind: .boolean, help: "short sounds at start, stop and sent",
            get: { String($0.sounds) }, set: { $0.sounds = $1.map { $0 == "true" } ?? UserSettings().sounds }),
        Field(
            key: "sound-device", kind: .text, help: "ALSA playback PCM for the sounds",
            get: { $0.soundDevice }, set: { $0.soundDevice = $1 }),
        Field(
            key: "pre-roll", kind: .boolean,
            help: "the daemon keeps the microphone open so a turn starts half a second before the key press",
            get: { String($0.preRoll) }, set: { $0.preRoll = $1.map { $0 == "true" } ?? UserSettings().preRoll }),
        Field(
            key: "front-end", kind: .choice(FrontEndUse.allCases.map(\.rawValue)),
            help:
                "when the live recognizer hears the audio noise-suppressed: auto (in a noisy room), on, off; "
                + "recordings stay raw; calibrate sets it",
            get: { $0.frontEnd.rawValue },
            set: { $0.frontEnd = $1.flatMap(FrontEndUse.init(rawValue:)) ?? UserSettings().frontEnd }),
        Field(
            key: "recognizer", kind: .choice(RecognizerChoice.allCases.map(\.rawValue)),
            help:
                "whose text each utterance carries: whisper (pocketsphinx standing in when it is late) or pocketsphinx "
                + "alone",
            get: { $0.recognizer.rawValue },
            set: { $0.recognizer = $1.flatMap(RecognizerChoice.init(rawValue:)) ?? UserSettings().recognizer }),
    ]

    /// Every key `config set` accepts, with what it takes.
    public static var keys: [(key: String, kind: Kind, help: String)] { fields.map { ($0.key, $0.kind, $0.help) } }

    /// A setting that cannot be used: the key and what is wrong, in words.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let key: String?
        public let message: String
        public var description: String { message }
    }

    /// Reads the file's bytes; an unknown key, a wrong type or a value out of its choices names the key.
    public static func decode(_ data: Data) throws(Problem) -> UserSettings {
        let (settings, dropped) = decodeKeeping(data)
        if let first = dropped.first { throw first }
        return settings
    }

    /// Reads what can be used of a damaged file, for repairing it: each setting that is unknown or has a bad value
    /// is left out and said in `dropped` (a file that is not a JSON object of settings drops everything).
    public static func decodeKeeping(_ data: Data) -> (settings: UserSettings, dropped: [Problem]) {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }) { return (UserSettings(), []) }
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: data) else {
            return (UserSettings(), [Problem(key: nil, message: "is not a JSON object of settings")])
        }
        var settings = UserSettings()
        var dropped: [Problem] = []
        for key in object.keys.sorted() {
            let text: String
            switch object[key]! {
            case .bool(let value): text = String(value)
            case .string(let value): text = value
            case .null: continue
            default:
                dropped.append(Problem(key: key, message: "'\(key)' must be \(describe(kind(of: key)))"))
                continue
            }
            if kind(of: key) == .boolean, case .string = object[key]! {
                dropped.append(
                    Problem(key: key, message: "'\(key)' must be true or false (without quotes), not \"\(text)\""))
                continue
            }
            do {
                try settings.set(key, text)
            } catch {
                dropped.append(error)
            }
        }
        return (settings, dropped)
    }

    private static func field(_ key: String) -> Field? { fields.first { $0.key == key } }

    private static func kind(of key: String) -> Kind? { field(key)?.kind }

    private static func describe(_ kind: Kind?) -> String {
        switch kind {
        case .boolean: "true or false"
        case .choice(let words): "one of " + words.joined(separator: ", ")
        default: "text"
        }
    }

    /// Sets one key from the text a user typed (`config set sounds true`).
    public mutating func set(_ key: String, _ text: String) throws(Problem) {
        guard let field = Self.field(key) else { throw Self.unknown(key) }
        switch field.kind {
        case .text, .path:
            guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                throw Problem(key: key, message: "'\(key)' needs a value, not an empty one or control characters")
            }
        case .boolean:
            guard text == "true" || text == "false" else {
                throw Problem(key: key, message: "'\(key)' must be true or false, not '\(text)'")
            }
        case .choice(let words):
            guard words.contains(text) else {
                throw Problem(
                    key: key, message: "'\(key)' must be one of \(words.joined(separator: ", ")), not '\(text)'")
            }
        }
        field.set(&self, text)
    }

    /// Forgets a key (back to its default).
    public mutating func unset(_ key: String) throws(Problem) {
        guard let field = Self.field(key) else { throw Self.unknown(key) }
        field.set(&self, nil)
    }

    /// Every key with its value (nil: not set, the built-in default applies).
    public var values: [(key: String, value: String?)] { Self.fields.map { ($0.key, $0.get(self)) } }

    /// The file's text: set values only, keys sorted, booleans as JSON booleans.
    public func encoded() -> Data {
        var object: [String: JSONValue] = [:]
        for (key, value) in values {
            guard let value else { continue }
            object[key] = Self.kind(of: key) == .boolean ? .bool(value == "true") : .string(value)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(JSONValue.object(object))) ?? Data("{}".utf8)) + Data("\n".utf8)
    }

    private static func unknown(_ key: String) -> Problem {
        let names = keys.map(\.key)
        let hint = Suggestion.nearest(to: key, among: names).map { "; did you mean '\($0)'?" } ?? ""
        return Problem(
            key: key, message: "'\(key)' is not a setting\(hint) (settings: \(names.joined(separator: ", ")))")
    }
}
