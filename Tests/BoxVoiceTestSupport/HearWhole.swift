import BoxVoiceLive

extension LiveTranscriber {
    /// The utterances heard in `samples` (48 kHz), fed in chunks of `chunk` frames as the capture loop would, then
    /// finished as at the end of the input. `decidingEach`: each ended utterance is decided before more audio is heard
    /// (`decideWaiting`), so every one is in Whisper's words, as a machine that keeps up gives them, however much
    /// faster than real time the file goes. `afterEachChunk` sees the transcriber between chunks.
    public func hearWhole(
        _ samples: [Float], chunk: Int = 4_800, decidingEach: Bool = false,
        afterEachChunk: (LiveTranscriber) -> Void = { _ in }
    ) throws -> [LiveUtterance] {
        var heard: [LiveUtterance] = []
        for start in stride(from: 0, to: samples.count, by: chunk) {
            var updates = try feed(Array(samples[start..<min(start + chunk, samples.count)]))
            if decidingEach { updates += decideWaiting() }
            for case .utterance(let utterance) in updates { heard.append(utterance) }
            afterEachChunk(self)
        }
        for case .utterance(let utterance) in try finish() { heard.append(utterance) }
        return heard
    }
}
