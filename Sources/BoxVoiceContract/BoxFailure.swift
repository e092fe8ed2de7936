import Foundation

/// Why a call to the box failed, sorted by what the caller should do about it (contract §1, §2, §6).
/// No case ever carries the device token.
public enum BoxFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401: the device token was revoked or never valid. Re-pair.
    case unauthorized(operation: String)
    /// A 4xx other than 401 (or a redirect, which is never followed): the box refused this request.
    /// Retrying the same request will not help; keep the data and tell the user.
    case definitive(operation: String, status: Int, message: String, code: String?)
    /// No answer, a timeout, a 5xx or an unreadable answer: the outcome is unknown. Safe to retry with the same ids.
    case uncertain(operation: String, reason: String)
    /// No connection could be made (refused, no route, a name that does not resolve): the request never left this
    /// machine, so the box cannot have acted on it. Retried like `uncertain`; what was owed to the box (a message's
    /// HQ text) is still owed.
    case unreachable(operation: String, reason: String)
    /// The box's HQ service is misconfigured (`permanent: true`): every later segment fails the same way.
    case permanentHQ(message: String, code: String?)

    public var isRetryable: Bool {
        switch self {
        case .uncertain, .unreachable: true
        default: false
        }
    }

    /// The request may have reached the box (anything but a connection that was never made).
    public var mayHaveReachedBox: Bool {
        if case .unreachable = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .unauthorized(let operation):
            "\(operation): the box no longer accepts this device (401 Not authenticated). Pair it again with `boxvoice "
                + "pair LINK`."
        case .definitive(let operation, let status, let message, let code):
            "\(operation): the box refused the request (HTTP \(status)\(code.map { ", \($0)" } ?? ""): \(message))."
        case .uncertain(let operation, let reason):
            "\(operation): no usable answer from the box (\(reason)); it is safe to try again."
        case .unreachable(let operation, let reason):
            "\(operation): the box could not be reached (\(reason)); nothing reached it, and it is safe to try again."
        case .permanentHQ(let message, let code):
            "HQ transcription is unavailable on this box (\(code ?? "permanent"): \(message)); the live transcript is "
                + "used instead."
        }
    }

    /// The failure an HTTP answer means, or nil for a 2xx.
    /// - Parameter hq: the call was `transcribe-audio`, whose 500 body says whether the failure is permanent.
    /// - Parameter location: a redirect's `Location`, named in the failure so the user can see where it pointed.
    public static func classify(
        operation: String, status: Int, body: [UInt8], hq: Bool = false, location: String? = nil
    ) -> BoxFailure? {
        let data = body.isEmpty ? nil : Data(body)
        switch status {
        case 200..<300:
            return nil
        case 401:
            return .unauthorized(operation: operation)
        case 300..<400:
            let target = location.map { " to \($0)" } ?? ""
            return .definitive(
                operation: operation, status: status,
                message:
                    "the box answered with a redirect\(target), which boxvoice does not follow so the device token "
                        + "never "
                    + "leaves the box; check the box's address", code: nil)
        case 400..<500:
            let error = data.flatMap { Wire.errorMessage($0) }
            return .definitive(
                operation: operation, status: status, message: error?.message ?? "no reason given", code: error?.code)
        default:
            if hq, let data, let error = Wire.hqError(data) {
                return error.permanent
                    ? .permanentHQ(message: error.message, code: error.code)
                    : .uncertain(
                        operation: operation,
                        reason: "HTTP \(status)\(error.code.map { ", \($0)" } ?? ""): \(error.message)")
            }
            let message = data.flatMap { Wire.errorMessage($0)?.message }
            return .uncertain(operation: operation, reason: "HTTP \(status)\(message.map { ": \($0)" } ?? "")")
        }
    }
}
