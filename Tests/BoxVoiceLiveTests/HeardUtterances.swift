import BoxVoiceLive

/// The utterances a transcriber hears in `samples` (48 kHz), fed in chunks of `chunk` frames as the capture loop
/// would, then finished as at the end of the input.
func heardUtterances(_ samples: [Float], by transcriber: LiveTranscriber, chunk: Int = 4_800) throws
    -> [LiveUtterance]
{
    var found: [LiveUtterance] = []
    for start in stride(from: 0, to: samples.count, by: chunk) {
        for case .utterance(let utterance) in try transcriber.feed(
            Array(samples[start..<min(start + chunk, samples.count)]))
        {
            found.append(utterance)
        }
    }
    for case .utterance(let utterance) in try transcriber.finish() { found.append(utterance) }
    return found
}
