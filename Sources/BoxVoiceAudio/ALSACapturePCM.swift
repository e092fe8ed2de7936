import CALSA
import CALSAShim
import Glibc

/// A capture PCM opened through alsa-lib, negotiated to 48 kHz mono in one of the formats we convert.
/// This file and ALSAPlaybackPCM.swift (which shares its configuration loading and errors) are the only places that
/// import the ALSA C module.
///
/// Not thread-safe: after `open` it belongs to the one capture thread that reads it.
public final class ALSACapturePCM: CapturePCM, @unchecked Sendable {
    // @unchecked: the handle is used by the one capture thread that opened it (see above); nothing else touches it.
    public let name: String
    public let format: SampleFormat
    public let sampleRate: Int
    public let periodFrames: Int
    public let bufferFrames: Int
    public let hasDeviceClock: Bool
    /// A running device that delivers nothing for this long has stalled (the capture watchdog). A sound server whose
    /// source is removed stops feeding the stream without any error; a real device delivers a period every 20 ms.
    public var stallSeconds: Double = 1.5
    private var handle: OpaquePointer?

    /// Opens `name` for capture.
    /// - Parameters:
    ///   - configFile: a self-contained ALSA configuration to resolve `name` in instead of the system one
    ///     (tests and demos define `file`-plugin PCMs this way without touching global state).
    ///   - formats: the sample formats to try, in order.
    ///   - periodMilliseconds: the wanted period; ALSA may round it.
    public init(
        name: String = "default",
        configFile: String? = nil,
        formats: [SampleFormat] = SampleFormat.capturePreference,
        sampleRate: Int = AudioRate.hertz,
        periodMilliseconds: Int = 20
    ) throws {
        Self.routeLibraryMessages()
        self.name = name
        let pcm = try Self.open(name, configFile: configFile, stream: SND_PCM_STREAM_CAPTURE)
        handle = pcm
        do {
            let negotiated = try Self.negotiate(
                pcm, name: name, formats: formats, rate: sampleRate,
                periodFrames: sampleRate * periodMilliseconds / 1000)
            format = negotiated.format
            self.sampleRate = negotiated.rate
            periodFrames = negotiated.period
            bufferFrames = negotiated.buffer
            let type = snd_pcm_type(pcm)
            hasDeviceClock = !(type == SND_PCM_TYPE_FILE || type == SND_PCM_TYPE_NULL)
            let prepared = snd_pcm_prepare(pcm)
            guard prepared >= 0 else { throw Self.error(.io, name, "snd_pcm_prepare", prepared) }
        } catch {
            snd_pcm_close(pcm)
            handle = nil
            throw error
        }
    }

    deinit { close() }

    public func close() {
        if let handle { snd_pcm_close(handle) }
        handle = nil
    }

    public func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws -> PCMReadOutcome {
        guard let handle else { throw Self.error(.io, name, "snd_pcm_readi", -EBADFD) }
        if hasDeviceClock, snd_pcm_state(handle) == SND_PCM_STATE_RUNNING {
            // The watchdog: wait for data with a deadline instead of blocking in the read forever.
            let ready = snd_pcm_wait(handle, Int32(stallSeconds * 1_000))
            switch ready {
            case 0:
                throw ALSAError(
                    kind: .stalled, device: name, operation: "snd_pcm_wait", code: -ETIMEDOUT,
                    libraryMessage: "no audio for \(stallSeconds) s")
            case -EPIPE: return .overrun
            case -ESTRPIPE: return .suspended
            case -EINTR, -EAGAIN: return .frames(0)
            case ..<0: throw Self.error(.io, name, "snd_pcm_wait", ready)
            default: break
            }
        }
        let got = snd_pcm_readi(handle, buffer, snd_pcm_uframes_t(frames))
        if got >= 0 { return .frames(Int(got)) }
        switch Int32(got) {
        case -EPIPE: return .overrun
        case -ESTRPIPE: return .suspended
        case -EAGAIN, -EINTR: return .frames(0)
        default: throw Self.error(.io, name, "snd_pcm_readi", Int32(got))
        }
    }

    public func recover(from outcome: PCMReadOutcome) throws {
        guard let handle else { return }
        if outcome == .suspended {
            var rc = snd_pcm_resume(handle)
            while rc == -EAGAIN {
                usleep(10_000)
                rc = snd_pcm_resume(handle)
            }
            if rc >= 0 { return }
        }
        let rc = snd_pcm_prepare(handle)
        if rc < 0 { throw Self.error(.io, name, "snd_pcm_prepare", rc) }
    }

    // MARK: negotiation

    private struct Negotiated { var format: SampleFormat; var rate: Int; var period: Int; var buffer: Int }

    private static func negotiate(
        _ pcm: OpaquePointer, name: String, formats: [SampleFormat], rate: Int, periodFrames: Int
    ) throws -> Negotiated {
        var params: OpaquePointer?
        var rc = snd_pcm_hw_params_malloc(&params)
        guard rc >= 0, let params else { throw error(.io, name, "snd_pcm_hw_params_malloc", rc) }
        defer { snd_pcm_hw_params_free(params) }

        func check(_ rc: Int32, _ op: String, _ kind: ALSAError.Kind = .unsupportedConfiguration) throws {
            if rc < 0 { throw error(kind, name, op, rc) }
        }
        try check(snd_pcm_hw_params_any(pcm, params), "snd_pcm_hw_params_any")
        try check(
            snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access")
        guard let chosen = formats.first(where: { snd_pcm_hw_params_test_format(pcm, params, $0.alsaValue) == 0 })
        else {
            throw ALSAError(
                kind: .unsupportedConfiguration, device: name, operation: "snd_pcm_hw_params_test_format",
                code: -EINVAL, libraryMessage: "none of \(formats.map(\.rawValue).joined(separator: ", ")) is offered")
        }
        try check(snd_pcm_hw_params_set_format(pcm, params, chosen.alsaValue), "snd_pcm_hw_params_set_format")
        try check(snd_pcm_hw_params_set_channels(pcm, params, 1), "snd_pcm_hw_params_set_channels")
        _ = snd_pcm_hw_params_set_rate_resample(pcm, params, 1)
        var actualRate = UInt32(rate)
        rc = snd_pcm_hw_params_set_rate_near(pcm, params, &actualRate, nil)
        try check(rc, "snd_pcm_hw_params_set_rate_near")
        guard Int(actualRate) == rate else {
            throw ALSAError(
                kind: .unsupportedConfiguration, device: name, operation: "snd_pcm_hw_params_set_rate_near",
                code: -EINVAL, libraryMessage: "device offers \(actualRate) Hz, not \(rate) Hz")
        }
        var period = snd_pcm_uframes_t(periodFrames)
        try check(
            snd_pcm_hw_params_set_period_size_near(pcm, params, &period, nil), "snd_pcm_hw_params_set_period_size_near")
        // Eight periods (~160 ms) of slack before an overrun when the capture thread is descheduled.
        var buffer = period * 8
        try check(
            snd_pcm_hw_params_set_buffer_size_near(pcm, params, &buffer), "snd_pcm_hw_params_set_buffer_size_near")
        try check(snd_pcm_hw_params(pcm, params), "snd_pcm_hw_params")
        return Negotiated(format: chosen, rate: rate, period: Int(period), buffer: Int(buffer))
    }

    /// Opens `name` for `stream`, resolved in `configFile` when given, else in the system's configuration.
    static func open(_ name: String, configFile: String?, stream: snd_pcm_stream_t) throws -> OpaquePointer {
        var pcm: OpaquePointer?
        var rc: Int32
        if let configFile {
            let config = try loadConfig(configFile)
            defer { snd_config_delete(config) }
            rc = snd_pcm_open_lconf(&pcm, name, stream, 0, config)
        } else {
            rc = snd_pcm_open(&pcm, name, stream, 0)
        }
        guard rc >= 0, let pcm else {
            throw error((rc == -EBUSY || rc == -EAGAIN) ? .deviceBusy : .deviceNotFound, name, "snd_pcm_open", rc)
        }
        return pcm
    }

    private static func loadConfig(_ path: String) throws -> OpaquePointer {
        var config: OpaquePointer?
        var rc = snd_config_top(&config)
        guard rc >= 0, let config else { throw error(.configuration, path, "snd_config_top", rc) }
        var input: OpaquePointer?
        rc = snd_input_stdio_open(&input, path, "r")
        guard rc >= 0, let input else {
            snd_config_delete(config)
            throw error(.configuration, path, "snd_input_stdio_open", rc)
        }
        rc = snd_config_load(config, input)
        snd_input_close(input)
        guard rc >= 0 else {
            snd_config_delete(config)
            throw error(.configuration, path, "snd_config_load", rc)
        }
        return config
    }

    // MARK: errors

    private static let routeOnce: Void = { boxvoice_alsa_capture_messages() }()

    /// alsa-lib prints details to stderr by default; a library must not print, so they are kept for errors instead.
    static func routeLibraryMessages() { _ = routeOnce }

    static func error(_ kind: ALSAError.Kind, _ device: String, _ operation: String, _ code: Int32) -> ALSAError {
        var message = String(cString: snd_strerror(code))
        let detail = String(cString: boxvoice_alsa_take_message())
        if !detail.isEmpty { message += "; \(detail)" }
        return ALSAError(kind: kind, device: device, operation: operation, code: code, libraryMessage: message)
    }
}

extension SampleFormat {
    var alsaValue: snd_pcm_format_t {
        switch self {
        case .float32LE: SND_PCM_FORMAT_FLOAT_LE
        case .signed32LE: SND_PCM_FORMAT_S32_LE
        case .signed16LE: SND_PCM_FORMAT_S16_LE
        }
    }
}

/// A PCM the system's ALSA configuration names, as `snd_device_name_hint` describes it.
public struct ALSADeviceInfo: Sendable, Equatable {
    public let name: String
    public let description: String
}

public enum ALSADevices {
    /// Every PCM hint that can capture (IOID absent means both directions).
    public static func capture() -> [ALSADeviceInfo] {
        ALSACapturePCM.routeLibraryMessages()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        func take(_ hint: UnsafeMutableRawPointer, _ field: String) -> String? {
            guard let raw = snd_device_name_get_hint(hint, field) else { return nil }
            defer { free(raw) }
            return String(cString: raw)
        }
        var devices: [ALSADeviceInfo] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            guard let name = take(hint, "NAME") else { continue }
            if let io = take(hint, "IOID"), io != "Input" { continue }
            let description = (take(hint, "DESC") ?? "").split(separator: "\n").joined(separator: " — ")
            devices.append(ALSADeviceInfo(name: name, description: description))
        }
        return devices
    }
}
