import CommandGrammar
import Foundation

import BoxVoiceAudio

/// `boxvoice repair`: fix WAV headers a killed recording left behind.
enum RepairCommand: Command {
    static let paths = ArgumentSpec("PATH", .path, repeating: true, help: "WAV files or folders")

    static let spec = CommandSpec(
        "repair", summary: "fix the headers of WAV files a killed recording left",
        about: """
            Rewrites the header of each WAV (or of every .wav under each folder) to match the audio it really holds, \
            as a killed recording leaves it. Sample data is never changed. `boxvoice record` does this by itself for \
            its folder before it starts.
            """, arguments: [paths])

    static func run(_ invocation: Invocation) throws -> Int32 {
        let paths = invocation.arguments(paths)
        guard !paths.isEmpty else { throw CLIError.usage("name at least one WAV file or folder") }
        var failed = false
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                Console.err("boxvoice repair: '\(path)' does not exist")
                failed = true
                continue
            }
            let results =
                isDirectory.boolValue
                ? WAVRepair.repairSegments(under: path)
                : [(path, Result { try WAVRepair.repair(path: path) })]
            for (file, result) in results {
                switch result {
                case .success(.intact(let frames)): Console.out("\(file): intact, \(frames) frames")
                case .success(.repaired(let before, let after)):
                    Console.out("\(file): repaired, header said \(before) frames, file holds \(after)")
                case .failure(let error):
                    Console.err("boxvoice repair: \(error)")
                    failed = true
                }
            }
        }
        return failed ? 1 : 0
    }
}
