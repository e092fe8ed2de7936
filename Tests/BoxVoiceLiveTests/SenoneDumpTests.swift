import BoxVoiceLive
import BoxVoiceTestSupport
import Foundation
import Testing

/// The mixture weights sphinxtrain needs, recovered from the only form Debian's model ships them in.
@Suite struct SenoneDumpTests {
    static let model = PocketSphinxModel.debianEnglish.acousticModel

    /// A dump in pocketsphinx's layout: title, header strings, a zero, rows and columns, then the bytes.
    static func dump(streams: Int, densities: Int, senones: Int, bigEndian: Bool, values: (Int, Int, Int) -> UInt8)
        -> Data
    {
        var data = Data()
        func int(_ value: Int) {
            let word = UInt32(truncatingIfNeeded: value)
            withUnsafeBytes(of: bigEndian ? word.bigEndian : word.littleEndian) { data.append(contentsOf: $0) }
        }
        func string(_ text: String) {
            int(text.utf8.count + 1)
            data.append(contentsOf: Array(text.utf8) + [0])
        }
        string("a test dump")
        string("cluster_count 0")
        string("feature_count \(streams)")
        int(0)
        int(densities)
        int(senones)
        for stream in 0..<streams {
            for density in 0..<densities { data.append(contentsOf: (0..<senones).map { values(stream, density, $0) }) }
        }
        return data
    }

    @Test func readsTheDebianModelsDumpWithItsDimensionsAndWeightsThatSumToOne() throws {
        let dump = try SenoneDump(try Data(contentsOf: URL(fileURLWithPath: Self.model + "/sendump")))
        #expect(dump.streams == 3)
        #expect(dump.densities == 128)
        #expect(dump.senones == 5_126)
        for senone in [0, 2_500, 5_125] {
            for stream in 0..<3 { #expect(abs(dump.weights(senone: senone, stream: stream).reduce(0, +) - 1) < 1e-9) }
        }
    }

    @Test func aSmallerQuantizedValueIsALargerWeight() throws {
        let data = Self.dump(streams: 1, densities: 2, senones: 1, bigEndian: false) { _, density, _ in
            density == 0 ? 0 : 10
        }
        let weights = try SenoneDump(data).weights(senone: 0, stream: 0)
        #expect(weights[0] > weights[1])
        // Ten steps of 1024 × ln(1.0001) apart: a ratio of about e^1.024.
        #expect(abs(weights[0] / weights[1] - exp(10 * SenoneDump.logStep)) < 1e-9)
    }

    @Test func aBigEndianDumpReadsTheSameAsALittleEndianOne() throws {
        let values: (Int, Int, Int) -> UInt8 = { stream, density, senone in
            UInt8((stream * 31 + density * 7 + senone * 3) % 200)
        }
        let little = try SenoneDump(Self.dump(streams: 2, densities: 4, senones: 5, bigEndian: false, values: values))
        let big = try SenoneDump(Self.dump(streams: 2, densities: 4, senones: 5, bigEndian: true, values: values))
        #expect(little == big)
        #expect(little.quantized[1][3][4] == values(1, 3, 4))
    }

    @Test func aTruncatedOrWronglySizedDumpIsAClearError() {
        let whole = Self.dump(streams: 1, densities: 2, senones: 3, bigEndian: false) { _, _, _ in 1 }
        for broken in [whole.prefix(10), whole.dropLast(1), whole + Data([7]), Data()] {
            #expect(throws: SenoneDump.ReadError.self) { try SenoneDump(Data(broken)) }
        }
    }

    @Test func aClusteredDumpIsRefusedByName() {
        var data = Data()
        func int(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        for text in ["title", "cluster_count 16"] {
            int(text.utf8.count + 1)
            data.append(contentsOf: Array(text.utf8) + [0])
        }
        int(0)
        #expect {
            try SenoneDump(data)
        } throws: { error in
            String(describing: error).contains("clustered")
        }
    }

    /// The weights written for sphinxtrain are the model's own: a copy of the model holding them instead of its sendump
    /// hears a sample exactly as the shipped model does.
    @Test func aModelWithTheWrittenMixtureWeightsHearsAsTheShippedOne() throws {
        let work = TemporaryDirectory("mixw")
        let copy = work.file("en-us")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.model) where file != "sendump" {
            try FileManager.default.createSymbolicLink(
                atPath: copy + "/" + file, withDestinationPath: Self.model + "/" + file)
        }
        let dump = try SenoneDump(try Data(contentsOf: URL(fileURLWithPath: Self.model + "/sendump")))
        try dump.mixtureWeightsFile().write(to: URL(fileURLWithPath: copy + "/mixture_weights"))
        var rebuilt = PocketSphinxModel.debianEnglish
        rebuilt.acousticModel = copy
        let samples = try SpeechConversion.recognizerSamples(fromFile: Checkout.sample("none-weather.wav"))
        let shipped = try PocketSphinxDecoder().transcribe(samples)
        #expect(!shipped.isEmpty)
        #expect(try PocketSphinxDecoder(model: rebuilt).transcribe(samples) == shipped)
    }
}
