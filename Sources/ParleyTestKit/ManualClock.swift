public import ParleyCore
import Synchronization

/// A clock that moves only when a test says so; sleepers wake when `advance` passes their deadline,
/// or throw `CancellationError` as soon as their task is cancelled.
public final class ManualClock: NodeClock {
    private struct Sleeper {
        let id: UInt64
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var wallMillis: Int64
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var cancelled: Set<UInt64> = []
    }

    private let state: Mutex<State>

    public init(wallMillis: Int64 = 1_800_000_000_000) { state = Mutex(State(wallMillis: wallMillis)) }

    public var now: Duration { state.withLock { $0.now } }
    public var wallMillis: Int64 { state.withLock { $0.wallMillis } }
    /// How many tasks are asleep on this clock now.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    public func sleep(for duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let cancelledEarly = state.withLock { state in
                    guard state.cancelled.remove(id) == nil else { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: state.now + duration, continuation: continuation))
                    return false
                }
                if cancelledEarly { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id) // cancelled before it parked: the park sees this
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now += duration
            state.wallMillis += duration.millis
            let due = state.sleepers.filter { $0.deadline <= state.now }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
