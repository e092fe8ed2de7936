import BoxVoiceBox
import BoxVoiceTestSupport
import Foundation
import Testing

/// The paired boxes fail closed: only a missing file means "none paired".
@Suite struct BoxRegistryTests {
    private func registry(_ name: String) -> (BoxRegistry, TemporaryDirectory) {
        let folder = TemporaryDirectory(name)
        return (BoxRegistry(directory: folder.path), folder)
    }

    @Test func noFileMeansNothingPaired() throws {
        let (registry, _) = registry("registry-none")
        #expect(try registry.boxes().isEmpty)
        #expect(try registry.box(named: nil) == nil)
    }

    /// Root reads any file, so an unreadable one is a folder in its place: the read fails the same way.
    @Test func anUnreadableListStopsBoxCommandsAndIsNeverWrittenOver() throws {
        let (registry, folder) = registry("registry-unreadable")
        try FileManager.default.createDirectory(atPath: registry.boxesPath, withIntermediateDirectories: true)
        #expect { try registry.boxes() } throws: { ($0 as? BoxRegistry.Failure)?.code == .unreadable }
        #expect { try registry.box(named: nil) } throws: { ($0 as? BoxRegistry.Failure)?.code == .unreadable }
        #expect {
            try registry.add(
                label: "Bee Box", baseURL: "http://127.0.0.1:1/main/x", session: nil, token: "t", preferredName: nil,
                redeemedTicket: nil)
        } throws: { ($0 as? BoxRegistry.Failure)?.code == .unreadable }
        var isFolder: ObjCBool = false
        #expect(
            FileManager.default.fileExists(atPath: registry.boxesPath, isDirectory: &isFolder) && isFolder.boolValue)
        _ = folder
    }

    @Test func aDamagedListIsLeftAsItIsAndSaysWhatToDo() throws {
        let (registry, _) = registry("registry-damaged")
        try FileManager.default.createDirectory(atPath: registry.directory, withIntermediateDirectories: true)
        let damaged = Data(#"{"selected":"home","boxes":[{"name":"home","#.utf8)
        try damaged.write(to: URL(fileURLWithPath: registry.boxesPath))
        #expect {
            try registry.add(
                label: "Bee Box", baseURL: "http://127.0.0.1:1/main/x", session: nil, token: "t", preferredName: nil,
                redeemedTicket: nil)
        } throws: { error in
            (error as? BoxRegistry.Failure)?.code == .damaged && "\(error)".contains("left as it is")
        }
        #expect(FileManager.default.contents(atPath: registry.boxesPath) == damaged)
    }

    @Test func unreadableCredentialsAreAnErrorNotNoToken() throws {
        let (registry, _) = registry("registry-credentials")
        let box = try registry.add(
            label: "Bee Box", baseURL: "http://127.0.0.1:1/main/x", session: nil, token: "t", preferredName: nil,
            redeemedTicket: nil)
        try FileManager.default.removeItem(atPath: registry.credentialsPath)
        try FileManager.default.createDirectory(
            atPath: registry.credentialsPath, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        #expect { try registry.token(for: box) } throws: { ($0 as? BoxRegistry.Failure)?.code == .unreadable }
    }

    /// A box labelled "Local" once took the embedded box's name and received what was dictated to the embedded box.
    @Test(arguments: ["Local", "local", "LOCAL"])
    func aPairedBoxNeverTakesTheEmbeddedBoxsName(label: String) throws {
        let (registry, _) = registry("registry-reserved")
        let byLabel = try registry.add(
            label: label, baseURL: "http://127.0.0.1:1/main/a", session: nil, token: "a", preferredName: nil,
            redeemedTicket: nil)
        let byName = try registry.add(
            label: "Bee Box", baseURL: "http://127.0.0.1:1/main/b", session: nil, token: "b", preferredName: label,
            redeemedTicket: nil)
        #expect(byLabel.name != BoxRegistry.embeddedBoxName && byName.name != BoxRegistry.embeddedBoxName)
        #expect(try registry.boxes().map(\.name) == ["local-2", "local-3"])
    }

    @Test func aListThatNamesABoxLikeTheEmbeddedOneIsRefused() throws {
        let (registry, _) = registry("registry-reserved-file")
        try FileManager.default.createDirectory(atPath: registry.directory, withIntermediateDirectories: true)
        let json =
            #"{"selected":"local","boxes":[{"name":"local","label":"Local","baseURL":"http://127.0.0.1:1/main/x","#
            + #""insecure":false,"pairedAt":"2026-12-01T10:00:00Z"}]}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: registry.boxesPath))
        #expect {
            try registry.box(named: nil)
        } throws: { error in
            (error as? BoxRegistry.Failure)?.code == .reservedName
        }
    }
}
