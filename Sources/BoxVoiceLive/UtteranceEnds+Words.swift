import BoxVoiceKeywords
import Foundation

/// Whisper's words made into an utterance's: context, overlaps, repeats and stutters taken out.
extension UtteranceEnds {
    static func text(_ words: [WhisperModel.TimedWord]) -> String { words.map(\.text).joined(separator: " ") }

    /// How the loop and overlap checks compare words: case and punctuation aside.
    static func wordKey(_ text: String) -> String { text.lowercased().filter { $0.isLetter || $0.isNumber } }

    /// `words` without a beginning that repeats the end of the last utterance's words (the context's last word
    /// placed after the boundary).
    static func withoutOverlap(_ words: [WhisperModel.TimedWord], of last: [String]) -> [WhisperModel.TimedWord] {
        let longest = min(words.count, last.count)
        guard longest > 0 else { return words }
        for length in stride(from: longest, through: 1, by: -1)
        where (0..<length).allSatisfy({ wordKey(words[$0].text) == wordKey(last[last.count - length + $0]) }) {
            return Array(words[length...])
        }
        return words
    }

    /// The words of a decode given `context` seconds of audio before the utterance, in the utterance's own times.
    /// The utterance's audio starts with `lead` of quiet before its speech: a word Whisper places in the first half
    /// of that quiet or earlier belongs to the context (the last utterance, already given).
    static func ownWords(_ words: [WhisperModel.TimedWord], after context: Double, lead: Double)
        -> [WhisperModel.TimedWord]
    {
        guard context > 0 else { return words }
        return words.filter { $0.end >= context + lead / 2 }.map {
            var word = $0
            word.start = max(0, $0.start - context)
            word.end = max(0, $0.end - context)
            return word
        }
    }

    /// The audio just before `cut` that its decode is given: `settings.context.seconds` of it when the cut is
    /// shorter than `settings.context.below` and the last utterance's speech ended within `settings.context.after`
    /// of the cut's start; none otherwise.
    func context(for cut: UtteranceCutter.Cut) -> [Float] {
        let range = Self.contextRange(
            for: cut, lastSpeechEnd: lastSpeechEnd, rule: settings.context,
            kept: recentStart..<(recentStart + recent.count))
        return range.map { Array(recent[($0.lowerBound - recentStart)..<($0.upperBound - recentStart)]) } ?? []
    }

    /// The stream samples `context(for:)` gives (nil: none), of those `kept`.
    static func contextRange(
        for cut: UtteranceCutter.Cut, lastSpeechEnd: Double?, rule: LiveTranscriber.Context,
        kept: Range<Int>
    ) -> Range<Int>? {
        let rate = Double(WhisperModel.sampleRate)
        guard rule.seconds > 0, Double(cut.samples.count) / rate < rule.below, let lastSpeechEnd,
            cut.start - lastSpeechEnd <= rule.after
        else { return nil }
        let first = Int((cut.end * rate).rounded()) - cut.samples.count
        let from = max(kept.lowerBound, first - Int(rule.seconds * rate))
        guard first > from, first <= kept.upperBound else { return nil }
        return from..<first
    }

    /// Keeps the audio heard for `context(for:)` and `leadIn(for:)`. Only a cut shorter than `context.below` gets
    /// context, the lead-in makes a cut `languageSeconds` long, and every cut ends within the samples handed in now:
    /// those samples and, before them, that length (and a second) are all that is ever read.
    func remember(_ samples: ArraySlice<Float>) {
        let forContext = settings.context.seconds > 0 ? settings.context.below + settings.context.seconds + 1 : 0
        let forLanguage = settings.ownLanguageBelow == nil ? 0 : Self.languageSeconds + 1
        guard forContext + forLanguage > 0 else { return }
        // Plus the deadline: an utterance is decided up to that long after it ended, while hearing goes on.
        let keep = Int((max(forContext, forLanguage) + settings.deadline) * Double(WhisperModel.sampleRate))
        if recent.count > keep + keep / 4 {
            recentStart += recent.count - keep
            recent.removeFirst(recent.count - keep)
        }
        recent += samples
    }

    /// The same text as `plain(_:)` of words, for text without times.
    static func plain(_ text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace).map {
            WhisperModel.TimedWord(text: String($0), start: 0, end: 0)
        }
        return plain(words).map(\.text).joined(separator: " ")
    }

    /// Whisper writes what it cannot make out as bracketed notes ("[BLANK_AUDIO]", "(wind blowing)"); they are not
    /// words anyone said. And it sometimes loops, writing what was said once again and again.
    static func plain(_ words: [WhisperModel.TimedWord]) -> [WhisperModel.TimedWord] {
        var kept: [WhisperModel.TimedWord] = []
        var depth = 0
        for word in words {
            var text = ""
            for character in word.text {
                switch character {
                case "[", "(": depth += 1
                case "]", ")": depth = max(0, depth - 1)
                default: if depth == 0 { text.append(character) }
                }
            }
            text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty {
                var plainWord = word
                plainWord.text = text
                kept.append(plainWord)
            }
        }
        return withoutRepeats(withoutStutters(kept))
    }

    /// Drops a run of sentences that only repeats the run just before it ("A. B. A. B." is "A. B."), and an
    /// unfinished last sentence that begins to repeat once a loop was seen ("A. B. A. B. A" is "A. B.").
    static func withoutRepeats(_ words: [WhisperModel.TimedWord]) -> [WhisperModel.TimedWord] {
        var sentences: [[WhisperModel.TimedWord]] = [[]]
        for word in words {
            sentences[sentences.count - 1].append(word)
            if let last = word.text.last, ".!?".contains(last) { sentences.append([]) }
        }
        if sentences.last?.isEmpty == true { sentences.removeLast() }
        func key(_ sentence: [WhisperModel.TimedWord]) -> String {
            wordKey(sentence.map(\.text).joined())
        }
        let keys = sentences.map(key)
        var kept: [Int] = []
        var looped = false
        var index = 0
        while index < sentences.count {
            let repeated = (1...max(1, kept.count)).first { length in
                index + length <= keys.count && kept.count >= length
                    && (0..<length).allSatisfy { offset in
                        let key = keys[index + offset]
                        return key == keys[kept[kept.count - length + offset]] && !key.isEmpty
                    }
            }
            if let repeated {
                looped = true
                index += repeated
                continue
            }
            let finished = sentences[index].last?.text.last.map { ".!?".contains($0) } ?? false
            let unfinished = index == sentences.count - 1 && !finished
            let startsARepeat = kept.contains { keys[$0].hasPrefix(keys[index]) }
            if unfinished, looped, !keys[index].isEmpty, startsARepeat { break }
            kept.append(index)
            index += 1
        }
        return kept.flatMap { sentences[$0] }
    }

    /// Whisper's other loop: a word or a few words written over and over within a sentence ("November November
    /// November …", "eleven eleven eleven …"), which a single greedy pass does on a short utterance. Three or more
    /// repeats in a row are one; a person who says a word twice ("no, no") keeps both. An unfinished repeat after a
    /// collapsed run goes too.
    static func withoutStutters(_ words: [WhisperModel.TimedWord]) -> [WhisperModel.TimedWord] {
        let keys = words.map { wordKey($0.text) }
        func same(_ a: Int, _ b: Int, _ length: Int) -> Bool {
            (0..<length).allSatisfy { keys[a + $0] == keys[b + $0] && !keys[a + $0].isEmpty }
        }
        var kept: [WhisperModel.TimedWord] = []
        var index = 0
        while index < words.count {
            var collapsed = false
            for length in 1...6 where index + 3 * length <= words.count {
                var repeats = 1
                while index + (repeats + 1) * length <= words.count, same(index, index + repeats * length, length) {
                    repeats += 1
                }
                guard repeats >= 3 else { continue }
                kept += words[index..<index + length]
                index += repeats * length
                // What follows may be the loop cut short by the token ceiling: the n-gram's beginning again.
                var tail = 0
                while tail < length, index + tail < words.count, !keys[index + tail].isEmpty,
                    keys[index - length + tail].hasPrefix(keys[index + tail])
                { tail += 1 }
                if index + tail == words.count { index = words.count }
                collapsed = true
                break
            }
            if !collapsed {
                kept.append(words[index])
                index += 1
            }
        }
        return kept
    }
}
