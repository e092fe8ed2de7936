import BoxSim
import BoxVoiceTestSupport
import Foundation
import Testing

/// HQ transcription (§1) as the revised contract states it, checked over the wire.
@Suite struct ConformanceTranscribeTests {
    private func transcribe(_ box: ConformanceBox, _ body: [UInt8], type: String = ConformanceBox.multipartType) throws
        -> RawHTTP.Response
    {
        try box.post("/api/chat/transcribe-audio", body: body, headers: [box.bearer, ("Content-Type", type)])
    }

    @Test func aWavSegmentIsTranscribed() throws {
        // §1: 200 → {"text", "diarized", "service"}.
        let box = try ConformanceBox { $0.hq = .describe }
        let answer = try transcribe(
            box,
            ConformanceBox.multipart([
                ("session", nil, nil, Array("s1".utf8)),
                ("file", "segment.wav", "audio/wav", try box.wavBytes()),
            ]))
        #expect(answer.status == 200, "\(answer)")
        #expect(
            answer.json?["text"] is String && answer.json?["diarized"] as? Bool == false
                && answer.json?["service"] is String)
    }

    /// In whisper mode the HQ text is Whisper's reading of the upload (a real recognizer, as a box's HQ is).
    @Test func whisperModeAnswersWithWhatTheRecordingSays() throws {
        let box = try ConformanceBox { $0.hq = .whisper(model: HearingParts.folder + "/ggml-base-q8_0.bin") }
        let wav = Array(try Data(contentsOf: URL(fileURLWithPath: Checkout.sample("none-weather.wav"))))
        let answer = try transcribe(box, ConformanceBox.multipart([("file", "segment.wav", "audio/wav", wav)]))
        #expect(answer.status == 200, "\(answer)")
        #expect(answer.json?["service"] as? String == "whisper")
        let text = (answer.json?["text"] as? String ?? "").lowercased()
        #expect(text.contains("weather") && text.contains("sunny") && text.contains("breeze"), "\(text)")
    }

    @Test func aRequestThatIsNotMultipartIs406() throws {
        // §1: 406 {"error":"the request is not multipart"}.
        let box = try ConformanceBox { $0.hq = .describe }
        let answer = try box.post("/api/chat/transcribe-audio", json: ["file": "x"])
        #expect(answer.status == 406 && answer.json?["error"] as? String == "the request is not multipart", "\(answer)")
    }

    @Test func aMultipartTypeWithoutBoundaryIs500() throws {
        // §1: 500 {"error":"Internal server error"} (multipart type without boundary).
        let box = try ConformanceBox { $0.hq = .describe }
        let answer = try transcribe(
            box, ConformanceBox.multipart([("file", "segment.wav", "audio/wav", [1, 2])]), type: "multipart/form-data")
        #expect(answer.status == 500 && answer.json?["error"] as? String == "Internal server error", "\(answer)")
    }

    @Test func aFileFieldWithoutFilenameIsNoAudio() throws {
        // §1: a part is a file if it has a filename or is application/octet-stream (`file` without filename → 400).
        let box = try ConformanceBox { $0.hq = .describe }
        let answer = try transcribe(box, ConformanceBox.multipart([("file", nil, nil, try box.wavBytes())]))
        #expect(answer.status == 400 && answer.json?["error"] as? String == "No audio uploaded", "\(answer)")
    }

    @Test func theFirstFilePartCountsWhateverItsName() throws {
        // §1: the file is the first file part, whatever its field name; octet-stream without a filename is a file.
        let box = try ConformanceBox { $0.hq = .describe }
        let wav = try box.wavBytes(seconds: 1)
        #expect(try transcribe(box, ConformanceBox.multipart([("audio", "clip.wav", "audio/wav", wav)])).status == 200)
        let untitled = try transcribe(box, ConformanceBox.multipart([("blob", nil, "application/octet-stream", wav)]))
        #expect(untitled.status != 400, "an octet-stream part is a file: \(untitled)")
        #expect(box.box.server.transcriptions.last?.guessedFormat == "webm", "no filename: no extension, guessed webm")
    }

    @Test func theFormatIsGuessedFromTheExtensionOnly() throws {
        // §1: wav, webm, mp3, m4a, ogg, flac; anything else is treated as webm.
        let box = try ConformanceBox { $0.hq = .describe }
        for (name, guessed) in [
            ("a.wav", "wav"), ("a.OGG", "ogg"), ("a.flac", "flac"), ("a.aiff", "webm"), ("a", "webm"),
        ] {
            _ = try transcribe(
                box, ConformanceBox.multipart([("file", name, "audio/wav", try box.wavBytes(seconds: 0.1))]))
            #expect(box.box.server.transcriptions.last?.guessedFormat == guessed, "\(name)")
        }
    }

    @Test func aFilePartOverFiftyMebibytesIs413() throws {
        // §1: the box takes a file part of at most 52,428,800 B; larger → 413 {"error":"request file too large"}.
        let box = try ConformanceBox { $0.hq = .describe }
        let over = try transcribe(
            box,
            ConformanceBox.multipart([("file", "segment.wav", "audio/wav", [UInt8](repeating: 0, count: 52_428_801))]))
        #expect(over.status == 413 && over.json?["error"] as? String == "request file too large", "\(over)")
        let limit = try transcribe(
            box,
            ConformanceBox.multipart([("file", "segment.wav", "audio/wav", [UInt8](repeating: 0, count: 52_428_800))]))
        #expect(limit.status != 413, "exactly the limit is taken: \(limit)")
    }

    @Test func withoutAValidTokenItIs401() throws {
        let box = try ConformanceBox { $0.hq = .describe }
        let answer = try box.post(
            "/api/chat/transcribe-audio", body: ConformanceBox.multipart([("file", "s.wav", "audio/wav", [0])]),
            headers: [("Authorization", "Bearer wrong"), ("Content-Type", ConformanceBox.multipartType)])
        #expect(answer.status == 401)
    }

    // §1: permanent is true for missing_api_key, missing_openrouter_key, bad_response_shape, any upstream 4xx except
    // 429, and invalid_api_key, invalid_request_error, invalid_file_format; false for network_error, 429, 5xx.
    @Test(arguments: [
        ("missing_api_key", true), ("missing_openrouter_key", true), ("bad_response_shape", true), ("http_400", true),
        ("http_404", true), ("http_413", true), ("invalid_api_key", true), ("invalid_request_error", true),
        ("invalid_file_format", true), ("http_429", false), ("network_error", false), ("http_500", false),
        ("http_503", false),
    ])
    func anHQFailureSaysWhetherItIsPermanent(_ code: String, _ permanent: Bool) throws {
        let box = try ConformanceBox { $0.hq = .fail(code: code) }
        let answer = try transcribe(
            box, ConformanceBox.multipart([("file", "segment.wav", "audio/wav", try box.wavBytes())]))
        #expect(answer.status == 500)
        #expect(answer.json?["permanent"] as? Bool == permanent, "\(answer)")
        #expect(answer.json?["code"] as? String == code)
        #expect(answer.json?["error"] is String)
    }
}
