/// Completion scripts for bash, zsh and fish from the spec: commands, verbs, options, and each option's values (its
/// choices, or files for a path).
public enum ShellCompletions {
    public static func bash(_ program: ProgramSpec) -> String {
        let function = "_" + program.name.replacingDashes
        var cases = ""
        for command in program.commands {
            let options = command.allOptions
            let words = command.verbs.map(\.name) + options.map(\.name) + ["--help"]
            var values = ""
            for option in options {
                switch option.kind {
                case .choice(let choices):
                    values +=
                        "            \(option.name)) COMPREPLY=($(compgen -W \"\(choices.joined(separator: " "))\" -- "
                        + "\"$current\")); return ;;\n"
                case .path:
                    values += "            \(option.name)) COMPREPLY=($(compgen -f -- \"$current\")); return ;;\n"
                case .flag: break
                default: values += "            \(option.name)) return ;;\n"
                }
            }
            cases += """
                        \(command.name))
                            case $previous in
                \(values)            esac
                            words="\(words.joined(separator: " "))" ;;

                """
        }
        return """
            # bash completion for \(program.name) (generated from its command grammar)
            \(function)() {
                local current=${COMP_WORDS[COMP_CWORD]} previous=${COMP_WORDS[COMP_CWORD-1]} words
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(program.commands.map(\.name).joined(separator: " ")) help --help \
            --version" -- "$current"))
                    return
                fi
                case ${COMP_WORDS[1]} in
            \(cases)        *) words="--help" ;;
                esac
                COMPREPLY=($(compgen -W "$words" -- "$current"))
                [ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$current"))
            }
            complete -F \(function) \(program.name)

            """
    }

    public static func zsh(_ program: ProgramSpec) -> String {
        let commands = program.commands.map { "    '\($0.name):\(quote($0.summary))'" }.joined(separator: "\n")
        var cases = ""
        for command in program.commands {
            var specs = command.allOptions.map { option -> String in
                let help = quote(
                    String(option.help.prefix { $0 != "(" && $0 != ";" && $0 != ":" && $0 != "[" && $0 != "]" }).trimmed
                )
                switch option.kind {
                case .flag: return "'\(option.name)[\(help)]'"
                case .choice(let choices):
                    return "'\(option.name)[\(help)]:\(option.placeholder):(\(choices.joined(separator: " ")))'"
                case .path: return "'\(option.name)[\(help)]:\(option.placeholder):_files'"
                default: return "'\(option.name)[\(help)]:\(option.placeholder):'"
                }
            }
            if !command.verbs.isEmpty { specs.append("'1:verb:(\(command.verbs.map(\.name).joined(separator: " ")))'") }
            specs.append("'*:argument:_files'")
            cases += "        (\(command.name)) _arguments \(specs.joined(separator: " ")) ;;\n"
        }
        return """
            #compdef \(program.name)
            # zsh completion for \(program.name) (generated from its command grammar)
            local -a commands
            commands=(
            \(commands)
            )
            if (( CURRENT == 2 )); then
                _describe 'command' commands
            else
                shift words
                (( CURRENT-- ))
                case ${words[1]} in
            \(cases)    esac
            fi

            """
    }

    public static func fish(_ program: ProgramSpec) -> String {
        let name = program.name
        var lines = [
            "# fish completion for \(name) (generated from its command grammar)", "complete -c \(name) -f",
            "complete -c \(name) -n __fish_use_subcommand -l version -d 'print the version and commit'",
        ]
        for command in program.commands {
            lines.append(
                "complete -c \(name) -n __fish_use_subcommand -a \(command.name) -d '\(quote(command.summary))'")
            let seen = "'__fish_seen_subcommand_from \(command.name)'"
            for verb in command.verbs {
                lines.append("complete -c \(name) -n \(seen) -a \(verb.name) -d '\(quote(verb.summary))'")
            }
            for option in command.allOptions {
                // The help's first clause: fish shows it beside the option.
                let clause = String(option.help.prefix { !"(;:[]".contains($0) }).trimmed
                var line = "complete -c \(name) -n \(seen) -l \(option.name.dropFirst(2)) -d '\(quote(clause))'"
                switch option.kind {
                case .flag: break
                case .choice(let choices): line += " -x -a '\(choices.joined(separator: " "))'"
                case .path: line += " -r -F"
                default: line += " -x"
                }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func quote(_ text: some StringProtocol) -> String {
        var result = ""
        for character in text { result += character == "'" ? "'\\''" : String(character) }
        return result
    }
}

extension String {
    var replacingDashes: String { String(map { $0 == "-" ? "_" : $0 }) }
}
