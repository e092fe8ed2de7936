import Foundation

/// The mixture weights of a pocketsphinx PTM model, read from its `sendump` (8-bit quantized negative logs, the
/// only form Debian's en-us model ships) and written as the float `mixture_weights` file sphinxtrain's `bw` needs to
/// align adaptation audio. Pure: bytes in, bytes out.
public struct SenoneDump: Sendable, Equatable {
    /// What a dump that cannot be read says about itself.
    public struct ReadError: Error, Sendable, Equatable, CustomStringConvertible {
        public let detail: String
        public var description: String { "the acoustic model's sendump cannot be read (\(detail))" }
    }

    public let senones: Int
    public let streams: Int
    public let densities: Int
    /// `quantized[stream][density][senone]`: the weight as a negative log in steps of `logStep`.
    public let quantized: [[[UInt8]]]

    /// One quantization step in natural-log units: pocketsphinx stores -log base 1.0001 of a weight, shifted right
    /// by 10 bits.
    public static let logStep = 1_024 * log(1.0001)
    private static let probability = (0...255).map { exp(-Double($0) * logStep) }

    /// - Parameter streams: the model's feature streams (3 for en-us: cepstra, deltas, double deltas), which the dump
    ///   names in its header; used when it does not.
    public init(_ data: Data, streams defaultStreams: Int = 3) throws {
        var reader = Reader(bytes: [UInt8](data))
        // A title, then header strings until an empty one; little-endian unless the first length says otherwise.
        var titleLength = try reader.int32()
        if !(1...999).contains(titleLength) {
            reader.swapped = true
            reader.offset = 0
            titleLength = try reader.int32()
            guard (1...999).contains(titleLength) else { throw ReadError(detail: "no title") }
        }
        try reader.skip(Int(titleLength))
        var streams = defaultStreams, clusters = 0
        while true {
            let length = try reader.int32()
            if length == 0 { break }
            let text = try reader.string(Int(length))
            if let value = Self.value(of: "feature_count", in: text) { streams = value }
            if let value = Self.value(of: "cluster_count", in: text) { clusters = value }
        }
        guard clusters == 0 else { throw ReadError(detail: "clustered (\(clusters)) weights are not supported") }
        let densities = Int(try reader.int32()), senones = Int(try reader.int32())
        guard densities > 0, senones > 0, streams > 0 else { throw ReadError(detail: "empty dimensions") }
        guard reader.remaining == streams * densities * senones else {
            throw ReadError(detail: "\(reader.remaining) bytes of weights for \(streams)×\(densities)×\(senones)")
        }
        var quantized: [[[UInt8]]] = []
        for _ in 0..<streams {
            var rows: [[UInt8]] = []
            for _ in 0..<densities { rows.append(try reader.bytes(senones)) }
            quantized.append(rows)
        }
        self.senones = senones
        self.streams = streams
        self.densities = densities
        self.quantized = quantized
    }

    private static func value(of key: String, in text: String) -> Int? {
        guard text.hasPrefix(key + " ") else { return nil }
        return Int(text.dropFirst(key.count + 1).prefix { $0.isNumber })
    }

    /// The weights of one senone in one stream, each density's share (they sum to 1).
    public func weights(senone: Int, stream: Int) -> [Double] {
        let raw = (0..<densities).map { Self.probability[Int(quantized[stream][$0][senone])] }
        let total = raw.reduce(0, +)
        return raw.map { $0 / total }
    }

    /// sphinxtrain's `mixture_weights` file (s3 header, no checksum, little-endian floats senone by senone).
    public func mixtureWeightsFile() -> Data {
        var data = Data("s3\nversion 1.0\nendhdr\n".utf8)
        func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        append(0x1122_3344)  // byte-order magic
        for value in [senones, streams, densities, senones * streams * densities] { append(UInt32(value)) }
        data.reserveCapacity(data.count + 4 * senones * streams * densities)
        for senone in 0..<senones {
            for stream in 0..<streams {
                for weight in weights(senone: senone, stream: stream) { append(Float(weight).bitPattern) }
            }
        }
        return data
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0
        var swapped = false

        var remaining: Int { bytes.count - offset }

        mutating func int32() throws -> Int32 {
            guard remaining >= 4 else { throw ReadError(detail: "ends inside its header") }
            let value = bytes[offset..<offset + 4].enumerated().reduce(UInt32(0)) {
                $0 | UInt32($1.element) << (8 * UInt32($1.offset))
            }
            offset += 4
            return Int32(bitPattern: swapped ? value.byteSwapped : value)
        }

        mutating func skip(_ count: Int) throws {
            guard count >= 0, remaining >= count else { throw ReadError(detail: "ends inside its header") }
            offset += count
        }

        mutating func bytes(_ count: Int) throws -> [UInt8] {
            guard remaining >= count else { throw ReadError(detail: "ends inside its weights") }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        mutating func string(_ count: Int) throws -> String {
            String(decoding: try bytes(count).prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
