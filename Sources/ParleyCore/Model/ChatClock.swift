/// A node's Lamport clock for one chat (PROTOCOL §11): what its next message claims.
///
/// Clocks are claims. Taking every claim in would let one member post 2^63 − 1 and pin every later
/// message of everyone at that value, where the clock no longer moves and history falls back to
/// grouping by author. So a claim counts only when it is a plausible step above what the node holds:
/// honest clocks rise by one per message, and no chat holds 2^32 messages.
public enum ChatClock {
    /// The largest clock a store keeps (SQLite INTEGER); the clock stops there rather than wrap.
    public static let max = UInt64(Int64.max)
    /// The furthest above the node's clock that a claimed clock still raises it.
    public static let maxStep: UInt64 = 1 << 32

    /// The clock after seeing a stored message that claims `claimed`.
    public static func observing(_ claimed: UInt64, at clock: UInt64) -> UInt64 {
        claimed > clock && claimed - clock <= maxStep ? claimed : clock
    }

    /// The clock the next own message claims. It saturates, so no clock can stop a member sending.
    public static func next(after clock: UInt64) -> UInt64 { Swift.min(clock, max - 1) + 1 }
}
