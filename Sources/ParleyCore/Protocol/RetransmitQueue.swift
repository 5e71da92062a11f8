/// Reliable push: each item is re-sent with exponential backoff until acknowledged or given up on
/// (anti-entropy sync then repairs it). Plain value state; the node drives it with its clock.
public struct RetransmitQueue<Key: Hashable & Sendable, Payload: Sendable>: Sendable {
    public struct Configuration: Sendable {
        public var initialDelay: Duration = .milliseconds(200)
        public var maxDelay: Duration = .seconds(4)
        public var maxAttempts = 12
        public init() {}
    }

    struct Entry: Sendable {
        var payload: Payload
        var attempts: Int
        var due: Duration
    }

    public var configuration: Configuration
    private var entries: [Key: Entry] = [:]

    public init(configuration: Configuration = .init()) { self.configuration = configuration }

    public var count: Int { entries.count }

    /// Tracks an item that was just sent (attempt 1); the first retry is due after the initial delay.
    public mutating func track(_ key: Key, payload: Payload, now: Duration) {
        entries[key] = Entry(payload: payload, attempts: 1, due: now + configuration.initialDelay)
    }

    /// Returns whether the key was being tracked.
    @discardableResult
    public mutating func acknowledge(_ key: Key) -> Bool { entries.removeValue(forKey: key) != nil }

    /// Items to send again now; each is rescheduled with a doubled delay, or dropped after the last attempt.
    public mutating func takeDue(now: Duration) -> [(key: Key, payload: Payload)] {
        var due: [(key: Key, payload: Payload)] = []
        for (key, var entry) in entries where entry.due <= now {
            guard entry.attempts < configuration.maxAttempts else {
                entries[key] = nil
                continue
            }
            due.append((key, entry.payload))
            entry.attempts += 1
            let backoff = configuration.initialDelay * (1 << min(entry.attempts - 1, 20))
            entry.due = now + min(backoff, configuration.maxDelay)
            entries[key] = entry
        }
        return due
    }
}
