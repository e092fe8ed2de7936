import BoxVoiceTestSupport
import Foundation
import Testing

/// `make install`'s script over this build into a DESTDIR outside the checkout, then the installed tools used from
/// there, then `make uninstall`'s script.
@Suite struct InstallTests {
    @Test func anInstalledCopyFindsItsModelsAndShipsItsUnitManPagesAndCompletions() throws {
        let destdir = TemporaryDirectory("install")
        let bin = (Run.boxvoice as NSString).deletingLastPathComponent
        let installed = try Run.process(Checkout.root + "/scripts/install.sh", [bin, destdir.path, "/usr/local"])
        #expect(installed.status == 0, "\(installed.stderr)")
        let prefix = destdir.file("usr/local")
        // Away from the checkout, with no BOXVOICE_MODELS: the Models folder beside the binary is found.
        var environment = ProcessInfo.processInfo.environment
        environment["BOXVOICE_MODELS"] = nil
        let detected = try Run.process(
            prefix + "/bin/boxvoice", ["keywords", "detect", "buy milk, over and out"], environment: environment)
        #expect(detected.status == 0, "\(detected.stderr)")
        #expect(detected.stdout.contains("action: sendClose"))
        let unit = try String(contentsOfFile: prefix + "/lib/systemd/user/boxvoice.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=/usr/local/bin/boxvoice daemon\n"))
        let man = try Run.process(
            "/bin/sh",
            ["-c", "zcat '\(prefix)/share/man/man1/boxvoice.1.gz' | groff -man -Tutf8 2>&1 >/dev/null | head -5"])
        #expect(man.stdout.isEmpty, "groff warnings: \(man.stdout)")
        let page = try Run.process("/bin/sh", ["-c", "zcat '\(prefix)/share/man/man1/boxvoice.1.gz'"]).stdout
        #expect(
            page.contains(".SS dictate") && page.contains(".SS outbox") && page.contains("\\fB\\-\\-max\\-seconds\\fR"))
        let bash = try Run.process(
            "/bin/bash",
            ["-c", "source '\(prefix)/share/bash-completion/completions/boxvoice' && complete -p boxvoice"])
        #expect(bash.stdout.contains("-F _boxvoice boxvoice"), "\(bash.stderr)")
        // The completions know each option's values (from the grammar): a choice offers its words.
        let formats = try Run.process(
            "/bin/bash",
            [
                "-c",
                "source '\(prefix)/share/bash-completion/completions/boxvoice' && COMP_WORDS=(boxvoice record --format "
                    + "F) COMP_CWORD=3; _boxvoice; echo ${COMPREPLY[@]}",
            ])
        #expect(
            formats.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "FLOAT_LE",
            "\(formats.stdout) \(formats.stderr)")
        let verbs = try Run.process(
            "/bin/bash",
            [
                "-c",
                "source '\(prefix)/share/bash-completion/completions/boxvoice' && COMP_WORDS=(boxvoice outbox re) "
                    + "COMP_CWORD=2; _boxvoice; echo ${COMPREPLY[@]}",
            ])
        #expect(
            verbs.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "retry resend",
            "\(verbs.stdout) \(verbs.stderr)")
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/zsh/vendor-completions/_boxvoice"))
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/fish/vendor_completions.d/boxvoice.fish"))

        let removed = try Run.process(Checkout.root + "/scripts/uninstall.sh", [destdir.path, "/usr/local"])
        #expect(removed.status == 0, "\(removed.stderr)")
        let left = FileManager.default.enumerator(atPath: prefix)?.allObjects ?? []
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test func versionNamesTheVersionFileAndTheCommitMakeBuilt() throws {
        let version = try String(contentsOfFile: Checkout.root + "/VERSION", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        for tool in [Run.boxvoice, (Run.boxvoice as NSString).deletingLastPathComponent + "/boxsim"] {
            let result = try Run.process(tool, ["--version"])
            #expect(result.status == 0)
            let name = (tool as NSString).lastPathComponent
            #expect(result.stdout.hasPrefix("\(name) \(version) (commit "), "\(result.stdout)")
            // `make` builds the commit in; a plain `swift build` says unknown.
            let commit = result.stdout.split(separator: " ").last.map { String($0.dropLast(2)) } ?? ""
            if commit != "unknown" {
                // The commit built is this checkout's HEAD, or an ancestor of it when a commit was made since the
                // build.
                #expect(commit.count == 12 && commit.allSatisfy(\.isHexDigit), "\(commit)")
                let ancestor = try Run.process(
                    "/usr/bin/git", ["-C", Checkout.root, "merge-base", "--is-ancestor", commit, "HEAD"])
                #expect(ancestor.status == 0, "\(commit) is not in this checkout's history")
            }
        }
    }

    @Test func helpAndDashDashHelpAgree() throws {
        let help = try Run.boxvoice("help")
        let dashed = try Run.boxvoice("--help")
        #expect(help.status == 0 && dashed.status == 0)
        #expect(help.stdout == dashed.stdout)
        #expect(help.stdout.contains("docs"))
    }
}
