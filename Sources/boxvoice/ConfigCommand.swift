import BoxVoiceCore
import CommandGrammar
import Foundation

/// Reads and writes `config.json`; a file that cannot be used stops the command with the key at fault.
enum UserSettingsFile {
    static func load(path: String = Paths.settingsFile) throws -> UserSettings {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw CLIError.failed("cannot read the settings file \(path): \(FileProblem.describe(path)). Fix its permissions or remove it.")
            }
            return UserSettings()
        }
        do {
            return try UserSettings.decode(data)
        } catch {
            let fix = error.key.map { "`boxvoice config set \($0) VALUE` or `boxvoice config unset \($0)`" } ?? "fix it or remove it"
            throw CLIError.failed("the settings file \(path) \(error.key == nil ? "" : "has a bad setting: ")\(error.message); nothing was done: \(fix).")
        }
    }

    static func save(_ settings: UserSettings, path: String = Paths.settingsFile) throws {
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try settings.encoded().write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIError.failed("cannot write the settings file \(path): \(FileProblem.describe((path as NSString).deletingLastPathComponent)). Nothing was changed.")
        }
    }
}

/// `boxvoice config show | set KEY VALUE | unset KEY | path`.
enum ConfigCommand: Command {
    static let spec = CommandSpec("config", summary: "show or change your settings (device, box, feedback, …)", about: """
    Settings live in $XDG_CONFIG_HOME/boxvoice/config.json; a flag on a command line overrides them. The daemon reads \\
    them at each turn. Keys: \(UserSettings.keys.map { "\($0.key) (\($0.help))" }.joined(separator: "; ")).
    """, verbs: [
        CommandSpec("show", summary: "every setting and its value", options: [CommonOptions.json]),
        CommandSpec("set", summary: "set one setting", arguments: [
            ArgumentSpec("KEY", .choice(UserSettings.keys.map(\.key)), help: "the setting"),
            ArgumentSpec("VALUE", help: "its value (true/false for switches)"),
        ]),
        CommandSpec("unset", summary: "back to the built-in default", arguments: [
            ArgumentSpec("KEY", .choice(UserSettings.keys.map(\.key)), help: "the setting"),
        ]),
        CommandSpec("path", summary: "where the settings file is"),
    ], defaultVerb: "show")

    static func run(_ invocation: Invocation) throws -> Int32 {
        switch invocation.verb {
        case "path":
            Console.out(Paths.settingsFile)
        case "set", "unset":
            var settings = try UserSettingsFile.load()
            let key = invocation.argument("KEY")!
            do {
                if invocation.verb == "set" { try settings.set(key, invocation.argument("VALUE")!) } else { try settings.unset(key) }
            } catch {
                throw CLIError.usage(error.message)
            }
            try UserSettingsFile.save(settings)
            Console.out(invocation.verb == "set" ? "\(key) = \(invocation.argument("VALUE")!)" : "\(key) is back to its default")
        default:
            let settings = try UserSettingsFile.load()
            if invocation.flag("--json") {
                var object: [String: Any] = [:]
                for (key, value) in settings.values { object[key] = value ?? NSNull() }
                Console.json(object)
            } else {
                for (key, value) in settings.values { Console.out(key.padding(toLength: 18, withPad: " ", startingAt: 0) + (value ?? "(not set)")) }
            }
        }
        return ExitStatus.success
    }
}
