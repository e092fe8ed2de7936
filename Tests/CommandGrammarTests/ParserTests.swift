import BoxVoiceTestSupport
import CommandGrammar
import Testing

/// The options and arguments of the program below, read by the same values the grammar is built from.
private enum Given {
    static let device = Option.text("--device", placeholder: "PCM", help: "the device")
    static let input = Option.path("--input", help: "a file")
    static let maxSeconds = Option.number("--max-seconds", 0.1...604_800, unit: "seconds", help: "stop after")
    static let segmentSeconds = Option.number(
        "--segment-seconds", 1...3_600, unit: "seconds", default: "60", help: "segment")
    static let cutSearchSeconds = Option.number("--cut-search-seconds", 0.02...3_600, unit: "seconds", help: "search")
    static let takes = Option.integer("--takes", 1...10, unit: "takes", default: "3", help: "takes")
    static let format = Option.choice("--format", ["FLOAT_LE", "S16_LE"], help: "format")
    static let rejects = Option.list("--rejects", allowed: ["wav", "ogg"], help: "formats")
    static let json = Option.flag("--json", help: "json")
    static let force = Option.flag("--force", help: "force")
    static let atStart = Option.flag("--at-start", help: "start")
    static let id = ArgumentSpec("ID", help: "a message id")
    static let paths = ArgumentSpec("PATH", .path, repeating: true, help: "files")
    static let text = ArgumentSpec("TEXT", help: "text")
}

/// A small program with every kind of option, verb and rule the real ones use.
private let program = ProgramSpec(
    "tool", summary: "a test program",
    commands: [
        CommandSpec(
            "record", summary: "record",
            options: [
                Given.device, Given.input, Given.maxSeconds, Given.segmentSeconds, Given.cutSearchSeconds, Given.takes,
                Given.format, Given.rejects, Given.json,
            ], exclusive: [[Given.device, Given.input]],
            check: { invocation in
                guard let search = invocation[Given.cutSearchSeconds], let segment = invocation[Given.segmentSeconds],
                    search >= segment
                else { return nil }
                return "--cut-search-seconds must be shorter than the segment"
            }),
        CommandSpec(
            "outbox", summary: "outbox", options: [Given.json],
            verbs: [
                CommandSpec("list", summary: "list"),
                CommandSpec("send", summary: "send", options: [Given.force], arguments: [Given.id]),
            ], defaultVerb: "list"),
        CommandSpec("repair", summary: "repair", arguments: [Given.paths]),
        CommandSpec(
            "keywords", summary: "keywords",
            verbs: [
                CommandSpec("detect", summary: "detect", options: [Given.atStart], arguments: [Given.text]),
                CommandSpec("validate", summary: "validate", arguments: [ArgumentSpec("DIR", .path, help: "folder")]),
            ]),
    ])

private func run(_ argv: String...) throws -> Invocation {
    guard case .run(let invocation) = try CommandLineParser(program).parse(argv) else {
        throw UsageError(.inconsistent, "not a run")
    }
    return invocation
}

private func problem(_ argv: String...) -> UsageError? {
    do {
        _ = try CommandLineParser(program).parse(argv)
        return nil
    } catch {
        return error
    }
}

@Suite struct ParserTests {
    /// What the grammar guarantees is read without a force unwrap: a default or a given argument is there, and a
    /// name the command line lacks is a usage error naming it.
    @Test func aRequiredValueIsTheDefaultTheArgumentOrAUsageError() throws {
        #expect(try run("record")[Given.takes] == 3)
        #expect(try run("outbox", "send", "X1").required(Given.id) == "X1")
        let invocation = try run("record")
        #expect(throws: UsageError(.missingArgument, "record needs --device", subject: "--device")) {
            try invocation.required(Given.device)
        }
    }

    @Test func valuesAreReadInEitherSpellingAndDefaultsApply() throws {
        let invocation = try run("record", "--device", "hw:1", "--max-seconds=2.5", "--json")
        #expect(invocation[Given.device] == "hw:1")
        #expect(invocation[Given.maxSeconds] == 2.5)
        #expect(invocation[Given.segmentSeconds] == 60)
        #expect(invocation[Given.takes] == 3)
        #expect(invocation[Given.json])
        #expect(!invocation.has(Given.segmentSeconds))
        #expect(invocation[Given.format] == nil)
        #expect(try run("record", "--rejects", "WAV,ogg")[Given.rejects] == ["wav", "ogg"])
    }

    @Test(arguments: ["1e15", "99999999999999999999", "nan", "inf", "-3", "0", "0x10", "", "١٢", "3 s", "1e300", "-0"])
    func aNumberOutsideItsRangeOrNotDecimalNamesTheOptionAndTheRange(_ value: String) {
        let error = problem("record", "--max-seconds", value)
        #expect(error?.code == .badValue)
        #expect(error?.subject == "--max-seconds")
        #expect(error?.message == "--max-seconds takes a number of seconds from 0.1 to 604800, not '\(value)'")
    }

    @Test func wholeNumbersRefuseFractions() {
        #expect(
            problem("record", "--takes", "2.5")?.message
                == "--takes takes a whole number of takes from 1 to 10, not '2.5'")
        #expect(problem("record", "--takes", "11")?.code == .badValue)
    }

    @Test func anUnknownOptionIsNamedWithTheNearestKnownOne() {
        #expect(
            problem("record", "--max-secnds", "3")?.message
                == "unknown option '--max-secnds'; did you mean '--max-seconds'?")
        #expect(problem("record", "--zzzzzzzz")?.message == "unknown option '--zzzzzzzz'")
        #expect(problem("record", "-x")?.code == .unknownOption)
    }

    @Test func anUnknownOptionIsReportedBeforeAMissingArgument() {
        #expect(problem("outbox", "send", "--bogus")?.code == .unknownOption)
    }

    @Test func aMissingValueIsSaidAsSuchNotTakenFromTheNextOption() {
        #expect(problem("record", "--device", "--json")?.message == "--device needs a value (PCM)")
        #expect(problem("record", "--device")?.code == .missingValue)
        #expect(problem("record", "--json=yes")?.message == "--json takes no value")
    }

    @Test func exclusiveOptionsAndCrossChecksAreRefused() {
        #expect(problem("record", "--device", "d", "--input", "f.wav")?.message == "give --device or --input, not both")
        #expect(problem("record", "--segment-seconds", "10", "--cut-search-seconds", "20")?.code == .inconsistent)
        #expect(problem("record", "--device", "a", "--device", "b")?.code == .repeatedOption)
    }

    @Test func choicesAndListsAreChecked() {
        #expect(problem("record", "--format", "F32")?.message == "--format must be FLOAT_LE or S16_LE, not 'F32'")
        #expect(problem("record", "--rejects", "wav,mp3")?.message == "--rejects takes words among wav, ogg, not 'mp3'")
        #expect(problem("record", "--device", "")?.message == "--device needs a value, not an empty one")
    }

    @Test func verbsTheirDefaultTheirOptionsAndArguments() throws {
        #expect(try run("outbox").verb == "list")
        let send = try run("outbox", "--json", "send", "ABC", "--force")
        #expect(send.verb == "send" && send.argument(Given.id) == "ABC" && send[Given.force] && send[Given.json])
        #expect(
            problem("outbox", "sned", "X")?.message
                == "'sned' is not something outbox does; did you mean 'send'? (list or send)")
        #expect(problem("outbox", "send")?.message == "outbox send needs ID: a message id")
        #expect(problem("outbox", "list", "--force")?.message == "--force is not an option of outbox list")
        #expect(problem("outbox", "list", "extra")?.code == .unexpectedArgument)
        #expect(problem("keywords")?.message == "keywords needs one of detect or validate")
    }

    @Test func repeatingArgumentsAndTheEndOfOptions() throws {
        #expect(try run("repair", "a.wav", "b.wav").arguments(Given.paths) == ["a.wav", "b.wav"])
        #expect(try run("keywords", "detect", "--", "--at-start").argument(Given.text) == "--at-start")
        #expect(try run("repair", "-").arguments(Given.paths) == ["-"])
        #expect(problem("repair")?.code == .missingArgument)
    }

    @Test func helpVersionAndUnknownCommands() throws {
        guard case .help(let command?, let verb?) = try CommandLineParser(program).parse(["outbox", "send", "--help"])
        else {
            Issue.record("no help")
            return
        }
        #expect(command.name == "outbox" && verb.name == "send")
        for spelling in ["--version", "-V"] {
            guard case .version = try CommandLineParser(program).parse([spelling]) else {
                Issue.record("no version for \(spelling)"); return
            }
        }
        #expect(
            problem("recrod")?.message == "unknown command 'recrod'; did you mean 'record'? (`tool --help` lists them)")
        #expect(problem("--bogus")?.code == .unknownOption)
    }

    /// Every string a user can type, in any order: the parser answers (a run, help or one usage error), never traps.
    @Test func randomCommandLinesNeverTrap() {
        let pieces = [
            "record", "outbox", "send", "list", "repair", "keywords", "detect", "--device", "--input", "--max-seconds",
            "--segment-seconds", "--cut-search-seconds", "--takes", "--format", "--rejects", "--json", "--force",
            "--at-start", "--", "-", "-h", "--help", "=", "--=", "--json=", "1e309", "-1", "nan", "", "é", "\u{0}",
            "FLOAT_LE", "wav,ogg", ",", "3", "0.5", "--max-seconds=", "--device=x", "日本語",
        ]
        var generator = SeededRandom(seed: 7)
        var outcomes = [0, 0, 0]
        for _ in 0..<20_000 {
            let argv = (0..<Int(generator.next() % 7)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }
            do {
                switch try CommandLineParser(program).parse(argv) {
                case .run: outcomes[0] += 1
                default: outcomes[1] += 1
                }
            } catch {
                outcomes[2] += 1
                #expect(!error.message.contains("\n"))
                #expect(!error.message.isEmpty)
            }
        }
        #expect(outcomes.allSatisfy { $0 > 100 }, "\(outcomes)")
    }
}
