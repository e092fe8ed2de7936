import BoxVoiceTestSupport
import Foundation
import Testing

/// The shape of the package as `Package.swift` declares it: dependencies point one way, product code never reaches
/// for the simulator or the command-line grammar, `docs/DESIGN.md`'s map names every module, and no line of Swift is
/// wider than 120 columns.
@Suite struct PackageShapeTests {
    struct Target {
        let name: String
        let kind: String
        let dependencies: [String]
    }

    static let targets: [Target] = {
        let manifest = (try? String(contentsOfFile: Checkout.root + "/Package.swift", encoding: .utf8)) ?? ""
        // `.target(name: "X", dependencies: [...])`, and the other kinds of target.
        let declaration = try! Regex(
            #"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#
                + #"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#)
        return manifest.matches(of: declaration).map { match in
            let list = match[3].substring.map(String.init) ?? ""
            let dependencies = list.matches(of: #/"([^"]+)"/#).map { String($0.output.1) }
            let name = String(match[2].substring ?? "")
            return Target(name: name, kind: String(match[1].substring ?? ""), dependencies: dependencies)
        }
    }()

    /// Library modules the programs are built from (not the executables, tests, test support or C wrappers).
    static var productModules: [Target] {
        targets.filter { $0.kind == "target" && $0.name.hasPrefix("BoxVoice") && $0.name != "BoxVoiceTestSupport" }
    }

    @Test func theManifestIsRead() {
        #expect(Self.targets.count >= 30, "\(Self.targets.map(\.name))")
        #expect(Self.productModules.map(\.name).contains("BoxVoiceDictation"))
        #expect(Self.productModules.map(\.name).contains("BoxVoiceDelivery"))
    }

    /// Delivery (HQ, outbox, sessions) knows nothing of how a message was dictated: the daemon delivers between
    /// turns, and `transcribe` uploads a file, with no dictation at all.
    @Test func deliveryDoesNotDependOnDictation() throws {
        let delivery = try #require(Self.productModules.first { $0.name == "BoxVoiceDelivery" })
        #expect(!delivery.dependencies.contains("BoxVoiceDictation"))
        #expect(!Self.targets.contains { $0.name == "BoxVoiceCore" }, "the flat pipeline module is split, not kept")
    }

    @Test func noProductModuleDependsOnTheSimulatorOrTheGrammar() {
        for module in Self.productModules {
            #expect(!module.dependencies.contains("BoxSim"), "\(module.name) depends on BoxSim")
            #expect(!module.dependencies.contains("CommandGrammar"), "\(module.name) depends on CommandGrammar")
        }
    }

    @Test func dependenciesHaveNoCycle() {
        let graph = Dictionary(uniqueKeysWithValues: Self.targets.map { ($0.name, $0.dependencies) })
        var state: [String: Bool] = [:]  // false: being visited, true: done
        var cycle: [String]?
        func visit(_ name: String, _ path: [String]) {
            if state[name] == true || cycle != nil { return }
            if state[name] == false {
                cycle = path + [name]
                return
            }
            state[name] = false
            for next in graph[name] ?? [] { visit(next, path + [name]) }
            state[name] = true
        }
        for name in graph.keys.sorted() { visit(name, []) }
        #expect(cycle == nil, "\(cycle ?? [])")
    }

    @Test func theDesignMapNamesEveryModule() throws {
        let design = try String(contentsOfFile: Checkout.root + "/docs/DESIGN.md", encoding: .utf8)
        let map = try #require(
            design.components(separatedBy: "## Modules").dropFirst().first?.components(separatedBy: "\n## ").first)
        for target in Self.targets where target.kind != "testTarget" && target.name != "BoxVoiceTestSupport" {
            #expect(map.contains(target.name), "docs/DESIGN.md's module map does not name \(target.name)")
        }
    }

    @Test func noSwiftLineIsWiderThan120Columns() throws {
        var wide: [String] = []
        for folder in ["Sources", "Tests"] {
            let root = Checkout.root + "/" + folder
            let files =
                FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter {
                    $0.hasSuffix(".swift")
                } ?? []
            #expect(!files.isEmpty)
            for file in files {
                let lines = try String(contentsOfFile: root + "/" + file, encoding: .utf8).split(
                    separator: "\n", omittingEmptySubsequences: false)
                for (index, line) in lines.enumerated() where line.count > 120 {
                    wide.append("\(folder)/\(file):\(index + 1)")
                }
            }
        }
        #expect(wide.isEmpty, "\(wide.count) lines over 120 columns: \(wide.prefix(10))")
    }
}
