import BoxSim
import BoxVoiceBox
import BoxVoiceContract
import BoxVoiceLive
import Foundation

/// The local box `dictate` uses when none is paired: boxsim in-process (pocketsphinx HQ), paired on the spot.
enum EmbeddedBox {
    /// Its name in the store and in every listing: the one spelling of it, which no paired box may take.
    static let name = BoxRegistry.embeddedBoxName

    /// Starts it with its data under `dataDirectory`; stop the server when done.
    static func start(dataDirectory: String) throws -> (server: BoxSimServer, client: BoxClient) {
        var configuration = BoxSimConfiguration(dataDirectory: dataDirectory)
        // Its HQ is Whisper where the model is there, as a real box's is a real recognizer.
        if let models = HearingModels.besideThisProgram() { configuration.hq = .whisper(model: models.whisper) }
        // It shares the machine with the live path it serves: a message's HQ must not make the next command late.
        configuration.hqYieldsCPU = true
        let server = try BoxSimServer(configuration: configuration)
        let ticket = try PairingLink.parse(server.mintPairingLink()).pairingToken ?? ""
        let token = try BoxClient(baseURL: server.baseURL, token: nil).redeem(
            pairingToken: ticket, deviceLabel: "boxvoice (embedded)")
        return (server, BoxClient(baseURL: server.baseURL, token: token))
    }
}
