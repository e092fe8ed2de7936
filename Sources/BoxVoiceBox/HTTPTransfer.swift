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
        guard let handle = curl_easy_init() else {
            throw TransportError(kind: .other, code: -1, message: "libcurl could not create a transfer")
        }
        defer { curl_easy_cleanup(handle) }
        let state = TransferState(progress: progress, maxBodyBytes: request.maxResponseBytes)
        let context = Unmanaged.passUnretained(state).toOpaque()
        var headerList: UnsafeMutablePointer<curl_slist>?
        var mime: OpaquePointer?
        defer {
            curl_slist_free_all(headerList)
            if mime != nil { curl_mime_free(mime) }
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }

        var failures: [CURLcode] = []
        func check(_ code: CURLcode) { if code != CURLE_OK { failures.append(code) } }
        check(boxvoice_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        check(boxvoice_curl_set_string(handle, CURLOPT_URL, request.url))
        check(boxvoice_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
        check(boxvoice_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        check(boxvoice_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout * 1000)))
        check(boxvoice_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(request.timeout * 1000)))
        check(boxvoice_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, request.verifyTLS ? 1 : 0))
        check(boxvoice_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, request.verifyTLS ? 2 : 0))
        check(boxvoice_curl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1))
        check(boxvoice_curl_set_long(handle, CURLOPT_LOW_SPEED_TIME, request.stallSeconds))
        // Returning less than was handed over stops the transfer (CURLE_WRITE_ERROR): that is how the caps act.
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
        if progress != nil {
            check(
                boxvoice_curl_set_progress_callback(
                    handle,
                    { context, _, _, uploadTotal, uploaded in
                        let state = Unmanaged<TransferState>.fromOpaque(context!).takeUnretainedValue()
                        if uploadTotal > 0 { state.progress?(Int64(uploaded), Int64(uploadTotal)) }
                        return 0
                    }, context))
        }

        // "Expect:" turns off 100-continue, which would stall uploads on servers that never answer it.
        for (name, value) in request.headers + [("Expect", "")] {
            headerList = curl_slist_append(headerList, value.isEmpty ? "\(name):" : "\(name): \(value)")
        }
        var bodyData: Data?
        switch request.body {
        case .none:
            if request.method == .post { check(boxvoice_curl_set_string(handle, CURLOPT_POSTFIELDS, "")) }
        case .bytes(let data, let contentType):
            headerList = curl_slist_append(headerList, "Content-Type: \(contentType)")
            bodyData = data
            check(boxvoice_curl_set_long(handle, CURLOPT_POSTFIELDSIZE_LARGE, data.count))
        case .multipart(let parts):
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
        check(boxvoice_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headerList))
        guard failures.isEmpty else {
            throw TransportError(
                kind: .other, code: Int32(failures[0].rawValue),
                message: "libcurl refused an option: \(String(cString: curl_easy_strerror(failures[0])))")
        }

        let result: CURLcode =
            bodyData.map { data in
                data.withUnsafeBytes { bytes in
                    _ = boxvoice_curl_set_pointer(
                        handle, CURLOPT_POSTFIELDS,
                        UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(errorBuffer)))
                    return curl_easy_perform(handle)
                }
            } ?? curl_easy_perform(handle)
        guard result == CURLE_OK else {
            if state.overflowed {
                throw TransportError(
                    kind: .tooLarge, code: Int32(result.rawValue),
                    message:
                        "the answer was larger than boxvoice reads from this call (\(request.maxResponseBytes) bytes), "
                            + "so reading stopped"
                )
            }
            let detail = String(cString: errorBuffer)
            let message = detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail
            throw TransportError(kind: kind(of: result), code: Int32(result.rawValue), message: message)
        }
        var status = 0
        _ = boxvoice_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(status: status, headers: state.headers, body: state.body)
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
