/// `--help` screens, generated from the spec so they say exactly what the parser accepts.
public enum HelpText {
    /// The program's screen: its commands and their summaries.
    public static func program(_ program: ProgramSpec, footer: String = "") -> String {
        let width = (program.commands.map(\.name.count).max() ?? 0) + 2
        var lines = [
            "\(program.name) — \(program.summary)", "", "Usage: \(program.name) <command> [options]", "", "Commands:",
        ]
        for command in program.commands {
            lines += wrap(
                command.summary, width: 100, first: "  " + pad(command.name, width),
                rest: String(repeating: " ", count: width + 2))
        }
        lines += [
            "",
            "Run `\(program.name) <command> --help` for a command's options; `\(program.name) --version` for the "
                + "version.",
        ]
        if !footer.isEmpty { lines += footer.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        return lines.joined(separator: "\n")
    }

    /// One command's screen (or one verb's, which also lists the command's own options).
    public static func command(_ command: CommandSpec, verb: CommandSpec? = nil, program: String) -> String {
        var lines: [String] = []
        for (index, line) in usageLines(command, verb: verb, program: program).enumerated() {
            lines.append((index == 0 ? "Usage: " : "       ") + line)
        }
        let about = verb.map { [$0.summary, $0.about] } ?? [command.about]
        for paragraph in about where !paragraph.isEmpty {
            lines.append("")
            lines += paragraph.split(separator: "\n", omittingEmptySubsequences: false).flatMap {
                wrap(String($0), width: 100, first: "", rest: "")
            }
        }
        let unique = verb.map { command.options + $0.options } ?? command.allOptions
        if !unique.isEmpty {
            lines += ["", "Options:"]
            let labels = unique.map { "  " + $0.name + ($0.kind == .flag ? "" : " " + $0.placeholder) }
            let width = min((labels.map(\.count).max() ?? 0) + 2, 34)
            for (option, label) in zip(unique, labels) {
                let text = optionLine(option, in: command, verb: verb)
                if label.count + 2 > width {
                    lines.append(label)
                    lines += wrap(
                        text, width: 100, first: String(repeating: " ", count: width),
                        rest: String(repeating: " ", count: width))
                } else {
                    lines += wrap(
                        text, width: 100, first: pad(label, width), rest: String(repeating: " ", count: width))
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `boxvoice outbox send ID`, one line per verb (the default verb's brackets say it may be left out).
    static func usageLines(_ command: CommandSpec, verb: CommandSpec? = nil, program: String) -> [String] {
        func line(_ spec: CommandSpec, verbName: String?) -> String {
            var parts = [program, command.name]
            if let verbName { parts.append(command.defaultVerb == verbName ? "[\(verbName)]" : verbName) }
            let options = verbName == nil ? command.options : command.options + spec.options
            if !options.isEmpty { parts.append("[options]") }
            for argument in spec.arguments {
                let name = argument.repeating ? argument.name + "..." : argument.name
                parts.append(argument.optional ? "[\(name)]" : name)
            }
            return parts.joined(separator: " ")
        }
        if let verb { return [line(verb, verbName: verb.name)] }
        if command.verbs.isEmpty { return [line(command, verbName: nil)] }
        let plain = command.verbs.map { line($0, verbName: $0.name) }
        let width = (plain.map(\.count).max() ?? 0) + 3
        return zip(command.verbs, plain).map { pad($1, width) + $0.summary }
    }

    static func optionLine(_ option: OptionSpec, in command: CommandSpec, verb: CommandSpec?) -> String {
        var notes: [String] = []
        if let value = option.defaultValue {
            notes.append("default: \(value)")
        } else if let note = option.defaultNote {
            notes.append("default: \(note)")
        }
        switch option.kind {
        case .number(let range, let unit):
            notes.append("\(ValueCheck.show(range.lowerBound)) to \(ValueCheck.show(range.upperBound)) \(unit)")
        case .integer(let range, let unit): notes.append("\(range.lowerBound) to \(range.upperBound) \(unit)")
        default: break
        }
        for group in command.exclusive + (verb?.exclusive ?? []) where group.contains(option.name) {
            notes.append("not with " + group.filter { $0 != option.name }.joined(separator: ", "))
        }
        if verb == nil, !command.options.contains(where: { $0.name == option.name }) {
            let owners = command.verbs.filter { $0.options.contains { $0.name == option.name } }.map(\.name)
            notes.append("with " + owners.joined(separator: ", "))
        }
        return option.help + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// Words wrapped to `width` columns, the first line after `first`, the others after `rest`.
    static func wrap(_ text: String, width: Int, first: String, rest: String) -> [String] {
        var lines: [String] = []
        var current = first
        var empty = true
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !empty && current.count + 1 + word.count > width {
                lines.append(current)
                current = rest + word
            } else {
                current += (empty ? "" : " ") + word
            }
            empty = false
        }
        lines.append(current)
        return lines
    }
}
