import BoxVoiceKeywords
import BoxVoiceTestSupport
import Foundation

/// `boxvoice-bench keywords --models DIR`: times keyword detection against the naive baseline and prints a
/// Markdown section for BENCHMARKS.md.
func benchKeywords(modelsDirectory: String) throws {
    let vocabulary = try Vocabulary.load(path: modelsDirectory + "/speech-keywords.en.txt")
    let detector = KeywordDetector(vocabulary: vocabulary)
    let naive = NaiveKeywordDetector(vocabulary: vocabulary)
    // Dictation-like filler with no command in it: the worst case, every position is tried.
    let filler = """
        Here are my notes from the planning meeting this morning. We started with a review of last quarter, which went \
        better than expected; sales in the northern region grew by twelve percent, and Maria's team shipped the new \
        cases on time. Next we talked about hiring, the office move in September, parking, the conference budget and \
        the survey.
        """.split(separator: " ").map(String.init)

    // A send phrase from the vocabulary itself (phrases are spelled only in Models/).
    let sendSection = vocabulary.sections.first { $0.action == .send }!
    let sendPhrase = sendSection.patterns.flatMap { $0.expansions() }.filter { !$0.isEmpty }.min {
        $0.count < $1.count
    }!
    .joined(separator: " ")

    func transcript(words count: Int) -> String {
        (0..<count).map { filler[$0 % filler.count] }.joined(separator: " ")
    }

    /// Median nanoseconds per call over several timed batches of about 50 ms each.
    func measure(_ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        var calls = 1
        while clock.measure({ for _ in 0..<calls { body() } }) < .milliseconds(20) { calls *= 2 }
        var samples: [Double] = []
        for _ in 0..<7 {
            let elapsed = clock.measure { for _ in 0..<calls { body() } }
            samples.append(Double(elapsed.components.attoseconds) / 1e9 + Double(elapsed.components.seconds) * 1e9)
        }
        return samples.sorted()[samples.count / 2] / Double(calls)
    }

    print("### Keyword detection: the compiled matcher against naive expansion")
    print()
    print("`KeywordDetector.detect` (compiled trie, one dictionary lookup per word) against the naive baseline in")
    print(
        "`Tests/BoxVoiceTestSupport/NaiveKeywordDetector.swift` (every pattern expanded into word lists, each compared "
            + "at"
    )
    print(
        "every start position, action by action). Both include tokenizing. Transcripts are dictation-like text with no "
            + "command,"
    )
    print(
        "so every position is tried (the worst case); the last column appends the send phrase \"\(sendPhrase)\". "
            + "Release build, median of 7 batches."
    )
    print()
    print(
        "| words | compiled ns/call | compiled ns/word | naive ns/call | naive ns/word | **speed-up** | with keyword "
            + "at end, compiled ns/word |"
    )
    print("|---|---|---|---|---|---|---|")
    var speedUpAt1000 = 0.0
    for count in [10, 100, 1_000, 10_000] {
        let text = transcript(words: count)
        precondition(detector.detect(text) == nil && naive.detect(text) == nil, "filler must hold no command")
        let withKeyword = text + " " + sendPhrase
        precondition(detector.detect(withKeyword)?.action == .send)
        let fast = measure { _ = detector.detect(text) }
        let slow = measure { _ = naive.detect(text) }
        let tail = measure { _ = detector.detect(withKeyword) }
        if count == 1_000 { speedUpAt1000 = slow / fast }
        let row = [
            String(count), String(format: "%.0f", fast), String(format: "%.1f", fast / Double(count)),
            String(format: "%.0f", slow), String(format: "%.1f", slow / Double(count)),
            String(format: "**%.1f×**", slow / fast),
            String(format: "%.1f", tail / Double(count + sendPhrase.split(separator: " ").count)),
        ]
        print("| " + row.joined(separator: " | ") + " |")
    }
    print()
    print(
        "Aim: cost linear in words (ns/word flat from 100 to 10,000 words) and at 1,000 words ≥ 10× faster than the "
            + "naive baseline."
    )
    print()
    print(
        String(
            format: "<!-- headline: finding a command in 1,000 words of dictation: %.1f× faster than naive "
                + "expansion -->", speedUpAt1000))
}
