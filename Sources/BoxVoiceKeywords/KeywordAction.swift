/// What a spoken command asks for (contract §4). The vocabulary file decides which phrases say it,
/// the order actions are checked in, and the tag each writes.
public enum KeywordAction: String, Sendable, CaseIterable, Codable {
    case send
    case sendHq
    case sendClose
    case sendCheckpoint
    case micOff
    case cancel
    case erase

    /// Send-type actions end the turn by delivering the message and leave their tag in it;
    /// cancel, erase and mic-off never put a tag into text that is kept.
    public var isSend: Bool {
        switch self {
        case .send, .sendHq, .sendClose, .sendCheckpoint: true
        case .micOff, .cancel, .erase: false
        }
    }
}
