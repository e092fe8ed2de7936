import BoxSim
import BoxVoiceAudio
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

/// The input ends at the command's last word (a file, or a hotkey turn stopped right after it): the end of the input
/// is the longest pause there is, so every command is settled as a pause would settle it, before the end-of-input
/// rule applies.
@Suite struct EndOfInputTests {
    private static let clips: [(String, KeywordAction)] = [
        ("send-buy-milk.wav", .send), ("sendhq-dentist.wav", .sendHq), ("sendclose-over-and-out.wav", .sendClose),
        ("sendclose-flight.wav", .sendClose),
        ("checkpoint-report.wav", .sendCheckpoint), ("micoff-stop-listening.wav", .micOff),
        ("cancel-forget-it.wav", .cancel),
        ("erase-start-over.wav", .erase),
    ]

    private func actions(_ run: DictationRun) -> [KeywordAction] {
        run.events.compactMap { if case .keyword(let action, _, _) = $0 { action } else { nil } }
    }

    /// pocketsphinx's live path (the `recognizer pocketsphinx` setting), each command kind once.
    @Test(arguments: clips)
    func aCommandThatIsTheLastAudioActsAsItself(_ clip: String, _ action: KeywordAction) throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        // An unsettled command would leave a draft by the end-of-input rule.
        let frames = try run.run([clip]) { $0.endOfInput = .draft }
        #expect(frames < (try WAV.samples(Checkout.sample(clip))).count)
        #expect(actions(run) == [action], "\(run.events)")
        let states = try run.store.messages().map(\.state)
        switch action {
        case .cancel, .erase: #expect(states.isEmpty)
        case .micOff: #expect(states == [.draft])
        default: #expect(run.delivered.count == 1 && !states.contains(.draft), "\(states)")
        }
    }

    /// A turn stopped 0.3 s after its command (a hotkey pressed as the speaker finishes), while the command only the
    /// spotter heard waits for the speaker's 2 s pause: the stop settles it as that pause would.
    @Test func aStopRightAfterAHeldCommandSettlesIt() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        let stop = StopSignal()
        let speechEnds =
            Double(WAV.speechOnly(try WAV.samples(Checkout.sample("checkpoint-report.wav"))).count) / 48_000
        run.onEvent = { event, _ in
            if case .level(let elapsed, _) = event, elapsed >= speechEnds + 0.3 { stop.request() }
        }
        try run.run(["checkpoint-report.wav"], trailing: 5, paced: true, stop: stop) { $0.endOfInput = .draft }
        #expect(stop.isRequested)
        #expect(
            run.events.contains { if case .awaitingPause(.sendCheckpoint, _) = $0 { true } else { false } },
            "held, as it should be")
        #expect(actions(run) == [.sendCheckpoint], "\(run.events)")
        #expect(run.delivered.count == 1)
        #expect(try run.store.messages().allSatisfy { $0.state != .draft })
    }

    /// A mic-off draft keeps all the audio up to its command, sample for sample: the input ended at the command.
    @Test func aMicOffDraftKeepsTheAudioUpToItsCommand() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        let frames = try run.run(["micoff-stop-listening.wav"])
        let draft = try #require(try run.store.messages().first { $0.state == .draft })
        let audio = try run.store.segmentFiles(of: draft).flatMap { try WAV.samples($0) }
        #expect(audio.count == frames)
        #expect(audio == (try WAV.samples(run.data.file("input.wav"))))
    }

    /// Whisper at utterance ends, four commands said in one breath (one utterance to the VAD): each acts as itself,
    /// in order, and each message's recording ends between its command and the next sentence.
    @Test func commandsSaidInOneBreathEachEndTheirOwnMessage() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"
            })
        let clips = ["erase-start-over.wav", "send-buy-milk.wav", "checkpoint-report.wav", "sendclose-flight.wav"]
        let prompt = try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
        let lengths = try clips.map { WAV.speechOnly(try WAV.samples(Checkout.sample($0))).count }
        try run.run(clips, gap: 0.1, tight: true) { configuration in
            var whisper = LiveTranscriber.WhisperHearing(
                models: HearingModels(folder: HearingParts.folder), prompt: prompt)
            whisper.deadline = 60  // this test is about what is heard, not how fast
            configuration.whisper = whisper
        }
        #expect(actions(run) == [.erase, .send, .sendCheckpoint, .sendClose], "\(run.events)")
        #expect(run.delivered.count == 3)
        for (message, length) in zip(run.delivered, lengths.dropFirst()) {
            let audio = try run.retainedAudio(message.messageId)
            // Its own sentence (give or take the pause around it), not the next one's, nor the one before.
            #expect(abs(audio.count - length) < 24_000, "\(audio.count) frames kept for a sentence of \(length)")
        }
    }
}
