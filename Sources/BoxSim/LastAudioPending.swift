import Foundation

/// The box's pending retranscription requests (contract §7.2), with its exact settling rules:
/// the first audio answer whose echoed `messageId` matches wins; a mismatched echo is ignored;
/// the first `none` cancels the timeout and starts a grace window as long as the timeout, during which audio
/// may still win; after it the requester gets `no-audio`; with no answer at all, `no-client`.
final class LastAudioPending: @unchecked Sendable {
    // @unchecked: `requests` is read and written under `condition` only (requesters wait on it).
    struct Fulfillment: Sendable {
        var audio: [UInt8]
        var contentType: String
        var recordedAt: String?
        var text: String?
        var messageId: String?
        var sessionId: String?
    }

    enum Outcome: Sendable {
        case audio(Fulfillment)
        /// Answers came, all `none`.
        case none
        /// Nobody answered.
        case timeout
    }

    enum AnswerResult: Sendable, Equatable { case delivered, ignored, unknown }

    private struct Request {
        var messageId: String
        var timeout: TimeInterval
        var deadline: Date
        var noneSeen = false
        var fulfillment: Fulfillment?
    }

    private let condition = NSCondition()
    private var requests: [String: Request] = [:]

    /// Registers a request; its id is server-minted.
    func create(messageId: String, timeout: TimeInterval) -> String {
        let id = UUID().uuidString.lowercased()
        condition.withLock {
            requests[id] = Request(messageId: messageId, timeout: timeout, deadline: Date().addingTimeInterval(timeout))
        }
        return id
    }

    /// Ids and message ids of requests still waiting (for inspection).
    var pending: [(requestId: String, messageId: String)] {
        condition.withLock {
            requests.filter { $0.value.fulfillment == nil }.map { ($0.key, $0.value.messageId) }.sorted { $0.0 < $1.0 }
        }
    }

    /// Blocks the requester until the request settles; afterwards the id is unknown.
    func wait(_ id: String) -> Outcome {
        condition.lock()
        defer {
            requests.removeValue(forKey: id)
            condition.unlock()
        }
        while let request = requests[id] {
            if let fulfillment = request.fulfillment { return .audio(fulfillment) }
            if Date() >= request.deadline { return request.noneSeen ? .none : .timeout }
            _ = condition.wait(until: request.deadline)
        }
        return .timeout
    }

    func fulfill(_ id: String, _ fulfillment: Fulfillment) -> AnswerResult {
        condition.withLock {
            guard var request = requests[id], request.fulfillment == nil, Date() < request.deadline else {
                return .unknown
            }
            guard fulfillment.messageId == request.messageId else { return .ignored }  // echo-and-verify
            request.fulfillment = fulfillment
            requests[id] = request
            condition.broadcast()
            return .delivered
        }
    }

    /// False when the request is unknown (settled, timed out, never existed).
    func reportNone(_ id: String) -> Bool {
        condition.withLock {
            guard var request = requests[id], request.fulfillment == nil, Date() < request.deadline else {
                return false
            }
            if !request.noneSeen {
                request.noneSeen = true
                request.deadline = Date().addingTimeInterval(request.timeout)
                requests[id] = request
                condition.broadcast()
            }
            return true
        }
    }
}
