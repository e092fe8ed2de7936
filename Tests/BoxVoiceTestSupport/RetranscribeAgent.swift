import BoxSim
import BoxVoiceBox
import Foundation

/// The agent's side of a retranscription (`bbx chat retranscribe`), asking boxsim in the background.
public final class RetranscribeAgent: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var response: HTTPResponse?

    public init(port: Int, messageId: String, timeoutMs: Int) {
        let body = Data(#"{"messageId":"\#(messageId)","timeoutMs":\#(timeoutMs)}"#.utf8)
        let request = HTTPRequest(
            method: .post, url: "http://127.0.0.1:\(port)/boxsim/retranscribe",
            body: .bytes(body, contentType: "application/json"), timeout: 60,
            maxResponseBytes: HTTPRequest.recordingAnswerBytes)
        Thread { [self] in
            response = try? HTTPTransfer.perform(request)
            done.signal()
        }.start()
    }

    /// The box's answer to the agent (nil when the request itself failed).
    public func wait() -> HTTPResponse? {
        _ = done.wait(timeout: .now() + 60)
        return response
    }
}

/// The request ids a box announces in `chat-last-audio-request` events while subscribed.
public final class LastAudioRequestIds: @unchecked Sendable {
    private let condition = NSCondition()
    private var ids: [String] = []
    private let server: BoxSimServer
    private var token = 0

    public init(_ server: BoxSimServer) {
        self.server = server
        token = server.subscribeEvents { [weak self] event, data in
            if event == "chat-last-audio-request", let id = data["requestId"] { self?.add(id) }
        }
    }

    deinit { server.unsubscribeEvents(token) }

    private func add(_ id: String) {
        condition.withLock {
            ids.append(id)
            condition.broadcast()
        }
    }

    /// The first announced id, waiting up to `seconds` for it.
    public func first(within seconds: TimeInterval) -> String? {
        condition.withLock {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while ids.isEmpty, condition.wait(until: deadline) {}
            return ids.first
        }
    }
}
