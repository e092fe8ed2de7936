import BoxVoiceAudio
import BoxVoiceDictation
import BoxVoicePresentation
import BoxVoiceKeywords
import BoxVoiceLive
import CommandGrammar
import Foundation

/// `boxvoice listen`: the live transcript and the spoken commands in it.
enum ListenCommand: Command {
    static let maxSeconds = Option.number(
        "--max-seconds", 0.1...604_800, unit: "seconds", help: "stop after N seconds of captured audio")
    static let noSpotter = Option.flag(
        "--no-spotter", help: "pocketsphinx road: only the language model's transcript hears commands")
    static let noLanguageModel = Option.flag(
        "--no-language-model",
        help: "pocketsphinx road: only the command spotter listens; Whisper's road: no words while you speak")

    static let spec = CommandSpec(
        "listen", summary: "show the live transcript and the keywords heard (no box needed)",
        about: """
            Recognizes speech locally (pocketsphinx, Debian's en-us model) while a command spotter listens for the \
            phrases in Models/command-spotter.en.txt (or your `boxvoice calibrate` copy); prints the partial \
            transcript in place, each finished utterance on its own line, and every keyword action the box's detector \
            finds, with the audio time it fired at.
            """,
        options: [
            CommonOptions.device, CommonOptions.input, CommonOptions.realtime, CommonOptions.alsaConfig, maxSeconds,
            CommonOptions.json, noSpotter, noLanguageModel, CommonOptions.keywords,
        ], exclusive: [[CommonOptions.device, CommonOptions.input], [noSpotter, noLanguageModel]])

    static func run(_ invocation: Invocation) throws -> Int32 {
        let settings = try UserSettingsFile.load()
        let keywords = invocation[CommonOptions.keywords] ?? settings.vocabulary
        let maxSeconds = invocation[maxSeconds]
        let json = invocation[CommonOptions.json]
        let noSpotter = invocation[noSpotter]
        let noLanguageModel = invocation[noLanguageModel]

        let detector = try ModelsDirectory.keywordDetector(override: keywords)
        let (pcm, source) = try CaptureSource.open(invocation, settings: settings)
        var options = LiveTranscriber.Options.hearing(
            detector, spotterPhrases: noSpotter ? nil : try ModelsDirectory.spotterPhrases(),
            dictionaryCache: Paths.cacheDirectory, frontEnd: settings.frontEnd,
            adaptation: ModelsDirectory.voiceAdaptation(),
            whisper: ModelsDirectory.whisperHearing(settings.recognizer))
        options.useLanguageModel = !noLanguageModel
        let transcriber: LiveTranscriber
        do {
            transcriber = try LiveTranscriber(options: options)
        } catch {
            throw CLIError.failed("\(error)")
        }
        let stop = StopSignal()
        let signals = stop.requestOnTerminationSignals()
        defer { signals.forEach { $0.cancel() } }
        let printer = ListenPrinter(json: json, interactive: isatty(STDOUT_FILENO) == 1 && !json)
        if json { Console.json(JSONLine.Listening(source: source)) }
        let failure: Error?
        do {
            failure = try Listening.run(pcm: pcm, transcriber: transcriber, maxSeconds: maxSeconds, stop: stop) {
                printer.show($0, detector: detector)
            }
        } catch {
            throw CLIError.failed("recognition failed: \(error)")
        }
        printer.done()
        if let failure {
            Console.err("boxvoice listen: \(failure)")
            return 1
        }
        return 0
    }
}

/// Prints what the live path heard: in place on a terminal, line by line otherwise, or as JSON.
private final class ListenPrinter {
    let json: Bool
    let interactive: Bool
    private var partialShown = false

    init(json: Bool, interactive: Bool) {
        self.json = json
        self.interactive = interactive
    }

    func show(_ update: LiveUpdate, detector: KeywordDetector) {
        switch update {
        case .partial(let text):
            if json {
                Console.json(JSONLine.Partial(text: text))
            } else if interactive {
                FileHandle.standardOutput.write(Data("\r\u{1B}[K… \(text)".utf8))
                partialShown = true
            }
        case .holding:
            break  // the same utterance follows once its command is decided
        case .utterance(let utterance):
            clearPartial()
            // As a dictation takes it: the words the utterance ends on, at the speaker's pause.
            let found = utterance.endingCommand(detector)
            if json {
                Console.json(
                    JSONLine.Final(
                        text: utterance.text, recognized: utterance.recognized, spotted: utterance.spotted,
                        end: utterance.end, heardBy: utterance.heardBy.name, endsAtPause: utterance.endsAtPause))
                // As `dictate --json` writes them (one Codable type): `not-taken` with its doubt, `keyword` with the
                // evidence it acted on.
                if let found, let doubt = utterance.commandDoubt,
                    var record = EventRecord(
                        .commandNotTaken(action: found.action, phrase: found.matchedPhrase, doubt: doubt))
                {
                    record.at = utterance.end
                    Console.out(record.line)
                } else if let found,
                    var record = EventRecord(
                        .keyword(action: found.action, phrase: found.matchedPhrase, at: utterance.end))
                {
                    record.score = utterance.commandWeighing?.evidence
                    record.threshold = utterance.commandWeighing.map(\.actLine)
                    Console.out(record.line)
                }
            } else {
                let spotted =
                    utterance.spotted.isEmpty ? "" : "  (spotted: \(utterance.spotted.joined(separator: ", ")))"
                Console.out("[\(utterance.end.formatted(2)) s] \(utterance.text)\(spotted)")
                if let found, let doubt = utterance.commandDoubt {
                    let name = DictationStatus.name(of: found.action)
                    Console.out(
                        "[\(utterance.end.formatted(2)) s] not acted on alone: \(name) (\"\(found.matchedPhrase)\"): "
                            + "\(doubt.explanation); a dictation asks the box")
                } else if let found {
                    let why = utterance.commandWeighing.flatMap { weighing in
                        weighing.evidence.map {
                            ", score \($0.formatted(2)), acts from \(weighing.actLine.formatted(2))"
                        }
                    }
                    Console.out(
                        "[\(utterance.end.formatted(2)) s] keyword: \(DictationStatus.name(of: found.action)) "
                            + "(\"\(found.matchedPhrase)\"\(why ?? ""))")
                }
            }
        }
    }

    func done() { clearPartial() }

    private func clearPartial() {
        if partialShown {
            FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8))
            partialShown = false
        }
    }
}
