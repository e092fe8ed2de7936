import BoxSim
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceDictation
import BoxVoiceStore
import BoxVoiceTestSupport
import Foundation
import Testing

/// What segments go to HQ as: the choice as arithmetic, and the uploads themselves against boxsim.
@Suite struct UploadCodecTests {
    // 1 Gbit/s, 100 Mbit/s, 10 Mbit/s, 2 Mbit/s and a phone hotspot, in bytes per second.
    @Test(arguments: [
        (125e6, UploadChoice.Format.wav), (12.5e6, .opus), (1.25e6, .opus), (250e3, .opus), (50e3, .opus),
    ])
    func autoPicksWhicheverArrivesSooner(_ link: Double, _ expected: UploadChoice.Format) {
        let choice = UploadDecision.choose(.auto, wavOnly: false, linkBytesPerSecond: link)
        #expect(choice.format == expected, "\(choice.reason)")
        let wav = UploadDecision.wavBytesPerSecond / link
        let opus = UploadDecision.defaultEncodeSecondsPerSecond + UploadDecision.opusBytesPerSecond / link
        #expect((expected == .wav) == (wav <= opus * 1.1))
    }

    @Test func configuredCodecsAndWAVOnlyWinOverTheLink() {
        #expect(UploadDecision.choose(.wav, wavOnly: false, linkBytesPerSecond: 50e3).format == .wav)
        #expect(UploadDecision.choose(.opus, wavOnly: false, linkBytesPerSecond: 1e9).format == .opus)
        #expect(UploadDecision.choose(.opus, wavOnly: true, linkBytesPerSecond: 50e3).format == .wav)
        #expect(UploadDecision.choose(.auto, wavOnly: true, linkBytesPerSecond: nil).format == .wav)
        #expect(
            UploadDecision.choose(.auto, wavOnly: false, linkBytesPerSecond: nil).format == .opus, "unmeasured: Opus")
        #expect(UploadDecision.choose(.auto, wavOnly: false, linkBytesPerSecond: 0).format == .opus)
    }

    @Test func slowEncodingTipsAFastLinkToWAV() {
        let link = 12.5e6  // 100 Mbit/s
        #expect(
            UploadDecision.choose(.auto, wavOnly: false, linkBytesPerSecond: link, encodeSecondsPerSecond: 0.004).format
                == .opus)
        #expect(
            UploadDecision.choose(.auto, wavOnly: false, linkBytesPerSecond: link, encodeSecondsPerSecond: 0.05).format
                == .wav)
    }

    @Test func thePolicyLearnsTheLinkAndRemembersAWAVOnlyBox() {
        let learnt = LockedList<UploadCodecPolicy.Profile>()
        let policy = UploadCodecPolicy(codec: .auto) { learnt.append($0) }
        #expect(policy.next() == (UploadDecision.choose(.auto, wavOnly: false, linkBytesPerSecond: nil), true))
        #expect(policy.next().changed == false)
        policy.recordUpload(bytes: 1_000_000, seconds: 1)
        policy.recordUpload(bytes: 3_000_000, seconds: 1)
        #expect(policy.profile.linkBytesPerSecond == 2_000_000)
        policy.markWAVOnly()
        let (choice, changed) = policy.next()
        #expect(choice.format == .wav && changed)
        #expect(learnt.all.last == UploadCodecPolicy.Profile(wavOnly: true, linkBytesPerSecond: 2_000_000))
    }

    @Test func opusSegmentsReachTheBoxAsOggAndAreHeard() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .pocketsphinx; $0.defaultSession = "s1"
            })
        let policy = UploadCodecPolicy(codec: .opus)
        let work = TemporaryDirectory("opus-work")
        try run.run(["send-buy-milk.wav"]) {
            $0.uploadCodec = policy
            $0.workDirectory = work.path
        }
        let uploads = run.box.server.transcriptions
        #expect(!uploads.isEmpty)
        #expect(
            uploads.allSatisfy {
                $0.filename == "segment.ogg" && $0.guessedFormat == "ogg" && $0.container == "ogg-opus"
            }, "\(uploads)")
        let body = try #require(run.delivered.first?.message)
        #expect(body.hasPrefix("<speech stt-service=\"pocketsphinx\""), "HQ heard the Opus upload: \(body)")
        #expect(body.lowercased().contains("milk"), "\(body)")
        #expect(run.events.contains { if case .uploadCodec(.opus, _) = $0 { true } else { false } })
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasSuffix(".ogg") }.isEmpty,
            "upload copies removed")
    }

    @Test func aBoxThatRefusesOpusGetsTheSegmentAgainAsWAVAndIsRememberedWAVOnly() throws {
        let run = try DictationRun(
            box: SimulatedBox {
                $0.hq = .describe; $0.defaultSession = "s1"; $0.hqRejectedFormats = ["ogg"]
            })
        let store = run.store
        let policy = UploadCodecPolicy(codec: .auto, box: "home", store: store)
        let work = TemporaryDirectory("opus-refused")
        try run.run(["send-buy-milk.wav"]) {
            $0.uploadCodec = policy
            $0.workDirectory = work.path
        }
        let uploads = run.box.server.transcriptions
        #expect(uploads.map(\.guessedFormat) == ["ogg", "wav"], "\(uploads.map(\.guessedFormat))")
        #expect(run.fallbacks == 0, "the WAV resend was transcribed: no fallback to the live text")
        #expect(run.delivered.first?.message.hasPrefix("<speech stt-service=\"boxsim\"") == true)
        #expect(try store.uploadProfile(box: "home").wavOnly)
        #expect(run.events.contains { if case .uploadCodec(.wav, _) = $0 { true } else { false } })
    }
}
