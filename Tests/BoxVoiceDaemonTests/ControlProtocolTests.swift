import BoxVoiceDictation
import BoxVoiceDaemon
import Foundation
import Testing

@Suite struct ControlProtocolTests {
    @Test(arguments: ControlRequest.Command.allCases)
    func everyCommandRoundTrips(_ command: ControlRequest.Command) throws {
        let request = ControlRequest(command)
        #expect(try ControlRequest.decode(request.encoded) == request)
    }

    @Test func statusCanFollow() throws {
        #expect(
            try ControlRequest.decode(#"{"command":"status","follow":true}"#) == ControlRequest(.status, follow: true))
        #expect(try ControlRequest.decode(#"{"command":"status","follow":false}"#) == ControlRequest(.status))
    }

    @Test(arguments: [
        ("", "expected one JSON object"),
        ("[]", "expected one JSON object"),
        (#"{"command":"launch"}"#, "unknown command 'launch'"),
        (#"{"command":1}"#, "'command' must be a string"),
        (#"{}"#, "'command' must be a string"),
        (#"{"command":"start","now":true}"#, "unknown field 'now'"),
        (#"{"command":"status","follow":1}"#, "'follow' true or false"),
        (#"{"command":"start","follow":true}"#, "only status can follow"),
    ])
    func malformedRequestsAreRefusedWithTheReason(_ line: String, _ reason: String) {
        #expect {
            try ControlRequest.decode(line)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func repliesRoundTrip() {
        let reply = ControlReply(ok: false, state: .idle, message: "not dictating")
        #expect(ControlReply.decode(jsonLine(reply)) == reply)
        #expect(jsonLine(reply) == #"{"message":"not dictating","ok":false,"state":"idle"}"#)
        #expect(ControlReply.decode("garbage") == nil)
    }
}
