import BoxVoiceAudio
import BoxVoiceContract
import BoxVoiceLive
import Foundation

/// `chat/send` and `chat/transcribe-audio` (contract §1, §2).
extension BoxSimServer {
    // MARK: §2 send

    static let allowedChannels: Set<String> = ["web-desktop", "web-mobile", "ios-native"]
    static let dedupWindow: TimeInterval = 7 * 24 * 3_600

    func send(_ request: SimRequest) -> SimResponse {
        guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
            return .json(400, ["error": "Body must be a JSON object"])
        }
        guard let message = body["message"] as? String, !message.isEmpty else { return .json(400, ["error": "message is required"]) }
        guard let messageId = body["messageId"] as? String, !messageId.isEmpty else { return .json(400, ["error": "messageId is required"]) }
        guard let session = body["session"] as? String, !session.isEmpty else { return .json(400, ["error": "session is required"]) }
        if let channel = body["channel"] {
            guard let name = channel as? String, Self.allowedChannels.contains(name) else {
                return .json(400, ["error": "Invalid channel"])
            }
        }
        let exact = body["exactSession"] as? Bool ?? false
        if configuration.sendDelaySeconds > 0 { Thread.sleep(forTimeInterval: configuration.sendDelaySeconds) }
        let now = Date()
        return records.withLock { records -> SimResponse in
            if records.messages.contains(where: { $0.messageId == messageId && now.timeIntervalSince($0.receivedAt) < Self.dedupWindow }) {
                return .json(200, ["deduplicated": true])
            }
            return lock.withLock { () -> SimResponse in
                var target = session
                if session == "new" {
                    target = "session-" + UUID().uuidString.lowercased().prefix(8)
                    knownSessions.insert(target)
                } else if !knownSessions.contains(session) {
                    return exact ? .json(404, ["error": "Session not found"])
                        : .json(410, ["error": "Chat session is unavailable", "code": "CHAT_SESSION_UNAVAILABLE"])
                }
                let busy = (busyUntil[target] ?? .distantPast) > now
                let turnId = busy ? nil : UUID().uuidString.lowercased()
                if !busy, configuration.turnSeconds > 0 { busyUntil[target] = now.addingTimeInterval(configuration.turnSeconds) }
                records.addMessage(SimMessage(messageId: messageId, message: message, session: target, receivedAt: now, turnId: turnId, queued: busy))
                events.emitTracked("chat-message", ["messageId": messageId, "session": target])
                return busy ? .json(200, ["queued": true]) : .json(200, ["turnId": turnId!])
            }
        }
    }

    // MARK: §1 transcription

    func transcribe(_ request: SimRequest) -> SimResponse {
        var record = SimTranscription(at: Date(), session: nil, ignoredFields: [], filename: nil, guessedFormat: "webm",
                                      bytes: request.body.count, sampleRate: nil, channels: nil, float32: nil, frames: nil, status: 400, text: nil)
        defer { records.withLock { $0.addTranscription(record) } }
        guard let form = try? MultipartForm(body: request.body, contentType: request.header("content-type") ?? ""),
              let fileIndex = form.parts.firstIndex(where: { $0.name == "file" && $0.filename != nil }) else {
            return .json(400, ["error": "No audio uploaded"])
        }
        // The box reads text fields only before the file part.
        record.session = form.parts[..<fileIndex].last { $0.name == "session" }.map { String(decoding: $0.body, as: UTF8.self) }
        record.ignoredFields = form.parts[(fileIndex + 1)...].map(\.name)
        let file = form.parts[fileIndex]
        record.filename = file.filename
        let ext = (file.filename.map { ($0 as NSString).pathExtension.lowercased() }) ?? ""
        record.guessedFormat = ["wav", "webm", "mp3", "m4a", "ogg", "flac"].contains(ext) ? ext : "webm"
        record.bytes = file.body.count
        let audio = decode(file.body, recognize: configuration.hq == .pocketsphinx)
        record.sampleRate = audio?.sampleRate
        record.channels = audio?.channels
        record.float32 = audio?.float32
        record.frames = audio?.frames

        let call = lock.withLock { () -> Int in
            hqCalls += 1
            return hqCalls
        }
        let result = respond(call: call, audio: audio, guessedFormat: record.guessedFormat)
        record.status = result.status
        record.text = (try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any])?["text"] as? String
        return result
    }

    func respond(call: Int, audio: DecodedUpload?, guessedFormat: String) -> SimResponse {
        func failure(_ code: String, _ message: String) -> SimResponse {
            .json(500, ["error": message, "permanent": HQMode.isPermanent(code: code), "code": code])
        }
        func success(_ text: String?) -> SimResponse {
            let fallback = audio.map { String(format: "boxsim heard %.2f s of audio", Double($0.frames) / Double(max($0.sampleRate, 1))) } ?? ""
            return .json(200, ["text": text ?? configuration.hqText ?? fallback, "diarized": false, "service": "boxsim"])
        }
        switch configuration.hq {
        case .fail(let code):
            return failure(code, "HQ transcription failed (\(code))")
        case .flaky(let count) where call <= count:
            return failure("network_error", "The transcription service could not be reached")
        default:
            break
        }
        guard audio != nil, guessedFormat == "wav" else {
            return failure("http_400", "The transcription service could not decode the \(guessedFormat) audio")
        }
        switch configuration.hq {
        case .pocketsphinx:
            guard let recognized = audio?.recognized else {
                return failure("http_400", "The speech recognizer could not decode the audio")
            }
            return .json(200, ["text": recognized, "diarized": false, "service": "pocketsphinx"])
        case .fixed(let text): return success(text)
        case .slow(let seconds):
            Thread.sleep(forTimeInterval: seconds)
            return success(nil)
        default: return success(nil)
        }
    }

    struct DecodedUpload {
        var sampleRate: Int
        var channels: Int
        var float32: Bool
        var frames: Int64
        /// pocketsphinx's text, when asked for and it could decode.
        var recognized: String?
    }


    /// Reads the uploaded audio with libsndfile, as an HQ provider would, and (in pocketsphinx mode) recognizes it.
    func decode(_ bytes: ArraySlice<UInt8>, recognize: Bool) -> DecodedUpload? {
        let path = configuration.dataDirectory + "/upload-\(UUID().uuidString).tmp"
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)), let file = try? SoundFile.open(path: path) else { return nil }
        var upload = DecodedUpload(sampleRate: file.sampleRate, channels: file.channels, float32: file.isFloat32, frames: file.frames)
        if recognize, let samples = try? SpeechConversion.recognizerSamples(fromFile: path) {
            upload.recognized = recognizerLock.withLock { () -> String? in
                if recognizer == nil {
                    let model = PocketSphinxModel.debianEnglish.limitedToLanguageModelWords(keptIn: configuration.dataDirectory + "/cache")
                    recognizer = try? PocketSphinxDecoder(model: model)
                }
                return try? recognizer?.transcribe(samples)
            }
        }
        return upload
    }
}
