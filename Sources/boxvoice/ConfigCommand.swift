import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceDictation
import CommandGrammar
import Foundation

/// Reads and writes `config.json`; a file that cannot be used stops the command with the key at fault.
enum UserSettingsFile {
    static func load(path: String = Paths.settingsFile) throws -> UserSettings {
        let (settings, dropped) = try loadForRepair(path: path)
        if let error = dropped.first {
            let known = error.key.map { key in UserSettings.keys.contains { $0.key == key } } ?? false
            let fix =
                known
                ? "`boxvoice config set \(error.key!) VALUE` or `boxvoice config unset \(error.key!)` repairs it"
                : "`boxvoice config reset` (or any `config set`) removes what cannot be used, saying what it removed"
            throw CLIError.failed(
                "the settings file \(path) \(error.key == nil ? "" : "has a bad setting: ")\(error.message); nothing "
                    + "was done: \(fix)."
            )
        }
        return settings
    }

    /// What can be used of the file, for `config set`, `unset` and `reset`, which must work on a damaged file (they
    /// are how it is repaired): each setting left out is in `dropped`, said to the user when the file is written.
    static func loadForRepair(path: String = Paths.settingsFile) throws -> (UserSettings, [UserSettings.Problem]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw CLIError.failed(
                    "cannot read the settings file \(path): \(FileProblem.describe(path)). Fix its permissions or "
                        + "remove it.")
            }
            return (UserSettings(), [])
        }
        return UserSettings.decodeKeeping(data)
    }

    static func save(_ settings: UserSettings, path: String = Paths.settingsFile) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try settings.encoded().write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIError.failed(
                "cannot write the settings file \(path): "
                    + "\(FileProblem.describe((path as NSString).deletingLastPathComponent)). Nothing was changed."
            )
        }
    }
}

/// `boxvoice config show | set KEY VALUE | unset KEY | path`.
enum ConfigCommand: Command {
    private static let keyList = UserSettings.keys.map { "\($0.key) (\($0.help))" }.joined(separator: "; ")

    static let key = ArgumentSpec("KEY", .choice(UserSettings.keys.map(\.key)), help: "the setting")
    static let value = ArgumentSpec("VALUE", help: "its value (true/false for switches)")

    static let spec = CommandSpec(
        "config", summary: "show or change your settings (device, box, feedback, …)",
        about: """
            Settings live in $XDG_CONFIG_HOME/boxvoice/config.json; a flag on a command line overrides them. The \
            daemon reads them at each turn. Keys: \(keyList).
            """,
        verbs: [
            CommandSpec("show", summary: "every setting and its value", options: [CommonOptions.json]),
            CommandSpec("set", summary: "set one setting", arguments: [key, value]),
            CommandSpec("unset", summary: "back to the built-in default", arguments: [key]),
            CommandSpec("reset", summary: "remove every setting (all back to the built-in defaults)"),
            CommandSpec("path", summary: "where the settings file is"),
        ], defaultVerb: "show")

    static func run(_ invocation: Invocation) throws -> Int32 {
        switch invocation.verb {
        case "path":
            Console.out(Paths.settingsFile)
        case "set", "unset", "reset":
            var (settings, dropped) = try UserSettingsFile.loadForRepair()
            let before = settings
            do {
                switch invocation.verb {
                case "set":
                    let key = try invocation.required(Self.key), value = try invocation.required(Self.value)
                    try settings.set(key, value)
                    try checkExists(key, value, in: settings)
                case "unset": try settings.unset(try invocation.required(Self.key))
                default: settings = UserSettings()
                }
            } catch let problem as UserSettings.Problem {
                throw CLIError.usage(problem.message)
            }
            try UserSettingsFile.save(settings)
            for problem in dropped {
                Console.err("boxvoice config: removed from the damaged settings file: \(problem.message)")
            }
            dropped.removeAll()
            switch invocation.verb {
            case "set": Console.out("\(try invocation.required(key)) = \(try invocation.required(value))")
            case "unset": Console.out("\(try invocation.required(key)) is back to its default")
            default:
                let defaults = Dictionary(uniqueKeysWithValues: UserSettings().values.map { ($0.key, $0.value) })
                let removed = before.values.filter { $0.value != nil && $0.value != defaults[$0.key] ?? nil }
                    .map { "\($0.key) (\($0.value!))" }
                Console.out(
                    removed.isEmpty
                        ? "every setting is at its default" : "removed: " + removed.joined(separator: ", "))
            }
        default:
            let settings = try UserSettingsFile.load()
            if invocation[CommonOptions.json] {
                Console.json(JSONLine.Settings(values: settings.values.map { ($0.key, $0.value) }))
            } else {
                for (key, value) in settings.values {
                    Console.out(key.padding(toLength: 18, withPad: " ", startingAt: 0) + (value ?? "(not set)"))
                }
            }
        }
        return ExitStatus.success
    }

    /// A value must name something that exists now: a paired box, a readable vocabulary or ALSA file, a capture
    /// device ALSA can find. A setting that names nothing would only fail later, at a hotkey, with no terminal.
    private static func checkExists(_ key: String, _ value: String, in settings: UserSettings) throws {
        switch key {
        case "box":
            let boxes = (try? BoxRegistry(directory: Paths.configDirectory).boxes().map(\.name)) ?? []
            guard boxes.contains(value) else {
                throw CLIError.usage(
                    "no paired box is named '\(value)' ("
                        + (boxes.isEmpty
                            ? "none is paired: `boxvoice pair LINK`"
                            : "paired: " + boxes.joined(separator: ", ")) + "); nothing was changed")
            }
        case "vocabulary":
            _ = try ModelsDirectory.keywordDetector(override: value)
        case "alsa-config":
            guard FileManager.default.isReadableFile(atPath: value) else {
                throw CLIError.usage("cannot read '\(value)': \(FileProblem.describe(value)); nothing was changed")
            }
        case "device":
            do {
                try ALSACapturePCM(name: value, configFile: settings.alsaConfig).close()
            } catch let error as ALSAError where error.kind == .deviceNotFound {
                let listed = ALSADevices.capture().map(\.name)
                throw CLIError.usage(
                    "ALSA has no capture device '\(value)' (listed: \(listed.joined(separator: ", "))); nothing was "
                        + "changed")
            } catch {
                // Busy, or unable to give 48 kHz yet: it exists, which is what this checks.
            }
        default: break
        }
    }
}
