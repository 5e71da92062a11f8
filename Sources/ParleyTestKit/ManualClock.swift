public import ParleyCore
import Synchronization

/// A clock that moves only when a test says so; sleepers wake when `advance` passes their deadline.
public final class ManualClock: NodeClock {
    private struct Sleeper {
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var wallMillis: Int64
        var sleepers: [Sleeper] = []
    }

    private let state: Mutex<State>

    public init(wallMillis: Int64 = 1_800_000_000_000) { state = Mutex(State(wallMillis: wallMillis)) }

    public var now: Duration { state.withLock { $0.now } }
    public var wallMillis: Int64 { state.withLock { $0.wallMillis } }

    public func sleep(for duration: Duration) async throws {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { $0.sleepers.append(Sleeper(deadline: $0.now + duration, continuation: continuation)) }
        }
    }

    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now += duration
            state.wallMillis += Int64(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
            let due = state.sleepers.filter { $0.deadline <= state.now }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
