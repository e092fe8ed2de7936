import BoxVoiceAudio
import BoxVoiceKeywords
@testable import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Synchronization
import Testing

/// The utterance-end road: Whisper and Silero VAD as `make setup` builds them.
@Suite struct WhisperHearingTests {
    private static let detector: KeywordDetector? = try? KeywordDetector(
        contentsOf: Checkout.root + "/Models/speech-keywords.en.txt")

    private static func to16k(_ samples: [Float]) throws -> [Float] {
        let resampler = try Resampler(from: 48_000, to: 16_000)
        return try resampler.process(samples) + resampler.flush()
    }

    private func options(deadline: Double = 30) throws -> LiveTranscriber.Options {
        var options = LiveTranscriber.Options.sharingTheCut(
            spotterPhrases: Checkout.root + "/Models/command-spotter.en.txt")
        var whisper = LiveTranscriber.WhisperHearing(
            models: HearingModels(folder: HearingParts.folder),
            prompt: try String(contentsOfFile: HearingParts.prompt, encoding: .utf8))
        whisper.deadline = deadline
        options.whisper = whisper
        return options
    }

    /// The utterance-end road alone, with the contract's detector as a dictation uses it: a command is the words
    /// an utterance ends with.
    private static func utteranceEnds(_ settings: LiveTranscriber.WhisperHearing, _ detector: KeywordDetector) throws
        -> UtteranceEnds
    {
        try UtteranceEnds(
            settings: settings, holdsCommand: { detector.endingPlace(in: $0) != nil },
            commandPlaces: { detector.endingPlace(in: $0).map { [$0] } ?? [] })
    }

    /// A sample clip as one ended utterance (16 kHz).
    private static func cut(_ name: String) throws -> UtteranceCutter.Cut {
        let samples = try to16k(try WAVCapturePCM.load(Checkout.sample(name)))
        let seconds = Double(samples.count) / 16_000
        return UtteranceCutter.Cut(samples: samples, start: 0, end: seconds, speechEnd: seconds, ending: .pause)
    }

    private func hear(_ samples: [Float], with transcriber: LiveTranscriber) throws -> [LiveUtterance] {
        try transcriber.hearWhole(samples)
    }

    /// Whisper's text of a clip carries the clip's command as the box's detector reads it, and its words.
    @Test(
        arguments: ["send-buy-milk.wav", "sendclose-over-and-out.wav", "cancel-forget-it.wav"],
        [WhisperModel.Search.greedy])
    func whisperHearsTheClipsWordsAndCommand(_ file: String, search: WhisperModel.Search) throws {
        let clip = try #require(try HearingParts.clips().first { $0.file == file })
        let model = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
        let audio = try Self.to16k(try WAVCapturePCM.load(Checkout.sample(file)))
        let prompt = try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
        let transcript = try model.transcribe(audio, prompt: prompt, search: search)
        #expect(Self.detector?.detect(transcript.text)?.action.rawValue == clip.expectedAction)
        let said = Set(clip.text.lowercased().split { !$0.isLetter }.map(String.init))
        let heard = Set(transcript.text.lowercased().split { !$0.isLetter }.map(String.init))
        #expect(Double(said.intersection(heard).count) >= 0.8 * Double(said.count), "heard: \(transcript.text)")
    }

    /// A dictated clip through the live path: one utterance, in Whisper's words, ending where the speech ends.
    @Test func theLivePathGivesWhispersTextAtTheUtterancesEnd() throws {
        let samples = try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav"))
        let utterances = try hear(samples, with: try LiveTranscriber(options: try options()))
        let heard = try #require(utterances.last)
        #expect(heard.heardBy == .whisper)
        #expect(Self.detector?.detect(utterances.map(\.text).joined(separator: " "))?.action == .send)
        let speechEnd = Double(samples.count) / 48_000
        #expect(heard.end <= speechEnd && heard.end > speechEnd - 1.5)
    }

    /// A file fed far faster than it was spoken, each ended utterance decided before more is heard: every one comes
    /// with Whisper's words, in order, and none is left waiting.
    @Test func utterancesDecidedAsTheyEndAreAllWhispers() throws {
        let clip = try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav"))
        let gap = [Float](repeating: 0, count: 48_000)
        let samples = clip + gap + clip + gap + clip
        let transcriber = try LiveTranscriber(options: try options())
        let heard = try transcriber.hearWhole(samples, decidingEach: true) {
            #expect($0.firstUndecidedStart == nil)
        }
        #expect(heard.count >= 3 && heard.allSatisfy { $0.heardBy == .whisper }, "\(heard.map(\.heardBy))")
        #expect(heard.map(\.end) == heard.map(\.end).sorted())
        #expect(heard.filter { Self.detector?.detect($0.text)?.action == .send }.count == 3, "\(heard.map(\.text))")
    }

    /// Two commands said in one breath are one utterance to the VAD: Whisper's text is split after each command, and
    /// the first piece ends between the first command's last word and the next sentence.
    @Test func anUtteranceHoldingTwoCommandsEndsTwice() throws {
        let first = WAV.speechOnly(try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav")))
        let second = WAV.speechOnly(try WAVCapturePCM.load(Checkout.sample("checkpoint-report.wav")))
        let gap = [Float](repeating: 0, count: 2_400)  // 0.05 s: less than the VAD's end of an utterance
        let lead = [Float](repeating: 0, count: 24_000)
        var transcriber = try options()
        transcriber.commandPlaces = { Self.detector?.commandPlaces(in: $0) ?? [] }
        let utterances = try hear(lead + first + gap + second + lead, with: try LiveTranscriber(options: transcriber))
        #expect(
            utterances.map { Self.detector?.detect($0.text)?.action } == [.send, .sendCheckpoint],
            "\(utterances.map { "\($0.end): \($0.text)" })")
        let firstEnds = Double(lead.count + first.count) / 48_000
        let secondStarts = firstEnds + Double(gap.count) / 48_000
        let boundary = try #require(utterances.first?.end)
        #expect(
            boundary > firstEnds - 0.25 && boundary < secondStarts + 0.25,
            "first piece ends at \(boundary), speech at \(firstEnds)")
        #expect(utterances.last?.end ?? 0 > secondStarts + Double(second.count) / 48_000 - 0.1)
    }

    /// An utterance's decode starts once it has settled, before the cutter is sure it has ended, and that decode is
    /// the one its words come from: Whisper hears it to where it settled, not the rest of the quiet.
    @Test func theDecodeStartedWhenTheUtteranceSettledGivesItsWords() throws {
        let detector = try #require(Self.detector)
        let settings = try #require(try options().whisper)
        let ends = try Self.utteranceEnds(settings, detector)
        let quiet = [Float](repeating: 0, count: 16_000)
        let cuts = ends.hear(quiet + (try Self.cut("send-buy-milk.wav")).samples + quiet)
        let cut = try #require(cuts.first)
        #expect(cuts.count == 1)
        #expect(cut.heardCount < cut.samples.count, "the quiet after the settling is not heard")
        let words = try ends.transcribe(cut).get().words
        #expect(ends.decodes.settled == 1 && ends.decodes.speculative.count == 1)
        #expect(detector.detect(UtteranceEnds.text(words))?.action == .send)
    }

    /// An utterance ending with a command comes judged with its words: the command's piece is sure and ends at its
    /// last word.
    @Test func aCommandsPieceComesJudgedAndEndsAtItsLastWord() throws {
        let detector = try #require(Self.detector)
        let settings = try #require(try options().whisper)
        let ends = try Self.utteranceEnds(settings, detector)
        let commandHeard = ends.transcribe(try Self.cut("send-buy-milk.wav"))
        let command = (try? commandHeard.get()).map { UtteranceEnds.text($0.words) }
        #expect(command.flatMap { detector.detect($0)?.action } == .send)
        // The pieces come judged with the words: the command's piece is sure and ends at its last word.
        let judged = try commandHeard.get()
        #expect(judged.holdsSureCommand)
        #expect(
            judged.pieces.first?.lastCommandWord.map { judged.words[$0].text.lowercased() }?.hasPrefix("message")
                == true)
    }

    /// Weighing a decode's own words again under its own prompt gives the probabilities whisper.cpp's search gave
    /// them (up to the few tokens its search never writes, such as timestamps): the weighing lays out the prompt and
    /// reads the decoder's output as whisper.cpp does, so the same words without the prompt are weighed right too.
    @Test func weighingADecodesWordsUnderItsPromptGivesItsOwnProbabilities() throws {
        let model = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
        let prompt = try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
        _ = try model.transcribe(
            try Self.to16k(try WAVCapturePCM.load(Checkout.sample("checkpoint-report.wav"))), prompt: prompt)
        let both = try #require(model.lastDecodeWeighed(prompt: prompt))
        #expect(both.weighed.count == both.decoded.count && both.decoded.count > 5)
        let apart = zip(both.weighed, both.decoded).map { abs($0 - $1) }
        #expect(apart.allSatisfy { $0 < 0.05 }, "\(both)")
        let free = try #require(model.lastDecodeWeighed(prompt: nil))
        #expect(zip(free.weighed, both.decoded).contains { abs($0 - $1) > 0.05 }, "the prompt counts: \(free)")
    }

    /// A command phrase offered in place of Whisper's last words replaces them only when Whisper finds it nearly as
    /// likely over the same audio, and its words carry the probabilities it was weighed with.
    @Test func anEndingReplacesWhispersLastWordsOnlyWhenNearlyAsLikely() throws {
        let detector = try #require(Self.detector)
        let model = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
        let prompt = try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
        let audio = try Self.to16k(try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav")))
        let cancel: @Sendable ([String]) -> [WhisperModel.Ending] = {
            [WhisperModel.Ending(keeping: $0.count - 2, text: "Cancel message.")]
        }
        let kept = try model.transcribe(audio, prompt: prompt, rewriting: .init(margin: 3, endings: cancel))
        #expect(kept.rewrittenFrom == nil)
        #expect(detector.detect(kept.text)?.action == .send, "heard: \(kept.text)")
        let forced = try model.transcribe(audio, prompt: prompt, rewriting: .init(margin: 1_000, endings: cancel))
        let from = try #require(forced.rewrittenFrom)
        #expect(from.text == kept.text && from.gain < -3, "gain \(from.gain)")
        #expect(forced.text.hasSuffix("Cancel message.") && detector.detect(forced.text)?.action == .cancel)
        let said = try #require(forced.words.first { $0.text == "Cancel" })
        #expect(said.probability < 0.1)
        #expect(said.start >= kept.words[kept.words.count - 2].start - 0.01)
        // Whisper's own last words, offered back, weigh what they weighed in the decode.
        let same: @Sendable ([String]) -> [WhisperModel.Ending] = {
            [WhisperModel.Ending(keeping: $0.count - 2, text: $0.suffix(2).joined(separator: " "))]
        }
        let again = try model.transcribe(audio, prompt: prompt, rewriting: .init(margin: 0.5, endings: same))
        #expect(abs(again.rewrittenFrom?.gain ?? 99) < 0.1)
        #expect(again.text == kept.text)
    }

    /// A command said for real keeps its words likely without the prompt and acts; only decodes holding a command
    /// are weighed again.
    @Test func aCommandSaidForRealIsLikelyWithoutThePromptToo() throws {
        let detector = try #require(Self.detector)
        let settings = try #require(try options().whisper)
        let ends = try Self.utteranceEnds(settings, detector)
        let talk = try ends.transcribe(try Self.cut("none-budget.wav")).get()
        #expect(!talk.words.isEmpty && talk.words.allSatisfy { $0.promptFreeShortfall == nil })
        let command = try ends.transcribe(try Self.cut("checkpoint-report.wav")).get()
        let piece = try #require(command.pieces.first { $0.lastCommandWord != nil })
        #expect(piece.action == .sendCheckpoint)
        #expect(
            (piece.weighing?.score ?? -.infinity) >= Float(settings.decision.act),
            "\(UtteranceEnds.text(command.words))")
        #expect(command.holdsSureCommand)
    }

    /// The multilingual model says how likely the audio it decoded is English when asked (a decode holding a
    /// command): near certain for an English clip, unlikely for French, which it still writes as English words.
    @Test func aWeighedDecodeSaysHowLikelyItsAudioIsEnglish() throws {
        let model = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
        let prompt = try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
        func heard(_ path: String, weighed: Bool) throws -> WhisperModel.Transcript {
            try model.transcribe(
                try Self.to16k(try WAVCapturePCM.load(path)), prompt: prompt, scoringWithoutPrompt: { _ in weighed })
        }
        let english = try heard(Checkout.sample("checkpoint-report.wav"), weighed: true)
        #expect((english.englishProbability ?? 0) > 0.9, "\(english)")
        let french = try heard(Checkout.root + "/Samples/foreign/fr-au-revoir.wav", weighed: true)
        #expect((french.englishProbability ?? 1) < 0.5, "\(french)")
        #expect(!french.text.isEmpty, "written as English words all the same: \(french.text)")
        #expect(try heard(Checkout.sample("checkpoint-report.wav"), weighed: false).englishProbability == nil)
    }

    /// The language a weighed decode finds likeliest is named, and a decode told to write it writes that language
    /// (told to write English, the same model translates).
    @Test func aDecodeInTheLanguageHeardWritesThatLanguage() throws {
        let model = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
        let prompt = try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
        let audio = try Self.to16k(try WAVCapturePCM.load(Checkout.sample("foreign/fr-au-revoir.wav")))
        let weighed = try model.transcribe(audio, prompt: prompt, scoringWithoutPrompt: { _ in true })
        #expect(weighed.likeliestLanguage == "fr", "\(weighed)")
        let english = try model.transcribe(
            try Self.to16k(try WAVCapturePCM.load(Checkout.sample("checkpoint-report.wav"))), prompt: prompt,
            scoringWithoutPrompt: { _ in true })
        #expect(english.likeliestLanguage == "en")
        let french = try model.transcribe(audio, prompt: nil, language: "fr")
        #expect(french.text.lowercased().contains("revoir"), "\(french.text)")
        #expect(french.likeliestLanguage == nil, "only an English decode is weighed for its language")
        // The language alone, without the words (what a command's lead-in is judged by).
        let judgedFrench = try model.spokenLanguage(of: audio)
        #expect(judgedFrench.likeliestLanguage == "fr" && judgedFrench.text.isEmpty)
        #expect((judgedFrench.englishProbability ?? 1) < 0.5)
        let judgedEnglish = try model.spokenLanguage(
            of: try Self.to16k(try WAVCapturePCM.load(Checkout.sample("none-budget.wav"))))
        #expect(judgedEnglish.likeliestLanguage == "en" && (judgedEnglish.englishProbability ?? 0) > 0.5)
    }

    /// Whisper spells commands as its prompt does, so each sentence there must be a command the contract's detector
    /// takes (a spelling it would not take teaches Whisper to write commands that act on nothing), and every action
    /// must have one. Which phrasings it holds is measured (BENCHMARKS.md at 7c182fc, "Other phrasings").
    @Test func everySentenceOfThePromptIsACommandAndEveryActionHasOne() throws {
        let detector = try #require(Self.detector)
        let prompt = try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
        let sentences = prompt.split(separator: ".").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
        var actions = Set<KeywordAction>()
        for sentence in sentences {
            let match = detector.detect(sentence)
            #expect(match != nil, "the prompt's '\(sentence)' is no command")
            if let match { actions.insert(match.action) }
        }
        let missing = Set(KeywordAction.allCases).subtracting(actions)
        #expect(missing.isEmpty, "no phrasing in the prompt for \(missing)")
    }

    /// A decode past its deadline is stopped inside whisper.cpp, not run to its end on the worker's thread: the
    /// words and the language alone (an encoding of up to 8 s) both give up when asked to.
    @Test func bothKindsOfDecodeStopWhenAsked() throws {
        let model = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
        let audio = try Self.to16k(try WAVCapturePCM.load(Checkout.sample("none-budget.wav")))
        for (kind, decode) in [
            ("words", { try model.transcribe(audio, prompt: nil, shouldStop: { true }) }),
            ("language", { try model.spokenLanguage(of: audio, shouldStop: { true }) }),
        ] as [(String, () throws -> WhisperModel.Transcript)] {
            #expect(throws: HearingError.self, "\(kind)") {
                do { _ = try decode() } catch let error as HearingError {
                    #expect(error.code == .abandoned, "\(kind): \(error)")
                    throw error
                }
            }
        }
        #expect(try model.spokenLanguage(of: audio, shouldStop: { false }).likeliestLanguage == "en")
    }

    /// whisper.cpp asks whether to stop between the encoder's steps, not only once its whole pass is done
    /// (scripts/whisper-encoder-abort.py): a decode abandoned while the speaker went on, or past its deadline, gives
    /// the worker back at once. Encoding one utterance asks hundreds of times; unmended, it asked four times.
    @Test func anEncodingIsAskedWhetherToStopBetweenItsSteps() throws {
        let model = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
        let audio = try Self.to16k(try WAVCapturePCM.load(Checkout.sample("none-budget.wav")))
        final class Asked: Sendable { let count = Mutex(0) }
        let asked = Asked()
        _ = try model.spokenLanguage(
            of: audio,
            shouldStop: {
                asked.count.withLock { $0 += 1 }
                return false
            })
        let count = asked.count.withLock { $0 }
        #expect(count > 100, "asked \(count) times")
    }

    /// Whisper translates Spanish *si quiere enviar el mensaje, diga enviar* as "If you want to send the message,
    /// send it.": the command's words sit inside the sentence, so nothing acts and nothing is checked in Spanish,
    /// while English ending on a command is heard as one.
    @Test func aTranslationWithCommandWordsInsideItsSentenceIsText() throws {
        let detector = try #require(Self.detector)
        let ends = try Self.utteranceEnds(try onlyTheLanguageCheck(), detector)
        let spanish = try ends.transcribe(try Self.cut("foreign/es-enviar-mensaje.wav")).get()
        #expect(detector.detect(UtteranceEnds.text(spanish.words)) != nil, "the words: \(spanish.decoded)")
        #expect(!spanish.pieces.contains { $0.lastCommandWord != nil } && !spanish.holdsSureCommand)
        #expect(ends.decodes.languageChecks == 0)
        let english = try ends.transcribe(try Self.cut("send-buy-milk.wav")).get()
        #expect(english.holdsSureCommand && english.sureActions == [.send])
    }

    /// English in an accent Whisper takes for another language (espeak-ng's American m7 voice, judged Polish) comes out
    /// of the own-language check as words it can barely write, without the command. Decoded once more in English
    /// without the prompt, the command is written again: it stands. Without that check it waits for the box.
    @Test func aCommandSaidInAnAccentStandsWhenWrittenAgainInEnglishWithoutThePrompt() throws {
        let detector = try #require(Self.detector)
        var settings = try onlyTheLanguageCheck()
        let accented = try Self.cut("foreign/en-accent-checkpoint.wav")
        settings.accentBelow = nil
        let unchecked = try Self.utteranceEnds(settings, detector)
        let waits = try unchecked.transcribe(accented).get()
        #expect(waits.foreign && unchecked.decodes.languageChecks == 1, "\(waits.decoded)")
        settings.accentBelow = 0.3
        let ends = try Self.utteranceEnds(settings, detector)
        let stands = try ends.transcribe(accented).get()
        #expect(!stands.foreign && stands.holdsSureCommand, "\(stands.decoded)")
        let own = try #require(ends.decodes.inOwnLanguage.first)
        #expect(own.language != "en" && own.sureness < 0.3, "\(own)")
        let plain = try #require(ends.decodes.inEnglishWithoutPrompt.first)
        #expect(plain.holds, "\(plain)")
    }

    /// English in festival's Finnish and Czech voices: Whisper writes the send command surely, over the act line, but
    /// takes the audio for another language, so the command waits for the box. The spotter's phrases are given, as a
    /// dictation gives them, yet no spotter listens on this road.
    @Test func anAccentedCommandJudgedForeignWaitsForTheBoxAndNoSpotterListens() throws {
        let detector = try #require(Self.detector)
        let whisper = try #require(try options().whisper)
        // As a dictation hears: the contract's detector places the commands the floors weigh.
        let options = LiveTranscriber.Options.hearing(
            detector, spotterPhrases: Checkout.root + "/Models/command-spotter.en.txt", dictionaryCache: nil,
            whisper: whisper)
        func command(_ sample: String) throws -> LiveUtterance {
            let samples = try WAVCapturePCM.load(Checkout.sample(sample))
            let heard = try hear(samples, with: LiveTranscriber(options: options))
            let command = try #require(heard.last { $0.commandWeighing != nil }, "\(heard.map(\.text))")
            #expect(command.spots.isEmpty, "\(command.spots)")
            #expect(command.commandWeighing?.english.map { $0 < 0.3 } == true, "\(command)")
            return command
        }
        let finnish = try command("foreign/en-finnish-send.wav")
        #expect(finnish.commandIsUnsure && finnish.commandWorthAsking, "\(finnish)")
        #expect((finnish.commandWeighing?.score ?? -.infinity) >= Float(whisper.decision.act), "\(finnish)")
        #expect(detector.detect(finnish.recognized) == nil, "\(finnish.recognized)")
        let czech = try command("foreign/en-czech-send.wav")
        #expect(czech.commandIsUnsure && czech.commandWorthAsking, "\(czech)")
        #expect((czech.commandWeighing?.score ?? -.infinity) >= Float(whisper.decision.act), "\(czech)")
    }

    /// The road's settings with every floor off but the own-language check, so nothing else doubts a command.
    private func onlyTheLanguageCheck() throws -> LiveTranscriber.WhisperHearing {
        var settings = try #require(try options().whisper)
        settings.decision = CommandDecision(surenessWeight: 0, act: -.infinity, ask: -.infinity)
        settings.englishFloor = nil
        return settings
    }

    /// Word timing follows the model's own alignment heads, read from its header before whisper.cpp loads it; a
    /// file that is not a ggml model is a typed error naming the fix.
    @Test func theModelsSizeIsReadFromItsHeader() throws {
        let shape = try ModelShape(HearingModels(folder: HearingParts.folder).whisper)
        #expect(shape == ModelShape(vocabulary: 51_865, textState: 512, textLayers: 6))
        #expect(shape.isMultilingual)
        #expect(!ModelShape(vocabulary: 51_864, textState: 384, textLayers: 4).isMultilingual)
        #expect { try ModelShape(Checkout.root + "/Package.swift") } throws: { error in
            (error as? HearingError)?.code == .modelUnusable && "\(error)".contains("make setup")
        }
    }

    /// Whisper given no time at all: every utterance is pocketsphinx's, and says why; the send command those words
    /// end with cannot act by itself, since a late decode never hands a command to another recognizer.
    @Test func anUtteranceWhisperMissesIsPocketsphinxsAndItsCommandCannotActAlone() throws {
        let samples = try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav"))
        var options = try options(deadline: 0)
        let detector = try KeywordDetector(contentsOf: Checkout.keywordVocabulary)
        options.holdsCommand = { detector.endingPlace(in: $0) != nil }
        let utterances = try hear(samples, with: try LiveTranscriber(options: options))
        #expect(!utterances.isEmpty)
        #expect(utterances.allSatisfy { $0.heardBy == .pocketsphinxInstead(.abandoned) })
        let withCommand = utterances.filter { options.holdsCommand($0.text) }
        #expect(withCommand.count == 1, "the stand-in words end with the send command: \(utterances.map(\.text))")
        #expect(withCommand.allSatisfy { $0.commandDoubt == .lateDecode })
        #expect(utterances.filter { !options.holdsCommand($0.text) }.allSatisfy { $0.commandDoubt == nil })
    }

    /// A missing model stops the live path with a typed error naming the fix, before anything is heard.
    @Test func aMissingModelIsATypedErrorSayingHowToGetIt() throws {
        var options = try options()
        options.whisper?.models.whisper = "/nonexistent/ggml.bin"
        #expect { try LiveTranscriber(options: options) } throws: { error in
            (error as? HearingError)?.code == .modelUnusable && "\(error)".contains("make setup")
        }
    }

    /// Whisper's notes about sounds are not words, and a sentence it loops on is kept once.
    @Test func bracketedNotesAndLoopedSentencesAreNotWords() {
        #expect(UtteranceEnds.plain("[BLANK_AUDIO]") == "")
        #expect(UtteranceEnds.plain(" (wind blowing) Buy bread.") == "Buy bread.")
        #expect(UtteranceEnds.plain("Call Anna. Call Anna. call anna! Then leave.") == "Call Anna. Then leave.")
        #expect(UtteranceEnds.plain("Go. Stay. Go.") == "Go. Stay. Go.")
        // A loop of two sentences, cut off by the token ceiling mid-sentence.
        #expect(
            UtteranceEnds.plain("Look it up first. Stop listening. Look it up first. Stop listening. Look it up")
                == "Look it up first. Stop listening.")
        #expect(UtteranceEnds.plain("Yes. No. Maybe") == "Yes. No. Maybe")
        #expect(
            UtteranceEnds.plain(
                "Buy milk. Send message. The report is done. Send checkpoint. Send message. The report is done. Send "
                    + "checkpoint."
            )
                == "Buy milk. Send message. The report is done. Send checkpoint.")
    }

    /// A short utterance after speech is decoded with the seconds before it; Whisper's words for that context (the
    /// last utterance, already given) are dropped, and the rest keep the utterance's own times.
    @Test func aShortUtterancesContextWordsAreDroppedAndItsOwnKeepTheirTimes() {
        let times = [
            ("first", 0.2, 0.5), ("words.", 1.4, 1.9), ("quiet", 2.1, 2.1), ("then", 2.3, 2.6),
            ("more.", 2.7, 3.1),
        ]
        let words = times.map { WhisperModel.TimedWord(text: $0.0, start: $0.1, end: $0.2) }
        let own = UtteranceEnds.ownWords(words, after: 2.0, lead: 0.3)
        #expect(own.map(\.text) == ["then", "more."])
        #expect(own.first.map { abs($0.start - 0.3) < 1e-9 } == true)
        #expect(UtteranceEnds.ownWords(words, after: 0, lead: 0.3) == words)
    }

    /// Which audio a command's language is judged over: the cut and the seconds before it, eight in all, never more
    /// than was kept; none for a cut that long already.
    @Test func theLanguageIsJudgedOverEightSecondsEndingWithTheUtterance() {
        // A 1 s cut whose audio runs from 10 s to 11 s of the stream.
        let cut = UtteranceCutter.Cut(
            samples: [Float](repeating: 0, count: 16_000), start: 10.3, end: 11, speechEnd: 10.7, ending: .pause)
        #expect(UtteranceEnds.leadRange(for: cut, kept: 0..<176_000) == 48_000..<160_000)
        #expect(UtteranceEnds.leadRange(for: cut, kept: 100_000..<176_000) == 100_000..<160_000)
        #expect(UtteranceEnds.leadRange(for: cut, kept: 160_000..<176_000) == nil, "nothing before it kept")
        var long = cut
        long.samples = [Float](repeating: 0, count: 128_000)
        long.end = 18
        #expect(UtteranceEnds.leadRange(for: long, kept: 0..<300_000) == nil)
    }

    /// Which audio a cut is decoded with: the seconds before it, only for a short cut right after speech, never
    /// more than was kept.
    @Test func theContextIsTheSecondsBeforeAShortUtteranceRightAfterSpeech() {
        #expect(LiveTranscriber.Context().seconds == 3, "three seconds: two left commands said alone unheard")
        var rule = LiveTranscriber.Context()
        rule.seconds = 2
        // A 1 s cut whose audio runs from 10 s to 11 s of the stream, its speech from 10.3 s.
        let cut = UtteranceCutter.Cut(
            samples: [Float](repeating: 0, count: 16_000), start: 10.3, end: 11,
            speechEnd: 10.7, ending: .pause)
        let kept = 0..<176_000
        #expect(UtteranceEnds.contextRange(for: cut, lastSpeechEnd: 9.5, rule: rule, kept: kept) == 128_000..<160_000)
        let partlyKept = UtteranceEnds.contextRange(for: cut, lastSpeechEnd: 9.5, rule: rule, kept: 150_000..<176_000)
        #expect(partlyKept == 150_000..<160_000)
        #expect(UtteranceEnds.contextRange(for: cut, lastSpeechEnd: nil, rule: rule, kept: kept) == nil)
        #expect(UtteranceEnds.contextRange(for: cut, lastSpeechEnd: 8.0, rule: rule, kept: kept) == nil)
        var long = cut
        long.samples = [Float](repeating: 0, count: 64_000)
        long.end = 14
        #expect(UtteranceEnds.contextRange(for: long, lastSpeechEnd: 9.5, rule: rule, kept: 0..<230_000) == nil)
        var none = rule
        none.seconds = 0
        #expect(UtteranceEnds.contextRange(for: cut, lastSpeechEnd: 9.5, rule: none, kept: kept) == nil)
    }

    /// A short utterance is decoded again with context only where Whisper was unsure of a word alone (or wrote
    /// none): a sure word at the floor does not count as unsure, and without a floor every one is decoded again.
    @Test func onlyAnUtteranceWithAnUnsureWordIsDecodedAgainWithContext() {
        func words(_ probabilities: [Float]) -> [WhisperModel.TimedWord] {
            probabilities.map { WhisperModel.TimedWord(text: "word", start: 0, end: 0.2, probability: $0) }
        }
        #expect(UtteranceEnds.unsure(words([0.9, 0.49, 0.8]), below: 0.5))
        #expect(!UtteranceEnds.unsure(words([0.9, 0.5, 0.8]), below: 0.5))
        #expect(UtteranceEnds.unsure([], below: 0.5), "no words: Whisper may not have made them out")
        #expect(UtteranceEnds.unsure(words([0.99]), below: nil))
        #expect(LiveTranscriber.Context().unsureBelow == 0.6)
    }

    /// A command said alone after a pause that follows its sentence is heard as itself (a second decode with the
    /// sentence's last seconds, when the first misses it), and its utterance holds none of the sentence's words.
    @Test func aCommandSaidAloneAfterItsSentenceIsHeardWithoutTheSentencesWords() throws {
        let clip = WAV.speechOnly(try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav")))
        let prompt = try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
        let words = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
            .transcribe(try Self.to16k(clip), prompt: prompt).words
        // The clip cut at its quietest 20 ms between the sentence's last word and the command's first (Whisper's
        // word times are estimates; the pause between them is in the audio).
        let first = try #require(words.lastIndex { $0.text.lowercased().hasPrefix("send") })
        let from = Int(max(0, words[max(0, first - 1)].end - 0.3) * 48_000), to = Int(words[first].start * 48_000)
        let cut =
            try #require(
                stride(from: from, to: max(from + 1, to - 960), by: 240).min { a, b in
                    clip[a..<a + 960].reduce(0) { $0 + $1 * $1 } < clip[b..<b + 960].reduce(0) { $0 + $1 * $1 }
                }) + 480
        let gap = [Float](repeating: 0, count: 33_600)  // 0.7 s: the VAD ends the sentence's utterance
        let lead = [Float](repeating: 0, count: 24_000)
        let audio = lead + Array(clip[..<cut]) + gap + Array(clip[cut...]) + lead
        let utterances = try hear(audio, with: try LiveTranscriber(options: try options()))
        let commandStarts = Double(lead.count + cut + gap.count) / 48_000
        let after = utterances.filter { $0.end > commandStarts }.map(\.text).joined(separator: " ")
        #expect(Self.detector?.detect(after)?.action == .send, "\(utterances.map { "\($0.end): \($0.text)" })")
        let heardWords = Set(after.lowercased().split { !$0.isLetter }.map(String.init))
        #expect(heardWords.isDisjoint(with: ["milk", "eggs", "home", "way"]), "\(after)")
    }

    /// A command decoded alone, after the prompt that holds it, is what Whisper loops on (four of eight lone commands
    /// on the bench wrote it to the token ceiling); the decode ends at its second writing (a prompt's sentence), and
    /// its words are the command once.
    @Test func aLoopOfAPromptsSentenceIsEndedAtItsSecondWriting() throws {
        let clip = WAV.speechOnly(try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav")))
        let prompt = try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
        let model = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
        let words = try model.transcribe(try Self.to16k(clip), prompt: prompt).words
        let first = try #require(words.lastIndex { $0.text.lowercased().hasPrefix("send") })
        // From 0.3 s before the command's first word: written five times and more without the stop.
        let command = Array(clip[Int(max(0, words[first].start - 0.3) * 48_000)...])
        let transcript = try model.transcribe(try Self.to16k(command), prompt: prompt)
        let sentences = SentenceLoop.sentenceKeys(transcript.text)
        #expect(sentences == ["sendmessage", "sendmessage"], "\(transcript.text)")
        #expect(UtteranceEnds.plain(transcript.text) == "Send message.")
    }

    /// The context's last word, placed by Whisper after the boundary, is not the utterance's if the last utterance
    /// ended with it.
    @Test func aContextWordRepeatedAtTheStartIsDropped() {
        func words(_ text: String) -> [WhisperModel.TimedWord] {
            text.split(separator: " ").map { WhisperModel.TimedWord(text: String($0), start: 0, end: 0) }
        }
        #expect(
            UtteranceEnds.withoutOverlap(words("home. Then go."), of: ["on", "the", "way", "home."]).map(\.text)
                == ["Then", "go."])
        #expect(
            UtteranceEnds.withoutOverlap(words("way home, then go."), of: ["the", "way", "Home"]).map(\.text)
                == ["then", "go."])
        #expect(UtteranceEnds.withoutOverlap(words("Then go."), of: ["home."]).map(\.text) == ["Then", "go."])
        #expect(UtteranceEnds.withoutOverlap(words("Then go."), of: []).map(\.text) == ["Then", "go."])
    }

    /// A word or a few words written three times or more in a row are Whisper looping within a sentence: kept once,
    /// with the unfinished repeat after them; said twice, they stay.
    @Test func wordsWhisperLoopsOnAreKeptOnce() {
        #expect(UtteranceEnds.plain("November November November November November") == "November")
        #expect(UtteranceEnds.plain("11 11 11 11 11 11 11 11 11") == "11")
        #expect(UtteranceEnds.plain("60th 60th 60th 60th 60") == "60th")
        #expect(UtteranceEnds.plain("Dial one, dial one, dial one, dial one, dial") == "Dial one,")
        #expect(UtteranceEnds.plain("No, no, that is wrong.") == "No, no, that is wrong.")
        #expect(UtteranceEnds.plain("Press one one one to confirm.") == "Press one to confirm.")
        #expect(UtteranceEnds.plain("Buy eggs eggs eggs and bread.") == "Buy eggs and bread.")
        #expect(UtteranceEnds.plain("Record mode. Record mode. Record mode.") == "Record mode.")
    }

    /// No 30 s window whisper.cpp aligns is shorter than a second: under 0.14 s its alignment aborted the process.
    @Test func noWindowWhisperAlignsIsShorterThanASecond() {
        let second = WhisperModel.sampleRate, window = 30 * second
        for (count, padded) in [
            (0, second), (1_927, second), (second, second), (5 * second, 5 * second), (window, window),
            (window + 1_927, window + second), (window + 2 * second, window + 2 * second),
        ] {
            let samples = WhisperModel.paddedForAlignment([Float](repeating: 0.5, count: count))
            #expect(samples.count == padded, "\(count) samples")
            #expect(samples.prefix(count).allSatisfy { $0 == 0.5 } && samples.dropFirst(count).allSatisfy { $0 == 0 })
        }
    }

    /// A twelfth of a second (what a cut can leave) is decoded, greedily and by the beam search, where it once
    /// killed the process inside whisper.cpp.
    @Test func aTwelfthOfASecondIsDecodedWithoutKillingTheProcess() throws {
        let model = try WhisperModel(path: HearingModels(folder: HearingParts.folder).whisper)
        let audio = Array(try Self.to16k(try WAVCapturePCM.load(Checkout.sample("send-buy-milk.wav"))).prefix(1_927))
        for search in [WhisperModel.Search.greedy, .beam(5)] {
            let transcript = try model.transcribe(audio, prompt: nil, search: search)
            #expect(transcript.text.count < 40, "a twelfth of a second holds no sentence: \(transcript.text)")
        }
    }

    /// The encoder hears a second more than the utterance, in steps of 64 frames, never past Whisper's 30 s.
    @Test func theEncodersContextFollowsTheUtterancesLength() {
        #expect(WhisperModel.audioContext(seconds: 0.2) == 128)
        #expect(WhisperModel.audioContext(seconds: 4) == 256)
        #expect(WhisperModel.audioContext(seconds: 4.2) == 320)
        #expect(WhisperModel.audioContext(seconds: 28) == 1_472)
        #expect(WhisperModel.audioContext(seconds: 40) == 1_500)
    }

    /// The VAD hears speech in a clip and none in digital silence.
    @Test func theVoiceActivityModelHearsSpeechNotSilence() throws {
        let activity = try VoiceActivity(path: HearingModels(folder: HearingParts.folder).voiceActivity)
        let speech = try Self.to16k(try WAVCapturePCM.load(Checkout.sample("none-weather.wav")))
        #expect(activity.probabilities(speech).contains { $0 > 0.9 })
        let fresh = try VoiceActivity(path: HearingModels(folder: HearingParts.folder).voiceActivity)
        let silence = fresh.probabilities([Float](repeating: 0, count: 16_000))
        #expect(silence.count == 16_000 / VoiceActivity.window)
        #expect(silence.allSatisfy { $0 < 0.2 })
    }
}
