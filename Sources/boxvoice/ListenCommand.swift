import BoxVoiceAudio
import BoxVoiceCore
import BoxVoiceKeywords
import BoxVoiceLive
import Foundation

/// `boxvoice listen`: the live transcript and the spoken commands in it.
enum ListenCommand: Command {
    static let name = "listen"
    static let summary = "show the live transcript and the commands heard in it"
    static let usage = """
    Usage: boxvoice listen [--device PCM | --input FILE.wav [--realtime]] [--alsa-config FILE] [--max-seconds N]
                           [--json] [--no-spotter] [--no-language-model] [--keywords FILE]

    Recognizes speech locally (pocketsphinx, Debian's en-us model) while a command spotter listens for
    the phrases in Models/command-spotter.en.txt (or your `boxvoice calibrate` copy); prints the partial transcript in place, each
    finished utterance on its own line, and every keyword action the box's detector finds, with the
    audio time it fired at. --input plays a WAV through the same capture path as a microphone, as
    fast as it can unless --realtime. --max-seconds stops after that much captured audio.
    """

    static func run(_ arguments: inout Arguments) throws -> Int32 {
        let device = try arguments.option("--device")
        let input = try arguments.option("--input")
        let alsaConfig = try arguments.option("--alsa-config")
        let keywords = try arguments.option("--keywords")
        let maxSeconds = try arguments.seconds("--max-seconds", within: 0.1...604_800)
        let realtime = arguments.flag("--realtime")
        let json = arguments.flag("--json")
        let noSpotter = arguments.flag("--no-spotter")
        let noLanguageModel = arguments.flag("--no-language-model")
        try arguments.finish()
        if device != nil && input != nil { throw CLIError.usage("give --device or --input, not both") }
        if noSpotter && noLanguageModel { throw CLIError.usage("--no-spotter and --no-language-model leave nothing to listen with") }

        let detector = try ModelsDirectory.keywordDetector(override: keywords)
        let pcm: CapturePCM
        do {
            if let input {
                pcm = try WAVCapturePCM(path: input).paced(realtime)
            } else {
                pcm = try ALSACapturePCM(name: device ?? "default", configFile: alsaConfig)
            }
        } catch let error as ALSAError {
            throw CLIError.failed(error.description)
        } catch {
            throw CLIError.failed("cannot read '\(input ?? "")' as audio: \(error)")
        }
        var options = LiveTranscriber.Options.hearing(detector, spotterPhrases: noSpotter ? nil : try ModelsDirectory.spotterPhrases(),
                                                      dictionaryCache: Paths.cacheDirectory)
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
        if json { Console.json(["event": "listening", "source": input ?? device ?? "default"]) }
        let failure: Error?
        do {
            failure = try Listening.run(pcm: pcm, transcriber: transcriber, maxSeconds: maxSeconds, stop: stop) { printer.show($0, detector: detector) }
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
                Console.json(["event": "partial", "text": text])
            } else if interactive {
                FileHandle.standardOutput.write(Data("\r\u{1B}[K… \(text)".utf8))
                partialShown = true
            }
        case .utterance(let utterance):
            clearPartial()
            let found = detector.detect(utterance.text)
            if json {
                Console.json(["event": "final", "text": utterance.text, "recognized": utterance.recognized,
                              "spotted": utterance.spotted, "end": utterance.end])
                if let found {
                    Console.json(["event": "keyword", "action": found.action.rawValue, "phrase": found.matchedPhrase, "at": utterance.end])
                }
            } else {
                let spotted = utterance.spotted.isEmpty ? "" : "  (spotted: \(utterance.spotted.joined(separator: ", ")))"
                Console.out("[\(utterance.end.formatted(2)) s] \(utterance.text)\(spotted)")
                if let found {
                    Console.out("[\(utterance.end.formatted(2)) s] keyword: \(found.action.rawValue) (\"\(found.matchedPhrase)\")")
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
