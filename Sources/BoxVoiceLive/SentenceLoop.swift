/// Whisper's sentence loop, seen while it decodes: a greedy pass over a short utterance often writes its last
/// sentence (or last few) again and again until the token ceiling, and each token costs a decoder step. Before the
/// decode was stopped at the loop, a lone command of 1.4 s decoded in 0.85 s, 18 tokens of which 15 were the loop,
/// against 0.48 s for one of 3 tokens (BENCHMARKS.md at 7c182fc, "A sentence loop"). `UtteranceEnds.withoutRepeats`
/// drops the repeats from the words either way; stopping the decode only spares their cost.
///
/// A person can say a sentence twice ("Stop. Stop.") and go on; only a third writing in a row is a loop. A run of
/// the prompt's own sentences (the command phrases) is a loop at its second writing: the prompt is a list of them,
/// so Whisper goes on writing one it heard, and a lone command spent a third of its tokens on the third writing.
enum SentenceLoop {
    /// The longest run of sentences checked for a loop.
    static let longestRun = 3
    /// How many times in a row a run is written before the decode is ended.
    static let writings = 3
    /// How many times in a row a run of the prompt's sentences is written before the decode is ended.
    static let promptWritings = 2

    /// Whether `text` ends with a run of one to `longestRun` sentences written `writings` times in a row, or a run
    /// of sentences all in `prompt` (their `sentenceKeys`) written `promptWritings` times. Only a text ending a
    /// sentence can end a loop: a sentence is compared whole.
    static func endsInLoop(_ text: String, prompt: Set<String> = []) -> Bool {
        guard let last = text.last(where: { !$0.isWhitespace }), ".!?".contains(last) else { return false }
        let keys = sentenceKeys(text)
        for run in 1...longestRun where keys.count >= run * promptWritings {
            let sentences = Array(keys.suffix(run))
            let times = sentences.allSatisfy(prompt.contains) ? promptWritings : writings
            guard keys.count >= run * times else { continue }
            let tail = keys.suffix(run * times)
            if (0..<times - 1).allSatisfy({ Array(tail.dropFirst($0 * run).prefix(run)) == sentences }) { return true }
        }
        return false
    }

    /// Each sentence of `text` as it is compared: the key `UtteranceEnds.withoutRepeats` compares sentences by
    /// (`UtteranceEnds.wordKey`: Whisper's loop changes neither words nor their order, but may change case or a
    /// comma). A sentence ends at `.`, `!` or `?`; one without letters or digits is none.
    static func sentenceKeys(_ text: String) -> [String] {
        text.split { ".!?".contains($0) }.map { UtteranceEnds.wordKey(String($0)) }.filter { !$0.isEmpty }
    }
}
