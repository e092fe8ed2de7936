import BoxVoiceContract
import BoxVoiceDictation
import BoxVoicePresentation
import BoxVoiceStore
import Foundation
import Synchronization
import Testing

@Suite struct TurnFeedbackTests {
    static let id = MessageID(parsing: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!

    /// A hotkey user hears that the turn ended when its microphone closes, not seconds later once HQ and the send
    /// are over; the "Sent" notification then carries the message as it was said.
    @Test func theTurnEndsWhenTheMicrophoneClosesAndTheSentMessageReadsAsSaid() {
        let texts = Mutex<[MessageID: String]>([:])
        #expect(TurnFeedbackEvent.from(.listeningEnded, box: "home", texts: texts) == .ended(box: "home"))
        #expect(TurnFeedbackEvent.from(.committed(messageId: Self.id), box: "home", texts: texts) == nil)
        let framed = #"buy milk <send-message phrase="send message" />"#
        #expect(
            TurnFeedbackEvent.from(
                .queued(messageId: Self.id, message: "<speech>\(framed)</speech>", text: framed), box: "home",
                texts: texts) == nil)
        guard case .delivered("home", let text)? = TurnFeedbackEvent.from(
            .delivered(messageId: Self.id), box: "home", texts: texts)
        else {
            Issue.record("expected a delivered notification")
            return
        }
        #expect(text.hasPrefix("buy milk") && !text.contains("<"))
        #expect(TurnFeedbackEvent.ended(box: "home").notification.body.contains("being sent"))
    }
}
