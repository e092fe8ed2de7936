import Foundation

/// A man page (roff, section 1) from text the tools already print, so the page says what `--help` says.
public enum ManPage {
    /// - Parameter sections: titled blocks of preformatted text (usage screens), printed as they are.
    public static func render(program: String, summary: String, sections: [(title: String, text: String)],
                              commands: [(name: String, summary: String, usage: String)] = []) -> String {
        var page = [".TH \(program.uppercased()) 1 \"\" \"\(program) \(BuildInfo.version)\" \"User Commands\"",
                    ".SH NAME", "\(program) \\- \(escape(summary))"]
        for (title, text) in sections {
            page += [".SH \(title)", ".nf"] + text.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) } + [".fi"]
        }
        if !commands.isEmpty {
            page.append(".SH COMMANDS")
            for command in commands {
                page += [".TP", ".B \(command.name)", escape(command.summary), ".PP", ".RS", ".nf"]
                page += command.usage.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }
                page += [".fi", ".RE"]
            }
        }
        return page.joined(separator: "\n")
    }

    /// Backslashes doubled; a line starting with `.` or `'` is not taken for a request.
    static func escape(_ line: String) -> String {
        let text = line.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return text.hasPrefix(".") || text.hasPrefix("'") ? "\\&" + text : text
    }
}
