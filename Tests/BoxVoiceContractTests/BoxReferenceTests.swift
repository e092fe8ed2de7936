import BoxVoiceContract
import Testing

@Suite struct BoxReferenceTests {
    @Test func theEmbeddedBoxAndAPairedOneAreNeverEqual() {
        #expect(BoxReference.embedded != .paired("home"))
        #expect(BoxReference(storeKey: BoxReference.embeddedName) == .embedded)
        #expect(BoxReference(storeKey: "home") == .paired("home"))
    }

    @Test(arguments: ["home", "local-2", "bee-box"])
    func aStoreKeyRoundTrips(_ key: String) {
        #expect(BoxReference(storeKey: key).storeKey == key)
        #expect(BoxReference.embedded.storeKey == "local")
    }
}
