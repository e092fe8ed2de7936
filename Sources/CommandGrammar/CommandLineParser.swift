import EditDistance

/// What a command line asks for, once it is known to make sense.
public enum ParseResult: Sendable {
    case run(Invocation)
    /// `--help` anywhere (before `--`), or `help [COMMAND]`: the command (nil for the program) and verb to explain.
    case help(command: CommandSpec?, verb: CommandSpec?)
    case version
}

/// The one parser both programs use: reads a command line against a `ProgramSpec`, checks every value, and throws a
/// one-line `UsageError` for the first problem (an unknown option first: it is the likelier mistake than what it
/// leads to, such as a missing argument).
public struct CommandLineParser: Sendable {
    public let program: ProgramSpec

    public init(_ program: ProgramSpec) { self.program = program }

    public func parse(_ argv: [String]) throws(UsageError) -> ParseResult {
        guard let first = argv.first else { return .help(command: nil, verb: nil) }
        switch first {
        case "--version", "-V": return .version
        case "--help", "-h": return .help(command: nil, verb: nil)
        case "help":
            guard argv.count > 1 else { return .help(command: nil, verb: nil) }
            let command = try lookUp(argv[1])
            return .help(command: command, verb: argv.count > 2 ? command.verb(argv[2]) : nil)
        default: break
        }
        if first.hasPrefix("-") {
            throw UsageError(
                .unknownOption,
                "'\(first)' is not a command; the command comes first (`\(program.name) --help` lists them)",
                subject: first)
        }
        let command = try lookUp(first)
        let rest = Array(argv.dropFirst())
        let ended = rest.firstIndex(of: "--") ?? rest.endIndex
        if rest[..<ended].contains(where: { $0 == "--help" || $0 == "-h" }) {
            let verb = rest[..<ended].first { !$0.hasPrefix("-") }.flatMap(command.verb)
            return .help(command: command, verb: verb)
        }
        return .run(try invocation(of: command, rest))
    }

    private func lookUp(_ name: String) throws(UsageError) -> CommandSpec {
        if let command = program.command(name) { return command }
        let hint =
            Suggestion.nearest(to: name, among: program.commands.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
        throw UsageError(
            .unknownCommand, "unknown command '\(name)'\(hint) (`\(program.name) --help` lists them)", subject: name)
    }

    private func invocation(of command: CommandSpec, _ tokens: [String]) throws(UsageError) -> Invocation {
        var (given, words) = try options(of: command, in: tokens)
        let verb = try verb(of: command, taking: &words)
        let title = command.name + (verb.map { " " + $0.name } ?? "")
        let (values, flags) = try checked(given, allowed: command.options + (verb?.options ?? []), in: title)
        for group in command.exclusive + (verb?.exclusive ?? []) {
            let present = group.filter { values[$0] != nil || flags.contains($0) }
            guard present.count > 1 else { continue }
            let message =
                present.count == 2
                ? "give \(present[0]) or \(present[1]), not both"
                : "give only one of \(present.joined(separator: ", "))"
            throw UsageError(.conflict, message, subject: present[0])
        }
        let assigned = try arguments(of: verb ?? command, from: &words, in: title)
        if let extra = words.first {
            throw UsageError(
                .unexpectedArgument, "unexpected argument '\(extra)' (\(title) takes \(Self.takes(verb ?? command)))",
                subject: extra)
        }
        let invocation = Invocation(command: command, verb: verb, values: values, flags: flags, words: assigned)
        for check in [command.check, verb?.check].compactMap({ $0 }) {
            if let problem = check(invocation) { throw UsageError(.inconsistent, problem) }
        }
        return invocation
    }

    /// The options given (any of the command's or its verbs'), and the other words in order.
    private func options(of command: CommandSpec, in tokens: [String]) throws(UsageError) -> (
        given: [(option: OptionSpec, value: String?)], words: [String]
    ) {
        let known = command.allOptions
        var given: [(option: OptionSpec, value: String?)] = []
        var words: [String] = []
        var index = 0
        var ended = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if ended || token == "-" || !token.hasPrefix("-") {
                words.append(token)
                continue
            }
            if token == "--" {
                ended = true
                continue
            }
            let name = token.hasPrefix("--") ? String(token.prefix { $0 != "=" }) : token
            guard let option = known.first(where: { $0.name == name }) else {
                let hint =
                    Suggestion.nearest(to: name, among: known.map(\.name) + ["--help"]).map {
                        "; did you mean '\($0)'?"
                    } ?? ""
                throw UsageError(.unknownOption, "unknown option '\(name)'\(hint)", subject: name)
            }
            let inline: String? = token.count > name.count ? String(token.dropFirst(name.count + 1)) : nil
            if option.kind == .flag {
                if inline != nil { throw UsageError(.unexpectedValue, "\(name) takes no value", subject: name) }
                given.append((option, nil))
            } else if let inline {
                given.append((option, inline))
            } else {
                guard index < tokens.count, !(tokens[index].hasPrefix("--") && tokens[index].count > 2) else {
                    throw UsageError(.missingValue, "\(name) needs a value (\(option.placeholder))", subject: name)
                }
                given.append((option, tokens[index]))
                index += 1
            }
        }
        return (given, words)
    }

    /// The verb the first word names (taken from `words`), or the command's default one.
    private func verb(of command: CommandSpec, taking words: inout [String]) throws(UsageError) -> CommandSpec? {
        guard !command.verbs.isEmpty else { return nil }
        if let word = words.first, let match = command.verb(word) {
            words.removeFirst()
            return match
        }
        if let word = words.first, command.defaultVerb.flatMap(command.verb)?.arguments.isEmpty ?? true {
            let names = command.verbs.map(\.name)
            let hint = Suggestion.nearest(to: word, among: names).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError(
                .unknownVerb, "'\(word)' is not something \(command.name) does\(hint) (\(ValueCheck.either(names)))",
                subject: word)
        }
        if let name = command.defaultVerb { return command.verb(name) }
        throw UsageError(
            .missingVerb, "\(command.name) needs one of \(ValueCheck.either(command.verbs.map(\.name)))",
            subject: command.name)
    }

    /// Each given option checked against what `title` allows: values by name, flags apart.
    private func checked(
        _ given: [(option: OptionSpec, value: String?)], allowed: [OptionSpec], in title: String
    ) throws(UsageError) -> (values: [String: String], flags: Set<String>) {
        var values: [String: String] = [:]
        var flags = Set<String>()
        for (option, value) in given {
            guard allowed.contains(where: { $0.name == option.name }) else {
                throw UsageError(
                    .optionOfAnotherVerb, "\(option.name) is not an option of \(title)", subject: option.name)
            }
            guard let value else {
                flags.insert(option.name)
                continue
            }
            if values[option.name] != nil {
                throw UsageError(.repeatedOption, "\(option.name) is given twice; give it once", subject: option.name)
            }
            if let problem = ValueCheck.problem(value, kind: option.kind) {
                throw UsageError(.badValue, "\(option.name) \(problem)", subject: option.name)
            }
            values[option.name] = value
        }
        return (values, flags)
    }

    /// The words assigned to `spec`'s arguments in order (taken from `words`), each value checked.
    private func arguments(of spec: CommandSpec, from words: inout [String], in title: String) throws(UsageError)
        -> [String: [String]]
    {
        var assigned: [String: [String]] = [:]
        for argument in spec.arguments {
            if argument.repeating {
                if words.isEmpty && !argument.optional { throw missing(argument, in: title) }
                assigned[argument.name] = words
                words.removeAll()
            } else if let word = words.first {
                assigned[argument.name] = [word]
                words.removeFirst()
            } else if !argument.optional {
                throw missing(argument, in: title)
            }
            for word in assigned[argument.name] ?? [] {
                if let problem = ValueCheck.problem(word, kind: argument.kind) {
                    throw UsageError(.badValue, "\(argument.name) \(problem)", subject: argument.name)
                }
            }
        }
        return assigned
    }

    private func missing(_ argument: ArgumentSpec, in title: String) -> UsageError {
        UsageError(.missingArgument, "\(title) needs \(argument.name): \(argument.help)", subject: argument.name)
    }

    private static func takes(_ spec: CommandSpec) -> String {
        spec.arguments.isEmpty
            ? "no arguments" : spec.arguments.map { $0.repeating ? $0.name + "..." : $0.name }.joined(separator: " ")
    }
}
