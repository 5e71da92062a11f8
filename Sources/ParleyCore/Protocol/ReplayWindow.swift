/// Sliding window over packet counters (RFC 6479 style): accepts each counter at most once and
/// rejects counters that fall behind the window, so a captured datagram cannot be replayed.
public struct ReplayWindow: Sendable, Hashable {
    public static let size: UInt64 = 2048
    private var highest: UInt64 = 0
    private var bits = [UInt64](repeating: 0, count: Int(size / 64))

    public init() {}

    /// Whether `counter` would be accepted; call `accept` only after the packet authenticated.
    public func isFresh(_ counter: UInt64) -> Bool {
        if counter > highest { return true }
        if highest - counter >= Self.size { return false }
        return !bit(counter)
    }

    /// Records `counter`; returns false (and records nothing) for a replay or a too-old counter.
    public mutating func accept(_ counter: UInt64) -> Bool {
        guard isFresh(counter) else { return false }
        if counter > highest {
            let shift = counter - highest
            if shift >= Self.size {
                bits = bits.map { _ in 0 }
            } else {
                for step in 1...shift { clear(highest + step) }
            }
            highest = counter
        }
        set(counter)
        return true
    }

    private func position(_ counter: UInt64) -> (word: Int, mask: UInt64) {
        let slot = counter % Self.size
        return (Int(slot / 64), 1 << (slot % 64))
    }

    private func bit(_ counter: UInt64) -> Bool {
        let (word, mask) = position(counter)
        return bits[word] & mask != 0
    }

    private mutating func set(_ counter: UInt64) {
        let (word, mask) = position(counter)
        bits[word] |= mask
    }

    private mutating func clear(_ counter: UInt64) {
        let (word, mask) = position(counter)
        bits[word] &= ~mask
    }
}
