import BoxVoiceContract
import Foundation

/// How the box's HTTP framework turns a request body into a value before any route code — or authentication — runs
/// (contract §2): JSON by `Content-Type: application/json` (empty or malformed → 400), `text/plain` as a string,
/// anything else with a body → 415.
enum RequestBody {
    case none
    case json(JSONValue)
    case text(String)
    case multipart(contentType: String)

    enum Parsed {
        case body(RequestBody)
        case refused(SimResponse)
    }

    /// The parsed body, or the framework's refusal.
    static func parse(_ request: SimRequest) -> Parsed {
        let contentType = request.header("content-type") ?? ""
        let media =
            contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch media {
        case "application/json":
            guard !request.body.isEmpty else {
                return .refused(
                    frameworkError(
                        400, "FST_ERR_CTP_EMPTY_JSON_BODY",
                        "Body cannot be empty when content-type is set to 'application/json'"))
            }
            guard let value = JSONValue.parse(Data(request.body)) else {
                return .refused(
                    frameworkError(
                        400, "FST_ERR_CTP_INVALID_JSON_BODY",
                        "Body is not valid JSON but content-type is set to 'application/json'"))
            }
            return .body(.json(value))
        case "text/plain":
            return .body(.text(String(decoding: request.body, as: UTF8.self)))
        case "multipart/form-data":
            return .body(.multipart(contentType: contentType))
        case "" where request.body.isEmpty:
            return .body(.none)
        default:
            return .refused(
                frameworkError(
                    415, "FST_ERR_CTP_INVALID_MEDIA_TYPE", "Unsupported Media Type: \(media.isEmpty ? "none" : media)"))
        }
    }

    /// The body as a JSON object, if it is one.
    var object: [String: JSONValue]? {
        if case .json(let value) = self { return value.object }
        return nil
    }

    static func frameworkError(_ status: Int, _ code: String, _ message: String) -> SimResponse {
        .json(
            status,
            [
                "statusCode": .integer(status), "code": .string(code),
                "error": status == 415 ? "Unsupported Media Type" : "Bad Request",
                "message": .string(message),
            ])
    }
}
