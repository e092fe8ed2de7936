/// A section-1 man page (roff) from the same spec as `--help`, so the page cannot say something the parser does not do.
public enum ManPage {
    public static func render(_ program: ProgramSpec, version: String) -> String {
        var page = [
            ".TH \(program.name.uppercased()) 1 \"\" \"\(program.name) \(version)\" \"User Commands\"",
            ".SH NAME", "\(program.name) \\- \(escape(program.summary))",
            ".SH SYNOPSIS", ".B \(program.name)", "\\fICOMMAND\\fR [\\fIOPTIONS\\fR]", ".br", ".B \(program.name)",
            "\\-\\-version | \\-V | \\-\\-help",
        ]
        page.append(".SH COMMANDS")
        for command in program.commands {
            page += [".SS \(escape(command.name))", escape(command.summary) + "."]
            page += [".PP", ".nf"] + HelpText.usageLines(command, program: program.name).map(escape) + [".fi"]
            if !command.about.isEmpty { page += paragraphs(command.about) }
            for verb in command.verbs where !verb.about.isEmpty {
                page += [".PP", "\\fB\(escape(verb.name))\\fR: " + escape(verb.about.replacingNewlines)]
            }
            for option in command.allOptions {
                let label =
                    "\\fB\(escape(option.name))\\fR"
                    + (option.kind == .flag ? "" : " \\fI\(escape(option.placeholder))\\fR")
                page += [".TP", label, escape(HelpText.optionLine(option, in: command, verb: nil))]
            }
        }
        for (title, text) in program.manSections {
            page +=
                [".SH \(escape(title).uppercased())", ".nf"]
                + text.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) } + [".fi"]
        }
        return page.joined(separator: "\n") + "\n"
    }

    private static func paragraphs(_ text: String) -> [String] {
        text.split(separator: "\n\n").flatMap { [".PP", escape(String($0).replacingNewlines)] }
    }

    /// Backslashes and dashes escaped; a line starting with `.` or `'` is not taken for a request.
    static func escape(_ line: String) -> String {
        var text = ""
        for character in line {
            switch character {
            case "\\": text += "\\e"
            case "-": text += "\\-"
            default: text.append(character)
            }
        }
        return text.hasPrefix(".") || text.hasPrefix("'") ? "\\&" + text : text
    }
}

extension String {
    var replacingNewlines: String { split(separator: "\n").joined(separator: " ") }
}
