import CommandGrammar
import BoxVoiceContract
import Foundation

/// `boxvoice docs man|bash|zsh|fish`: the man page and shell completions, generated from the command grammar the
/// parser reads, so they cannot drift from it. `make install` runs it.
enum DocsCommand: Command {
    static let kind = ArgumentSpec("KIND", .choice(["man", "bash", "zsh", "fish"]), help: "man, bash, zsh or fish")

    static let spec = CommandSpec(
        "docs", summary: "print the man page or a shell's completions (generated from the command grammar)",
        arguments: [kind])

    static func run(_ invocation: Invocation) throws -> Int32 {
        switch try invocation.required(kind) {
        case "man": Console.out(ManPage.render(Commands.program, version: BuildInfo.version))
        case "bash": Console.out(ShellCompletions.bash(Commands.program))
        case "zsh": Console.out(ShellCompletions.zsh(Commands.program))
        default: Console.out(ShellCompletions.fish(Commands.program))
        }
        return ExitStatus.success
    }
}
