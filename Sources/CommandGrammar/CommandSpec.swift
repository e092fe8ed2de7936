/// A command (or a verb of one: `outbox send`) as data: what it takes, what it says about itself, and which
/// combinations make no sense. Help, man pages, completions and the parser all read this one value.
public struct CommandSpec: Sendable {
    public let name: String
    public let summary: String
    /// Paragraphs shown under the usage lines (why and how; the options explain themselves).
    public let about: String
    public let options: [OptionSpec]
    public let arguments: [ArgumentSpec]
    /// Verbs (`outbox send ID`): each with its own options and arguments; the command's options apply to all.
    public let verbs: [CommandSpec]
    /// The verb taken when none is given (`outbox` = `outbox list`), if any.
    public let defaultVerb: String?
    /// Groups of options of which at most one may be given (`--device`, `--input`).
    public let exclusive: [[String]]
    /// A check across values the kinds cannot express (a cut search shorter than the segment): the problem in words,
    /// naming the options, or nil.
    public let check: (@Sendable (Invocation) -> String?)?

    public init(
        _ name: String, summary: String, about: String = "", options: [any OptionDeclaration] = [],
        arguments: [ArgumentSpec] = [], verbs: [CommandSpec] = [], defaultVerb: String? = nil,
        exclusive: [[any OptionDeclaration]] = [],
        check: (@Sendable (Invocation) -> String?)? = nil
    ) {
        self.name = name
        self.summary = summary
        self.about = about
        self.options = options.map(\.spec)
        self.arguments = arguments
        self.verbs = verbs
        self.defaultVerb = defaultVerb
        self.exclusive = exclusive.map { $0.map(\.spec.name) }
        self.check = check
        precondition(Set(self.options.map(\.name)).count == options.count, "\(name): an option declared twice")
        precondition(
            defaultVerb == nil || verbs.contains { $0.name == defaultVerb }, "\(name): default verb not declared")
    }

    public func verb(_ name: String) -> CommandSpec? { verbs.first { $0.name == name } }

    /// Every option the command or any of its verbs knows, each name once (what a misspelling is compared with, what
    /// help, the man page and completions list).
    var allOptions: [OptionSpec] {
        var seen = Set<String>()
        return (options + verbs.flatMap(\.allOptions)).filter { seen.insert($0.name).inserted }
    }
}

/// A program: its commands and what its man page says beyond them.
public struct ProgramSpec: Sendable {
    public let name: String
    public let summary: String
    public let commands: [CommandSpec]
    /// Extra man page sections (EXIT STATUS, FILES, ENVIRONMENT …) as preformatted text.
    public let manSections: [(title: String, text: String)]

    public init(
        _ name: String, summary: String, commands: [CommandSpec], manSections: [(title: String, text: String)] = []
    ) {
        self.name = name
        self.summary = summary
        self.commands = commands
        self.manSections = manSections
    }

    public func command(_ name: String) -> CommandSpec? { commands.first { $0.name == name } }
}
