/// The one rate boxvoice captures, keeps and uploads audio at: 48 kHz, the rate of the box's recordings (contract
/// §1). Every conversion between frames and seconds of recorded audio goes through it.
public enum AudioRate {
    /// Frames a second.
    public static let hertz = 48_000
    /// `hertz`, for arithmetic in seconds.
    public static let perSecond = Double(hertz)
}
