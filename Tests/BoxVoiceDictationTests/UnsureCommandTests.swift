import BoxSim
import BoxVoiceDictation
import BoxVoiceKeywords
import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

/// A command Whisper wrote but was unsure of acts only on the box's yes; with nobody to ask, its words are taken as not
/// heard and the message stays open. A command's words split by a pause are no command at all.
@Suite struct UnsureCommandTests {
    /// Dictates `send-buy-milk.wav` with Whisper, the box's HQ hearing `text` (nil: failing).
    /// - Parameter pausedMidCommand: a pause of 1.5 s put between the command's two words, long enough for the VAD
    ///   to end the utterance there: Whisper writes "…home. Send." and then "Message.", with the shipped decision.
    ///   Otherwise the act line is raised over every score.
    /// - Parameter whisperDeadline: how long Whisper's words are waited for (0: never; pocketsphinx's stand in).
    /// - Parameter askLine: the decision's ask line, under the raised act line (at it: nothing is asked).
    private func run(
        boxHears text: String?, secondOpinion: Double?, pausedMidCommand: Bool = false, whisperDeadline: Double = 60,
        askLine: Double = -.infinity
    ) throws -> DictationRun {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = text.map { .fixed($0) } ?? .fail(code: "missing_api_key")
                $0.defaultSession = "s1"
            })
        try FileManager.default.createDirectory(atPath: run.data.file("work"), withIntermediateDirectories: true)
        var clip = "send-buy-milk.wav"
        if pausedMidCommand {
            let whole = try WAV.samples(Checkout.sample(clip))
            let between = 156_000  // 3.25 s: after "send", before "message"
            clip = run.data.file("paused.wav")
            try WAV.write(
                Array(whole[..<between]) + [Float](repeating: 0, count: 72_000) + whole[between...], to: clip)
        }
        let prompt = try String(contentsOfFile: HearingParts.prompt, encoding: .utf8)
        try run.run([clip]) { configuration in
            var whisper = LiveTranscriber.WhisperHearing(
                models: HearingModels(folder: HearingParts.folder), prompt: prompt)
            whisper.deadline = whisperDeadline
            if !pausedMidCommand {
                // No score reaches a line over 0: every command is asked of the box, or refused unasked.
                whisper.decision = CommandDecision(surenessWeight: 0, act: 0.01, ask: askLine)
            }
            configuration.whisper = whisper
            configuration.workDirectory = run.data.file("work")
            configuration.secondOpinionSeconds = secondOpinion
            configuration.endOfInput = .draft
        }
        return run
    }

    /// Not acted on, and the command's words are left out of the draft.
    @Test func aCommandWithNobodyToAskIsNotActedOn() throws {
        let run = try run(boxHears: nil, secondOpinion: nil)
        let refused = run.events.compactMap {
            if case .commandNotTaken(.send, let phrase, .unsure(let score, let threshold)) = $0 {
                (phrase, score, threshold)
            } else {
                nil
            }
        }
        // The act line is raised over every score: the refusal names the phrase, its score and the line.
        #expect(refused.count == 1, "\(run.events)")
        #expect(refused.first?.0.lowercased() == "send message")
        #expect(refused.first.map { $0.1 <= 0 && $0.2 == 0.01 } == true, "\(refused)")
        #expect(!run.events.contains { if case .keyword = $0 { true } else { false } })
        #expect(run.delivered.isEmpty)
        let draft = try #require(try run.store.messages().first { $0.state == .draft })
        #expect(draft.text?.lowercased().contains("milk") == true, "\(draft.text ?? "")")
        #expect(draft.text?.lowercased().contains("message") == false, "\(draft.text ?? "")")
    }

    /// Whisper's words never come: pocketsphinx's words end with the send command, and with nobody to ask it is not
    /// taken, saying why; the words before it are kept.
    @Test func aCommandInStandInWordsWithNobodyToAskIsNotActedOn() throws {
        let run = try run(boxHears: nil, secondOpinion: nil, whisperDeadline: 0)
        let refused = run.events.contains {
            if case .commandNotTaken(.send, let phrase, .lateDecode) = $0 {
                phrase.lowercased() == "send message"
            } else {
                false
            }
        }
        #expect(refused, "\(run.events)")
        #expect(!run.events.contains { if case .keyword = $0 { true } else { false } }, "\(run.events)")
        #expect(run.delivered.isEmpty)
        let draft = try #require(try run.store.messages().first { $0.state == .draft })
        #expect(draft.text?.lowercased().contains("milk") == true, "\(draft.text ?? "")")
    }

    /// "Send." and, after a pause, "Message.": the speaker ended neither utterance on a command, so both are words
    /// of the message, nobody is asked and nothing acts.
    @Test func aCommandSplitByAPauseIsText() throws {
        let run = try run(
            boxHears: "Please buy milk and eggs on the way home. Send message.", secondOpinion: 5,
            pausedMidCommand: true)
        let finals = run.events.compactMap { if case .final(let text) = $0 { text } else { nil } }
        #expect(finals.count == 2 && finals.last?.lowercased().hasPrefix("message") == true, "\(finals)")
        #expect(!run.events.contains { if case .commandChecked = $0 { true } else { false } }, "\(run.events)")
        #expect(!run.events.contains { if case .keyword = $0 { true } else { false } })
        #expect(run.delivered.isEmpty)
        let draft = try #require(try run.store.messages().first { $0.state == .draft })
        #expect(draft.text?.lowercased().contains("send. message") == true, "\(draft.text ?? "")")
    }

    @Test func aCommandTheBoxAlsoHearsActs() throws {
        let run = try run(boxHears: "Please buy milk and eggs on the way home. Send message.", secondOpinion: 5)
        let checked = run.events.compactMap {
            if case .commandChecked(.send, let outcome, _) = $0 { outcome } else { nil }
        }
        #expect(checked == [.confirmed], "\(run.events)")
        #expect(run.delivered.count == 1)
        #expect(run.delivered.first?.message.contains("<send-message") == true)
    }

    /// Under the ask line the box is not asked, though it would have said yes: the command is not taken, saying why.
    @Test func aCommandUnderTheAskLineIsNotAskedOfTheBox() throws {
        let run = try run(
            boxHears: "Please buy milk and eggs on the way home. Send message.", secondOpinion: 5, askLine: 0.01)
        #expect(!run.events.contains { if case .commandChecked = $0 { true } else { false } }, "\(run.events)")
        let refused = run.events.contains {
            if case .commandNotTaken(.send, _, .unsure(_, 0.01)) = $0 { true } else { false }
        }
        #expect(refused, "\(run.events)")
        #expect(run.delivered.isEmpty)
    }

    @Test func anUnsureCommandTheBoxDoesNotHearStaysOut() throws {
        let run = try run(boxHears: "Please buy milk and eggs on the way home, said the grocer.", secondOpinion: 5)
        let checked = run.events.compactMap {
            if case .commandChecked(.send, let outcome, _) = $0 { outcome } else { nil }
        }
        #expect(checked == [.rejected], "\(run.events)")
        #expect(run.delivered.isEmpty)
        let draft = try #require(try run.store.messages().first { $0.state == .draft })
        #expect(draft.text?.lowercased().contains("message") == false, "\(draft.text ?? "")")
    }
}
