import CWhisper
import Foundation

/// Forced scoring: the decoder run over given tokens to weigh them against the audio last encoded.
extension WhisperModel {
    /// The log-probability Whisper gives each of `tokens` in turn over the audio it last encoded, given the tokens
    /// before it and `prompt` as whisper.cpp lays a prompt out (nil: none): the decoder run forward over the words,
    /// the encoder's work reused. nil if whisper.cpp fails a step.
    func forcedWeights(_ tokens: [whisper_token], prompt: String?, threads: Int) -> [Weighed]? {
        guard !tokens.isEmpty else { return [] }
        guard let lead = lead(prompt: prompt) else { return nil }
        return weigh(tokens, after: lead, threads: threads)
    }

    /// One token as the decoder weighed it: its log-probability, and how far its logit fell short of the highest
    /// there (natural log; 0 when it was the decoder's first choice).
    struct Weighed {
        var logProbability: Float
        var shortfall: Float
    }

    /// What comes before an English transcript's first text token: `prompt` as whisper.cpp lays a prompt out (its
    /// last tokens that fit in half the text context, after the "previous" mark), the start of the transcript, the
    /// language and task on a multilingual model, and no timestamps. nil if the prompt cannot be tokenized.
    func lead(prompt: String?) -> [whisper_token]? {
        var feed: [whisper_token] = []
        if let prompt, !prompt.isEmpty {
            guard let promptTokens = tokenized(prompt) else { return nil }
            let room = Int(whisper_n_text_ctx(context)) / 2 - 1
            feed = [whisper_token_prev(context)] + promptTokens.suffix(room)
        }
        feed.append(whisper_token_sot(context))
        if whisper_is_multilingual(context) != 0 {
            feed += [whisper_token_lang(context, whisper_lang_id("en")), whisper_token_transcribe(context)]
        }
        feed.append(whisper_token_not(context))
        return feed
    }

    func tokenized(_ text: String) -> [whisper_token]? {
        var tokens = [whisper_token](repeating: 0, count: 1_024)
        let count = whisper_tokenize(context, text, &tokens, Int32(tokens.count))
        return count >= 0 ? Array(tokens[..<Int(count)]) : nil
    }

    /// The log-probability of each of `tokens` in turn after `feed` (`lead` and text tokens), over the audio last
    /// encoded. When `feed` is the one last weighed after, its keys and values are still in the decoding state
    /// (whisper.cpp drops those past the position a decode starts at), so only its last token is decoded again.
    func weigh(
        _ tokens: [whisper_token], after feed: [whisper_token], threads: Int, reusing lastFeed: [whisper_token]? = nil
    ) -> [Weighed]? {
        guard let lastToken = feed.last else { return nil }
        let vocabulary = Int(whisper_n_vocab(context))
        var input = feed
        var past: Int32 = 0
        if lastFeed == feed {
            input = [lastToken]
            past = Int32(feed.count - 1)
        }
        var scores: [Weighed] = []
        for token in tokens {
            let status = input.withUnsafeBufferPointer {
                whisper_decode_with_state(context, state, $0.baseAddress, Int32($0.count), past, Int32(threads))
            }
            guard status == 0, let logits = whisper_get_logits_from_state(state) else { return nil }
            let last = UnsafeBufferPointer(start: logits + (input.count - 1) * vocabulary, count: vocabulary)
            let highest = last.max() ?? 0
            let total = last.reduce(0.0) { $0 + exp(Double($1 - highest)) }
            let logit = last[Int(token)]
            scores.append(Weighed(logProbability: logit - highest - Float(log(total)), shortfall: highest - logit))
            past += Int32(input.count)
            input = [token]
        }
        return scores
    }

    /// `tokens` with their last words replaced by the ending `rewriting` offers that Whisper finds likeliest
    /// against its own words, each weighed with the end of the text after it; nil when none comes within the
    /// margin (or whisper.cpp fails a step). The ending's tokens carry the probabilities they were weighed with, so
    /// the decision judges them as any decode, and the times of the words they replace.
    func rewritten(
        _ tokens: [Token], by rewriting: Rewriting, prompt: String?, threads: Int
    ) -> (tokens: [Token], gain: Float)? {
        let ranges = Self.wordRanges(of: tokens)
        let written = ranges.map { Self.text(of: tokens[$0]) }
        let endings = rewriting.endings(written).filter { $0.keeping >= 0 && $0.keeping < ranges.count }
        guard !endings.isEmpty, let lead = lead(prompt: prompt) else { return nil }
        let endOfText = whisper_token_eot(context)
        var own: [Int: Float] = [:]
        var lastFeed: [whisper_token]?
        var best: (gain: Float, tokens: [Token])?
        for ending in endings {
            let cut = ranges[ending.keeping].lowerBound
            let feed = lead + tokens[..<cut].map(\.id)
            if own[ending.keeping] == nil {
                guard let scores = weigh(tokens[cut...].map(\.id) + [endOfText], after: feed, threads: threads)
                else { return nil }
                own[ending.keeping] = scores.map(\.logProbability).reduce(0, +)
                lastFeed = feed
            }
            guard let ids = tokenized(" " + ending.text), !ids.isEmpty,
                let scores = weigh(ids + [endOfText], after: feed, threads: threads, reusing: lastFeed)
            else { continue }
            lastFeed = feed
            let gain = scores.map(\.logProbability).reduce(0, +) - own[ending.keeping, default: 0]
            guard gain >= -rewriting.margin, gain > best?.gain ?? -.infinity else { continue }
            let first = tokens[cut].time, last = tokens.last?.time ?? first
            let replacement = ids.enumerated().map { index, id in
                let piece = whisper_token_to_str(context, id)
                return Token(
                    id: id, bytes: piece.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? [],
                    probability: exp(scores[index].logProbability),
                    time: ids.count == 1 ? last : first + (last - first) * Double(index) / Double(ids.count - 1))
            }
            best = (gain, Array(tokens[..<cut]) + replacement)
        }
        return best.map { ($0.tokens, $0.gain) }
    }

    /// Which tokens make each word: a token starting with a space starts one, as does any token after tokens that
    /// wrote nothing.
    static func wordRanges(of tokens: [Token]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for (index, token) in tokens.enumerated()
        where index > start
            && (token.bytes.first == UInt8(ascii: " ") || tokens[start..<index].allSatisfy(\.bytes.isEmpty))
        {
            ranges.append(start..<index)
            start = index
        }
        if start < tokens.count { ranges.append(start..<tokens.count) }
        return ranges
    }

    /// The last decode's text tokens weighed again under `prompt`, as probabilities, beside the probabilities the
    /// decode itself gave them: for tests that pin the weighing to whisper.cpp's own search.
    func lastDecodeWeighed(prompt: String?) -> (weighed: [Float], decoded: [Float])? {
        let tokens = textTokens()
        return forcedWeights(tokens.map(\.id), prompt: prompt, threads: 2).map {
            ($0.map { exp($0.logProbability) }, tokens.map(\.probability))
        }
    }
}
