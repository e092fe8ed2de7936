import CCurl
import CCurlShim
import Foundation

/// One HTTP request as boxvoice makes them.
public struct HTTPRequest: Sendable {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

    public enum Body: Sendable {
        case none
        case bytes(Data, contentType: String)
        /// Parts are sent in this order (the box reads text fields only before the file part).
        case multipart([MultipartPart])
    }

    public var method: Method
    public var url: String
    /// Sent as given; the device token travels only here, as `Authorization: Bearer …`.
    public var headers: [(name: String, value: String)]
    public var body: Body
    public var connectTimeout: TimeInterval
    /// The whole exchange, upload included.
    public var timeout: TimeInterval
    /// Off only for a box the user explicitly marked insecure.
    public var verifyTLS: Bool
    /// The most body bytes read from the answer: past it the transfer stops (`TransportError.Kind.tooLarge`), so a
    /// box that answers without end costs at most this much memory.
    public var maxResponseBytes: Int
    /// A transfer that moves nothing for this long is abandoned, whatever `timeout` allows (a peer that stalls).
    public var stallSeconds: Int

    /// For an answer that is a recording (a retranscription requester's): the box takes a file part of at most
    /// 50 MiB (contract §1), so nothing larger is ever a recording.
    public static let recordingAnswerBytes = 64 << 20

    public init(
        method: Method, url: String, headers: [(name: String, value: String)] = [], body: Body = .none,
        connectTimeout: TimeInterval = 10, timeout: TimeInterval = 30, verifyTLS: Bool = true,
        maxResponseBytes: Int = 1 << 20, stallSeconds: Int = 30
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.verifyTLS = verifyTLS
        self.maxResponseBytes = maxResponseBytes
        self.stallSeconds = stallSeconds
    }
}

public enum MultipartPart: Sendable {
    case field(name: String, value: String)
    /// Streamed from the file as it uploads, never loaded whole.
    case file(name: String, path: String, filename: String, contentType: String)
}

public struct HTTPResponse: Sendable {
    public let status: Int
    /// Header names lowercased.
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]

    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.last { $0.name == wanted }?.value
    }
}

/// A failure below HTTP: no connection, a timeout, TLS, a file that could not be read for upload.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case connect, timeout, tls, localFile, other
        /// The answer (body or headers) was larger than the request allows; reading stopped there.
        case tooLarge
    }
    public let kind: Kind
    /// libcurl's code and message (`curl_easy_strerror` plus its error buffer).
    public let code: Int32
    public let message: String

    public var description: String { message }
}

/// Performs requests with libcurl. This file is the only place that imports the curl C module.
///
/// Redirects are never followed, so a device token can never be carried to another origin.
public enum HTTPTransfer {
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Blocks until the exchange ends. `progress` gets (bytes sent, bytes to send) during uploads.
    public static func perform(_ request: HTTPRequest, progress: (@Sendable (Int64, Int64) -> Void)? = nil)
        throws(TransportError) -> HTTPResponse
    {
        _ = globalInit
        let easy = try EasyTransfer()
        let state = TransferState(progress: progress, maxBodyBytes: request.maxResponseBytes)
        easy.setLimits(of: request)
        easy.setCallbacks(Unmanaged.passUnretained(state).toOpaque(), reportsProgress: progress != nil)
        let posted = try easy.setBody(of: request)
        try easy.checkOptions()
        let result = withExtendedLifetime(state) { easy.perform(posting: posted) }
        guard result == CURLE_OK else {
            if state.overflowed {
                throw TransportError(
                    kind: .tooLarge, code: Int32(result.rawValue),
                    message:
                        "the answer was larger than boxvoice reads from this call (\(request.maxResponseBytes) bytes), "
                        + "so reading stopped"
                )
            }
            throw TransportError(
                kind: kind(of: result), code: Int32(result.rawValue), message: easy.message(for: result))
        }
        return HTTPResponse(status: easy.responseCode, headers: state.headers, body: state.body)
    }

    private static func kind(of code: CURLcode) -> TransportError.Kind {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .connect
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            .tls
        case CURLE_READ_ERROR, CURLE_FILE_COULDNT_READ_FILE: .localFile
        default: .other
        }
    }
}

/// One libcurl easy handle with what its options point at (headers, MIME parts, the error buffer), freed together.
/// Options are set one by one and their failures collected, so one check reports the first.
private final class EasyTransfer {
    private let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var mime: OpaquePointer?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var failures: [CURLcode] = []

    init() throws(TransportError) {
        guard let handle = curl_easy_init() else {
            throw TransportError(kind: .other, code: -1, message: "libcurl could not create a transfer")
        }
        self.handle = handle
        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        check(boxvoice_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        if mime != nil { curl_mime_free(mime) }
        errorBuffer.deallocate()
    }

    private func check(_ code: CURLcode) { if code != CURLE_OK { failures.append(code) } }

    /// Where, how long, and whose certificate: redirects are never followed, so a device token never reaches
    /// another origin.
    func setLimits(of request: HTTPRequest) {
        check(boxvoice_curl_set_string(handle, CURLOPT_URL, request.url))
        check(boxvoice_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
        check(boxvoice_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        check(boxvoice_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout * 1000)))
        check(boxvoice_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(request.timeout * 1000)))
        check(boxvoice_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, request.verifyTLS ? 1 : 0))
        check(boxvoice_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, request.verifyTLS ? 2 : 0))
        check(boxvoice_curl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1))
        check(boxvoice_curl_set_long(handle, CURLOPT_LOW_SPEED_TIME, request.stallSeconds))
    }

    /// The callbacks fill `context` (a `TransferState`). Returning less than was handed over stops the transfer
    /// (CURLE_WRITE_ERROR): that is how the caps act.
    func setCallbacks(_ context: UnsafeMutableRawPointer, reportsProgress: Bool) {
        check(
            boxvoice_curl_set_write_callback(
                handle,
                { data, size, count, context in
                    let state = Unmanaged<TransferState>.fromOpaque(context!).takeUnretainedValue()
                    guard state.body.count + size * count <= state.maxBodyBytes else {
                        state.overflowed = true
                        return 0
                    }
                    state.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
                    return size * count
                }, context))
        check(
            boxvoice_curl_set_header_callback(
                handle,
                { data, size, count, context in
                    let state = Unmanaged<TransferState>.fromOpaque(context!).takeUnretainedValue()
                    state.headerBytes += size * count
                    guard state.headerBytes <= TransferState.maxHeaderBytes else {
                        state.overflowed = true
                        return 0
                    }
                    state.addHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
                    return size * count
                }, context))
        guard reportsProgress else { return }
        check(
            boxvoice_curl_set_progress_callback(
                handle,
                { context, _, _, uploadTotal, uploaded in
                    let state = Unmanaged<TransferState>.fromOpaque(context!).takeUnretainedValue()
                    if uploadTotal > 0 { state.progress?(Int64(uploaded), Int64(uploadTotal)) }
                    return 0
                }, context))
    }

    /// Headers and body; returns the bytes to post, which must stay in place while the transfer runs.
    func setBody(of request: HTTPRequest) throws(TransportError) -> Data? {
        // "Expect:" turns off 100-continue, which would stall uploads on servers that never answer it.
        for (name, value) in request.headers + [("Expect", "")] {
            headerList = curl_slist_append(headerList, value.isEmpty ? "\(name):" : "\(name): \(value)")
        }
        var posted: Data?
        switch request.body {
        case .none:
            if request.method == .post { check(boxvoice_curl_set_string(handle, CURLOPT_POSTFIELDS, "")) }
        case .bytes(let data, let contentType):
            headerList = curl_slist_append(headerList, "Content-Type: \(contentType)")
            posted = data
            check(boxvoice_curl_set_long(handle, CURLOPT_POSTFIELDSIZE_LARGE, data.count))
        case .multipart(let parts):
            try setMultipart(parts)
        }
        check(boxvoice_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headerList))
        return posted
    }

    private func setMultipart(_ parts: [MultipartPart]) throws(TransportError) {
        mime = curl_mime_init(handle)
        for part in parts {
            let piece = curl_mime_addpart(mime)
            switch part {
            case .field(let name, let value):
                check(curl_mime_name(piece, name))
                check(curl_mime_data(piece, value, value.utf8.count))
            case .file(let name, let path, let filename, let contentType):
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw TransportError(
                        kind: .localFile, code: Int32(CURLE_READ_ERROR.rawValue),
                        message: "cannot read '\(path)' to upload it")
                }
                check(curl_mime_name(piece, name))
                check(curl_mime_filedata(piece, path))
                check(curl_mime_filename(piece, filename))
                check(curl_mime_type(piece, contentType))
            }
        }
        check(boxvoice_curl_set_pointer(handle, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(mime)))
    }

    /// The first option libcurl refused, if any.
    func checkOptions() throws(TransportError) {
        guard let first = failures.first else { return }
        throw TransportError(
            kind: .other, code: Int32(first.rawValue),
            message: "libcurl refused an option: \(String(cString: curl_easy_strerror(first)))")
    }

    /// Runs the transfer, posting `data` (its bytes stay pinned until it ends).
    func perform(posting data: Data?) -> CURLcode {
        guard let data else { return curl_easy_perform(handle) }
        return data.withUnsafeBytes { bytes in
            _ = boxvoice_curl_set_pointer(
                handle, CURLOPT_POSTFIELDS,
                UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(errorBuffer)))
            return curl_easy_perform(handle)
        }
    }

    /// libcurl's own words for a failed transfer: its error buffer, else the code's message.
    func message(for result: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail
    }

    var responseCode: Int {
        var status = 0
        _ = boxvoice_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return status
    }
}

/// What the C callbacks fill in during one transfer (touched only by the thread running it).
private final class TransferState {
    /// Far more than any box's headers; a server that sends headers without end is cut off here.
    static let maxHeaderBytes = 64 * 1024

    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    var headerBytes = 0
    let maxBodyBytes: Int
    /// A cap stopped the transfer.
    var overflowed = false
    let progress: (@Sendable (Int64, Int64) -> Void)?

    init(progress: (@Sendable (Int64, Int64) -> Void)?, maxBodyBytes: Int) {
        self.progress = progress
        self.maxBodyBytes = maxBodyBytes
    }

    func addHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            headers.removeAll()  // a new response (after 100 Continue) starts its own headers
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        headers.append(
            (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    }
}
