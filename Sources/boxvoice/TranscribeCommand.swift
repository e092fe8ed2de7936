import BoxVoiceBox
import BoxVoiceStore
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import CommandGrammar
import Foundation

/// `boxvoice transcribe FILE`: HQ-transcribe a sound file through a box.
enum TranscribeCommand: Command {
    static let file = ArgumentSpec("FILE", .path, help: "the sound file (any format libsndfile reads)")

    static let spec = CommandSpec(
        "transcribe", summary: "HQ-transcribe a sound file through the box",
        about: """
            Converts FILE to 48 kHz mono Float32, cuts it into segments of at most 60 s at quiet points, uploads each \
            to the box's HQ transcription as soon as it is cut (up to 3 at a time) and prints the texts joined in \
            order. Uncertain failures are retried twice; a permanent HQ failure is reported once and stops the rest.
            """, options: [CommonOptions.box, CommonOptions.codec, CommonOptions.json],
        arguments: [file])

    static func run(_ invocation: Invocation) throws -> Int32 {
        let boxName = invocation[CommonOptions.box]
        let json = invocation[CommonOptions.json]
        let codecOption = invocation[CommonOptions.codec].flatMap(UploadCodec.init(rawValue:))
        let file = try invocation.required(file)
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw CLIError.failed("cannot read '\(file)': \(FileProblem.describe(file)). Nothing was uploaded.")
        }

        let (box, client) = try SelectedBox.client(named: boxName)
        let session: String?
        do {
            session = try box.session ?? client.defaultSession()
        } catch {
            throw CLIError.failed("\(error) Nothing was uploaded.")
        }
        let scratch = try ScratchDirectory(purpose: "transcribe", fallback: Paths.cacheDirectory)
        defer { scratch.remove() }
        let work = scratch.path
        var transcription = FileTranscription(client: client, session: session)
        transcription.codec = try UploadCodecs.policy(
            for: box.reference, configured: box.uploadCodec, override: codecOption)
        let result: FileTranscription.Result
        do {
            result = try transcription.run(file: file, workDirectory: work) { event in
                guard !json else { return }
                switch event {
                case .segmented(let count, let seconds):
                    Console.err("\(file): \(seconds.formatted(1)) s in \(count) segment(s), uploading to '\(box.name)'")
                case .uploaded(let segment):
                    Console.err(
                        "segment \(segment.index + 1) (\(segment.seconds.formatted(1)) s): "
                            + "\(segment.failure.map { "failed: \($0)" } ?? "done")"
                    )
                case .retrying(let index, let attempt, let failure):
                    Console.err("segment \(index + 1): retry \(attempt) after: \(failure)")
                case .codec(let choice):
                    Console.err("uploading as \(choice.format == .opus ? "Opus" : "WAV"): \(choice.reason)")
                }
            }
        } catch let failure as FileTranscription.Failure {
            throw CLIError.failed(failure.description)
        } catch {
            throw CLIError.failed("cannot read '\(file)' as audio: \(error)")
        }
        if json {
            Console.json(
                JSONLine.Transcription(
                    text: result.text, service: .init(result.service),
                    segments: result.segments.map {
                        .init(index: $0.index + 1, seconds: $0.seconds, text: $0.transcription?.text ?? "")
                    }))
        } else {
            Console.out(result.text)
        }
        return 0
    }
}
