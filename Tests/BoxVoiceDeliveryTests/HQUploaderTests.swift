import BoxSim
import BoxVoiceAudio
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceDelivery
import BoxVoiceTestSupport
import Foundation
import Testing

@Suite struct HQUploaderTests {
    private func client(_ box: SimulatedBox) throws -> BoxClient {
        let token = try BoxClient(baseURL: box.baseURL, token: nil).redeem(
            pairingToken: box.mintTicket(), deviceLabel: "uploader")
        Secrets.register(token)
        return BoxClient(baseURL: box.baseURL, token: token)
    }

    private func segment(_ box: SimulatedBox, _ index: Int, seconds: Double = 0.5) throws -> ClosedSegment {
        let path = try box.wav(seconds: seconds, name: "seg-\(index).wav")
        return ClosedSegment(
            index: index, path: path, startFrame: 0, frames: Int64(seconds * 48_000), sampleRate: 48_000,
            levels: AudioLevels())
    }

    @Test func theFirstSegmentIsUploadedBeforeTheLastIsSubmitted() throws {
        let box = try SimulatedBox {
            $0.hq = .slow(0.2); $0.hqText = "ok"
        }
        let uploader = HQUploader(client: try client(box), session: "s1")
        uploader.submit(try segment(box, 1))
        // While recording goes on, the first upload completes.
        let deadline = Date(timeIntervalSinceNow: 5)
        while box.server.transcriptions.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(box.server.transcriptions.count == 1)
        uploader.submit(try segment(box, 2))
        let (results, stopped) = uploader.finish()
        #expect(stopped == nil)
        #expect(results.map(\.index) == [0, 1])
        #expect(results.allSatisfy { $0.transcription?.text == "ok" })
    }

    @Test func atMostThreeAreInFlightAndResultsKeepSubmissionOrder() throws {
        let box = try SimulatedBox { $0.hq = .slow(0.3) }
        let uploader = HQUploader(client: try client(box), session: nil, maxParallel: 3)
        for index in 1...6 { uploader.submit(try segment(box, index, seconds: Double(index) * 0.1)) }
        let (results, _) = uploader.finish()
        #expect(results.map(\.index) == Array(0..<6))
        // Texts say how much audio each held: order is submission order, not completion order.
        #expect(
            results.compactMap { $0.transcription?.text }
                == (1...6).map { String(format: "boxsim heard %.2f s of audio", Double($0) * 0.1) })
        // Each upload holds the box for 0.3 s, so a fourth can only start once one of three has ended: any four
        // consecutive starts span at least that long (slowness only widens the spans; a fourth slot would not).
        let starts = box.server.transcriptions.map(\.at).sorted()
        #expect(starts.count == 6)
        for first in 0...(starts.count - 4) {
            #expect(starts[first + 3].timeIntervalSince(starts[first]) >= 0.25, "four uploads in flight at once")
        }
    }

    @Test func aPermanentFailureIsReportedOnceAndStopsLaterUploads() throws {
        let box = try SimulatedBox { $0.hq = .fail(code: "missing_openrouter_key") }
        let stops = Counter()
        let uploader = HQUploader(client: try client(box), session: nil, maxParallel: 1) { event in
            if case .stopped = event { stops.add() }
        }
        for index in 1...4 { uploader.submit(try segment(box, index)) }
        let (results, stopped) = uploader.finish()
        #expect(
            stopped
                == .permanentHQ(
                    message: "HQ transcription failed (missing_openrouter_key)", code: "missing_openrouter_key"))
        #expect(stops.value == 1)
        #expect(box.server.transcriptions.count == 1)
        #expect(results.count == 4 && results.allSatisfy { $0.failure != nil })
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
