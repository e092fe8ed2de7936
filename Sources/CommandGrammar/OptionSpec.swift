/// What an option or argument accepts. The parser checks a value against this before any command runs, so a command
/// never sees a number it cannot use (1e15 seconds, NaN, −3) or a word it does not know.
public enum ValueKind: Sendable, Equatable {
    /// Present or absent; takes no value.
    case flag
    /// Any non-empty text.
    case text
    /// A path to a file or folder (completed as a file by the shells).
    case path
    /// A finite decimal number within `range`, in `unit` ("seconds", "megabits per second").
    case number(ClosedRange<Double>, unit: String)
    /// A whole number within `range`, in `unit`.
    case integer(ClosedRange<Int>, unit: String)
    /// One of these words.
    case choice([String])
    /// Comma-separated words, each one of `allowed` (or anything when it is empty).
    case list(allowed: [String])

    var takesValue: Bool { self != .flag }
}

/// One `--name VALUE` (or `--name=VALUE`, or a flag) a command accepts.
public struct OptionSpec: Sendable {
    public let name: String
    public let kind: ValueKind
    /// What the value is called in help (`PCM`, `DIR`, `N`).
    public let placeholder: String
    public let help: String
    /// The value used when the option is absent, in the form a user would type it (checked like one).
    public let defaultValue: String?
    /// A default that depends on other values or on the machine, said in words in help only.
    public let defaultNote: String?

    public init(
        _ name: String, _ kind: ValueKind = .flag, placeholder: String? = nil, default defaultValue: String? = nil,
        defaultNote: String? = nil, help: String
    ) {
        precondition(name.hasPrefix("--"), "option names start with --")
        self.name = name
        self.kind = kind
        self.placeholder = placeholder ?? Self.placeholder(for: kind)
        self.help = help
        self.defaultValue = defaultValue
        self.defaultNote = defaultNote
    }

    static func placeholder(for kind: ValueKind) -> String {
        switch kind {
        case .flag: ""
        case .text: "TEXT"
        case .path: "FILE"
        case .number, .integer: "N"
        case .choice(let words): words.joined(separator: "|")
        case .list: "LIST"
        }
    }
}

/// A word a command takes by position (`ID`, `FILE`, `PATH...`).
public struct ArgumentSpec: Sendable {
    public let name: String
    public let kind: ValueKind
    public let help: String
    public let optional: Bool
    /// Takes every remaining word (at least one unless optional).
    public let repeating: Bool

    public init(
        _ name: String, _ kind: ValueKind = .text, optional: Bool = false, repeating: Bool = false, help: String
    ) {
        self.name = name
        self.kind = kind
        self.help = help
        self.optional = optional
        self.repeating = repeating
    }
}
