/// A command line the parser accepted: every value already checked against its spec, so the typed readers below
/// cannot fail on user input (asking for an option the command never declared is a programming error).
public struct Invocation: Sendable {
    public let command: String
    public let verb: String?
    let spec: CommandSpec
    let verbSpec: CommandSpec?
    let values: [String: String]
    let flags: Set<String>
    let words: [String: [String]]

    init(
        command: CommandSpec, verb: CommandSpec?, values: [String: String], flags: Set<String>,
        words: [String: [String]]
    ) {
        self.command = command.name
        self.verb = verb?.name
        self.spec = command
        self.verbSpec = verb
        self.values = values
        self.flags = flags
        self.words = words
    }

    private func declared(_ name: String) -> OptionSpec? {
        let option = spec.options.first { $0.name == name } ?? verbSpec?.options.first { $0.name == name }
        assert(option != nil, "\(command)\(verb.map { " " + $0 } ?? ""): \(name) is not declared")
        return option
    }

    /// The option's value as given, else its declared default, in the option's own type.
    public subscript<Value>(_ option: Option<Value>) -> Value? { string(option.spec.name).flatMap(option.read) }

    /// Whether the flag was given.
    public subscript(_ option: Option<Bool>) -> Bool { flag(option.spec.name) }

    /// Whether the user gave the option (a default does not count).
    public func has(_ option: some OptionDeclaration) -> Bool { has(option.spec.name) }

    /// A positional argument's word (the first of a repeating one).
    public func argument(_ argument: ArgumentSpec) -> String? { words[argument.name]?.first }

    /// Every word of a repeating argument.
    public func arguments(_ argument: ArgumentSpec) -> [String] { words[argument.name] ?? [] }

    /// An argument the grammar guarantees: the parser refuses a command line without it, so a miss here is said as a
    /// usage error naming it rather than a crash.
    public func required(_ argument: ArgumentSpec) throws(UsageError) -> String {
        guard let value = self.argument(argument) else { throw missing(argument.name) }
        return value
    }

    /// An option with a default, or one a verb cannot run without, read the same way.
    public func required(_ option: Option<String>) throws(UsageError) -> String {
        guard let value = self[option] else { throw missing(option.spec.name) }
        return value
    }

    private func missing(_ name: String) -> UsageError {
        UsageError(.missingArgument, "\(command) needs \(name)", subject: name)
    }

    // By name: what the typed readers above are built on; commands read by `Option`.

    func has(_ name: String) -> Bool {
        _ = declared(name)
        return flags.contains(name) || values[name] != nil
    }

    func flag(_ name: String) -> Bool {
        _ = declared(name)
        return flags.contains(name)
    }

    /// The value given, else the declared default.
    func string(_ name: String) -> String? {
        values[name] ?? declared(name)?.defaultValue
    }
}

/// How values are read, shared by the check and the readers so both agree.
enum ValueCheck {
    static func decimal(_ text: String) -> Double? {
        // Only plain decimal notation: Swift also reads "0x1p3", "nan" and "infinity", none of which a user means.
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ "0123456789.eE+-".unicodeScalars.contains($0) }),
            let value = Double(text), value.isFinite
        else { return nil }
        return value
    }

    static func whole(_ text: String) -> Int? {
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ "0123456789+-".unicodeScalars.contains($0) }) else {
            return nil
        }
        return Int(text)
    }

    static func items(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmed.lowercased() }.filter { !$0.isEmpty }
    }

    static func show(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// Nil when `text` fits `kind`, else the problem, worded to follow "NAME ".
    static func problem(_ text: String, kind: ValueKind) -> String? {
        switch kind {
        case .flag: return "takes no value"
        case .text, .path:
            if text.isEmpty { return "needs a value, not an empty one" }
            if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return "cannot hold control characters"
            }
            return nil
        case .number(let range, let unit):
            guard let value = decimal(text), range.contains(value) else {
                return
                    "takes a number of \(unit) from \(show(range.lowerBound)) to \(show(range.upperBound)), not "
                    + "'\(text)'"
            }
            return nil
        case .integer(let range, let unit):
            guard let value = whole(text), range.contains(value) else {
                return "takes a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound), not '\(text)'"
            }
            return nil
        case .choice(let words):
            return words.contains(text) ? nil : "must be \(Self.either(words)), not '\(text)'"
        case .list(let allowed):
            let given = items(text)
            if given.isEmpty { return "needs at least one word" }
            if allowed.isEmpty { return nil }
            if let bad = given.first(where: { !allowed.contains($0) }) {
                return "takes words among \(allowed.joined(separator: ", ")), not '\(bad)'"
            }
            return nil
        }
    }

    static func either(_ words: [String]) -> String {
        words.count <= 1 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}

extension String {
    var trimmed: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
