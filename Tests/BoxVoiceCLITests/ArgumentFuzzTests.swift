@testable import boxsim
@testable import boxvoice
import BoxVoiceTestSupport
import CommandGrammar
import Synchronization
import Foundation
import Testing

/// Ten thousand generated bad command lines: the programs' own grammars must refuse each in one line naming what is
/// wrong; a sample of them is run through both real binaries, which must exit 2 with exactly that line, never a
/// signal, a hang, or a run. The grammar is read from the programs' `--help` text, so a command or option added later
/// is fuzzed too.
@Suite struct ArgumentFuzzTests {
    struct Option {
        let name: String
        /// nil for a flag.
        let placeholder: String?
        let entry: String
        var isNumber: Bool { placeholder == "N" }
        var choices: [String]? {
            placeholder.flatMap { $0.contains("|") ? $0.split(separator: "|").map(String.init) : nil }
        }
        /// A value the option accepts (for the other half of a conflict).
        var goodValue: String {
            if let choices { return choices[0] }
            guard isNumber else { return "x" }
            if let range = entry.range(of: #"default: [0-9.]+"#, options: .regularExpression) {
                return String(entry[range].dropFirst(9))
            }
            if let range = entry.range(of: #"[0-9.]+ to "#, options: .regularExpression) {
                return String(entry[range].dropLast(4))
            }
            return "1"
        }
        /// The range its help states ("0.1 to 604800 seconds").
        var range: ClosedRange<Double>? {
            guard let found = entry.range(of: #"-?[0-9.]+ to -?[0-9.]+"#, options: .regularExpression) else {
                return nil
            }
            let bounds = entry[found].components(separatedBy: " to ").compactMap(Double.init)
            return bounds.count == 2 ? bounds[0]...bounds[1] : nil
        }
        /// The options this one may not be given with.
        var conflicts: [String] {
            guard let range = entry.range(of: #"not with [-a-z, ]+"#, options: .regularExpression) else { return [] }
            return entry[range].dropFirst(9).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { $0.hasPrefix("--") }
        }
    }

    struct Command {
        let name: String
        let verbs: [String]
        let options: [Option]
        let takesArguments: Bool
    }

    /// A program's grammar as its help shows it (the text `PROGRAM --help` and `PROGRAM NAME --help` print).
    static func grammar(of program: ProgramSpec) -> [Command] {
        let top = HelpText.program(program)
        let names = top.components(separatedBy: "Commands:\n")[1].components(separatedBy: "\n\n")[0]
            .split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        return names.map { name in
            let help = HelpText.command(program.command(name)!, program: program.name)
            let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let usage = lines.prefix { !$0.isEmpty }
            var verbs: [String] = []
            var takesArguments = false
            for line in usage {
                let words = line.split(separator: " ").map(String.init)
                guard let at = words.firstIndex(of: name), at + 1 < words.count else { continue }
                let next = words[at + 1].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                if next.first?.isLowercase == true, next != "options" { verbs.append(next) }
                if words.dropFirst(at + 1).prefix(4).contains(where: {
                    $0.first?.isUppercase == true || $0.hasPrefix("[") && $0.dropFirst().first?.isUppercase == true
                }) {
                    takesArguments = true
                }
            }
            var options: [Option] = []
            if let start = lines.firstIndex(of: "Options:") {
                var current: (String, String?, String)?
                for line in lines[(start + 1)...] {
                    if line.hasPrefix("  --") {
                        if let current {
                            options.append(Option(name: current.0, placeholder: current.1, entry: current.2))
                        }
                        // The label ends at the first double space: "--name PLACEHOLDER  help".
                        let label = line.components(separatedBy: "  ").first { !$0.isEmpty } ?? ""
                        let words = label.split(separator: " ").map(String.init)
                        let placeholder = words.count > 1 ? words[1] : nil
                        current = (words[0], placeholder, line)
                    } else if current != nil {
                        current!.2 += " " + line.trimmingCharacters(in: .whitespaces)
                    }
                }
                if let current { options.append(Option(name: current.0, placeholder: current.1, entry: current.2)) }
            }
            return Command(name: name, verbs: verbs, options: options, takesArguments: takesArguments)
        }
    }

    enum Fault: CaseIterable {
        case unknownOption, misspelledOption, badNumber, badChoice, emptyValue, missingValue, flagWithValue, conflict,
            misspelledCommand, extraArgument
    }

    struct Case: Sendable {
        let argv: [String]
        /// Words stderr must hold (all of them).
        let names: [String]
        /// The kind of mistake it was made as.
        var fault: Fault?
    }

    static let badNumbers = [
        "1e400", "1e-300", "-5", "nan", "NaN", "inf", "-inf", "", "٣", "0x10", "1,5", "99999999999999999999999",
        "1e15", "-0.0000001", " 3", "3s", "+", "e", "1e308", "４",
    ]
    static let junk = ["é", "名前", "🙂", "x", "a-b", "--", "ZZ", "\u{7F}", "Ω≈ç"]

    static func make(_ fault: Fault, in commands: [Command], random: inout SeededRandom) -> Case? {
        let command = commands[random.below(commands.count)]
        var argv = [command.name]
        if !command.verbs.isEmpty { argv.append(command.verbs[random.below(command.verbs.count)]) }
        func pick(_ filter: (Option) -> Bool) -> Option? {
            let candidates = command.options.filter(filter)
            return candidates.isEmpty ? nil : candidates[random.below(candidates.count)]
        }
        let known = Set(command.options.map(\.name) + ["--help"])
        switch fault {
        case .unknownOption:
            let name =
                "--"
                + (0..<(1 + random.below(12))).map { _ in
                    String(Array("abcdefghijklmnopqrstuvwxyz-é名0")[random.below(30)])
                }.joined()
            guard !known.contains(name), name != "--" else { return nil }
            argv.insert(name, at: 1 + random.below(argv.count))
            return Case(argv: argv, names: [name])
        case .misspelledOption:
            guard let option = pick({ _ in true }) else { return nil }
            var letters = Array(option.name)
            let at = 2 + random.below(letters.count - 2)
            switch random.below(3) {
            case 0: letters.remove(at: at)
            case 1: letters.insert(Array("aeiousx")[random.below(7)], at: at)
            default: letters[at] = Array("qzjxk")[random.below(5)]
            }
            let name = String(letters)
            guard !known.contains(name), name.count > 2, !name.hasSuffix("-") || name.count > 3 else { return nil }
            argv.append(name)
            if option.placeholder != nil { argv.append("1") }
            return Case(argv: argv, names: [name])
        case .badNumber:
            guard let option = pick(\.isNumber) else { return nil }
            let value = badNumbers[random.below(badNumbers.count)]
            // 1e-300 is a fine turn length where zero is allowed: only a value outside the range counts as bad.
            if let number = Double(value), number.isFinite, value.allSatisfy({ "0123456789.e-".contains($0) }),
                let range = option.range, range.contains(number)
            {
                return nil
            }
            return Case(argv: argv + [option.name, value], names: [option.name])
        case .badChoice:
            guard let option = pick({ $0.choices != nil }) else { return nil }
            let value = junk[random.below(junk.count)] + (option.choices![0].dropFirst())
            guard !option.choices!.contains(value) else { return nil }
            return Case(argv: argv + ["\(option.name)=\(value)"], names: [option.name])
        case .emptyValue:
            guard let option = pick({ $0.placeholder != nil }) else { return nil }
            return Case(argv: argv + ["\(option.name)="], names: [option.name])
        case .missingValue:
            guard let option = pick({ $0.placeholder != nil }) else { return nil }
            return Case(argv: argv + [option.name], names: [option.name])
        case .flagWithValue:
            guard let option = pick({ $0.placeholder == nil }) else { return nil }
            return Case(argv: argv + ["\(option.name)=\(junk[random.below(junk.count)])"], names: [option.name])
        case .conflict:
            guard let option = pick({ !$0.conflicts.isEmpty }),
                let other = command.options.first(where: {
                    $0.name == option.conflicts[random.below(option.conflicts.count)]
                })
            else { return nil }
            for each in [option, other] {
                argv.append(each.name)
                if each.placeholder != nil { argv.append(each.goodValue) }
            }
            return Case(argv: argv, names: [option.name, other.name])
        case .misspelledCommand:
            let name = String(command.name.dropLast()) + junk[random.below(junk.count)]
            guard !commands.contains(where: { $0.name == name }), !name.hasPrefix("-") else { return nil }
            return Case(argv: [name] + argv.dropFirst(), names: [name])
        case .extraArgument:
            guard command.verbs.isEmpty, !command.takesArguments else { return nil }
            let word = junk[random.below(junk.count)] + String(random.below(100))
            guard !word.hasPrefix("-") else { return nil }
            return Case(argv: argv + [word], names: [word])
        }
    }

    /// A program, its grammar, and the line its `main` writes for a refused command line.
    struct Program: Sendable {
        let spec: ProgramSpec
        let binary: String
        let usageLine: @Sendable (UsageError, [String]) -> String
    }

    static let programs = [
        Program(
            spec: boxvoice.Commands.program, binary: Run.boxvoice,
            usageLine: { boxvoice.Commands.usageLine($0, argv: $1) }),
        Program(
            spec: boxsim.program, binary: (Run.boxvoice as NSString).deletingLastPathComponent + "/boxsim",
            usageLine: { boxsim.usageLine($0, argv: $1) }),
    ]

    /// The same ten thousand cases every run (a fixed seed), 8,000 for boxvoice and 2,000 for boxsim.
    static let cases: [(program: Int, fuzz: Case)] = {
        var random = SeededRandom(seed: 20261201)
        var cases: [(Int, Case)] = []
        for (program, count) in [(0, 8_000), (1, 2_000)] {
            let commands = grammar(of: programs[program].spec)
            var made = 0
            while made < count {
                let fault = Fault.allCases[random.below(Fault.allCases.count)]
                guard var generated = make(fault, in: commands, random: &random) else { continue }
                generated.fault = fault
                cases.append((program, generated))
                made += 1
            }
        }
        return cases
    }()

    /// What is wrong with how a refusal was said, if anything.
    static func problem(with line: String, naming names: [String]) -> String? {
        if line.contains("\n") { return "not one line: \(line)" }
        if let missing = names.first(where: { !line.contains($0) }) { return "does not name '\(missing)': \(line)" }
        return nil
    }

    @Test func tenThousandBadCommandLinesAreEachRefusedInOneLineNamingTheOption() {
        #expect(Self.cases.count == 10_000)
        for (index, program) in Self.programs.enumerated() {
            let commands = Self.grammar(of: program.spec)
            #expect(commands.count >= (index == 1 ? 6 : 20), "\(program.spec.name): \(commands.map(\.name))")
        }
        let faults = Dictionary(grouping: Self.cases, by: { $0.fuzz.fault }).mapValues(\.count)
        #expect(Fault.allCases.allSatisfy { faults[$0, default: 0] > 100 }, "\(faults)")
        var failures: [String] = []
        for (index, fuzz) in Self.cases {
            let program = Self.programs[index]
            do {
                let parsed = try CommandLineParser(program.spec).parse(fuzz.argv)
                failures.append("\(program.spec.name) \(fuzz.argv.debugDescription): accepted as \(parsed)")
            } catch {
                if let problem = Self.problem(with: program.usageLine(error, fuzz.argv), naming: fuzz.names) {
                    failures.append("\(program.spec.name) \(fuzz.argv.debugDescription): \(problem)")
                }
            }
        }
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(Self.cases.count) failed; first: \(failures.prefix(5).joined(separator: "\n"))")
    }

    /// The real binaries print what their grammar says and exit 2: a sample spread over every fault kind.
    @Test func aSampleOfThemExitTwoFromTheRealBinariesWithThatLine() throws {
        let home = TemporaryDirectory("fuzz")
        let environment = Run.isolatedEnvironment(home)
        let sample = Fault.allCases.flatMap { fault in
            (0..<2).flatMap { program in
                Self.cases.filter { $0.program == program && $0.fuzz.fault == fault }.prefix(program == 0 ? 3 : 1)
            }
        }
        #expect(sample.count >= 30, "\(sample.count)")
        let outcomes = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: sample.count) { at in
            let (index, fuzz) = sample[at]
            let program = Self.programs[index]
            // In a folder of its own: a command line that ran by mistake (boxsim's default --data) writes there.
            let result = BoundedRun.run(
                program.binary, fuzz.argv, environment: environment, seconds: 20, directory: home.path)
            var expected = ""
            do throws(UsageError) { _ = try CommandLineParser(program.spec).parse(fuzz.argv) } catch {
                expected = program.usageLine(error, fuzz.argv) + "\n"
            }
            var problem: String?
            if result.timedOut {
                problem = "hung (killed after 20 s)"
            } else if let signal = result.signal {
                problem = "died of signal \(signal)"
            } else if result.status != 2 {
                problem = "exit \(result.status): \(result.stderr) \(result.stdout.prefix(200))"
            } else if result.stderr != expected {
                problem = "printed \(result.stderr.debugDescription), not \(expected.debugDescription)"
            }
            outcomes.withLock {
                $0.append(problem.map { "\(program.spec.name) \(fuzz.argv.debugDescription): \($0)" } ?? "")
            }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.count == sample.count)
        let failures = all.filter { !$0.isEmpty }
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(all.count) failed; first: \(failures.prefix(5).joined(separator: "\n"))")
    }
}
