/// How often a node beats: every `minimum` (5 s) in small chats, and less often as the peers it beats
/// to grow, so that what one node receives stays about the same however large the chat. Every
/// member of one chat of n receives n − 1 beats per interval, each a decryption and a signature
/// check; at 150 ms per peer that is at most about 6.7 beats a second up to 400 peers (past them the
/// 60 s cap applies), where a fixed 5 s cost 20 a second at 100 members and kept a node at idle busy
/// 0.6 % of a core. The price is
/// slower "offline" for a node that dies without a goodbye (2 intervals + 2 s: 32 s at 100 members);
/// a graceful shutdown still shows offline at once.
///
/// Beats go out at wall-clock multiples of the interval, so the beats a node receives arrive together
/// and are read, decrypted and checked as one batch: one wake-up per interval instead of one per peer.
public enum PresenceSchedule {
    public static let perPeer: Duration = .milliseconds(150)
    public static let longest: Duration = .seconds(60)

    public static func interval(peers: Int, minimum: Duration) -> Duration {
        min(max(minimum, perPeer * max(peers, 0)), longest)
    }

    /// From `wallMillis` to the next multiple of `interval` (a whole interval when exactly on one):
    /// never longer than the interval the last beat announced.
    public static func delay(untilNextBeatAfter wallMillis: Int64, interval: Duration) -> Duration {
        let period = min(max(1, interval.millis), 3_600_000) // an hour at most: the sum below cannot overflow
        let remainder = ((wallMillis % period) + period) % period
        return .milliseconds(period - remainder)
    }
}
