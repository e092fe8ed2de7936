import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

/// The language-model decoder's dictionary, cut to the words its language model knows.
@Suite struct PronunciationDictionaryTests {
    private func lines(_ path: String) throws -> [Substring] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    }

    @Test func theCutDictionaryHoldsEveryPronunciationOfTheLanguageModelsWordsAndNoOther() throws {
        let folder = TemporaryDirectory("dictionary")
        let full = PocketSphinxModel.debianEnglish
        let cut = full.limitedToLanguageModelWords(keptIn: folder.path)
        #expect(cut.dictionary.hasPrefix(folder.path) && cut.languageModel == full.languageModel)
        let words = Set(try full.languageModelWords())
        #expect(words.count > 70_000 && words.contains("message") && words.contains("send"))
        let word = { (line: Substring) -> String in
            let head = line.split(separator: " ", maxSplits: 1)[0]
            return String(head.firstIndex(of: "(").map { head[..<$0] } ?? head)
        }
        let kept = try lines(cut.dictionary)
        let expected = try lines(full.dictionary).filter { words.contains(word($0)) }
        #expect(kept == expected, "alternate pronunciations kept, in the dictionary's order")
        #expect(kept.count < 100_000, "\(kept.count) of 134,723 pronunciations")
    }

    /// One clip in each of the sample voices. The cut keeps every pronunciation of every word the language model
    /// can say (the test above), so no decode can differ; this shows it on real audio without decoding every sample
    /// twice (the live benchmark decodes them all with the cut dictionary).
    @Test func aClipInEachVoiceDecodesToTheSameTextWithTheCutDictionary() throws {
        let folder = TemporaryDirectory("dictionary")
        let full = try PocketSphinxDecoder()
        let cut = try PocketSphinxDecoder(
            model: PocketSphinxModel.debianEnglish.limitedToLanguageModelWords(keptIn: folder.path))
        for clip in [
            "send-buy-milk.wav", "cancel-kal-wrong.wav", "checkpoint-rms-draft.wav", "erase-slt-mess.wav",
            "micoff-awb-phone.wav", "none-weather.wav",
        ] {
            let samples = try SpeechConversion.recognizerSamples(fromFile: Checkout.sample(clip))
            let heard = try full.transcribe(samples)
            #expect(!heard.isEmpty, "\(clip)")
            #expect(try cut.transcribe(samples) == heard, "\(clip)")
        }
    }

    @Test func theCutIsMadeOnceAndReusedUntilTheModelChanges() throws {
        let folder = TemporaryDirectory("dictionary")
        let first = PocketSphinxModel.debianEnglish.limitedToLanguageModelWords(keptIn: folder.path)
        let made = try FileManager.default.attributesOfItem(atPath: first.dictionary)[.modificationDate] as? Date
        Thread.sleep(forTimeInterval: 0.05)
        let second = PocketSphinxModel.debianEnglish.limitedToLanguageModelWords(keptIn: folder.path)
        #expect(second.dictionary == first.dictionary)
        #expect(try FileManager.default.attributesOfItem(atPath: second.dictionary)[.modificationDate] as? Date == made)

        // Another dictionary (a package upgrade, a user's own) gets a cut of its own.
        let own = folder.file("own.dict")
        try "send S EH N D\nmessage M EH S IH JH\nzzyzx Z AY Z IH K S\n".write(
            toFile: own, atomically: true, encoding: .utf8)
        var model = PocketSphinxModel.debianEnglish
        model.dictionary = own
        let third = model.limitedToLanguageModelWords(keptIn: folder.path)
        #expect(third.dictionary != first.dictionary)
        #expect(try lines(third.dictionary) == ["send S EH N D", "message M EH S IH JH"])
    }

    @Test func whereTheCutCannotBeWrittenTheFullDictionaryIsUsed() throws {
        let folder = TemporaryDirectory("dictionary")
        try "not a folder".write(toFile: folder.file("blocked"), atomically: true, encoding: .utf8)
        let model = PocketSphinxModel.debianEnglish.limitedToLanguageModelWords(keptIn: folder.file("blocked"))
        #expect(model == .debianEnglish)
        let recognizer = try PocketSphinxRecognizer(dictionaryCache: folder.file("blocked"))
        #expect(try recognizer.finish().isEmpty)
    }
}
