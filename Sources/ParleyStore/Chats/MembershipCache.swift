internal import Synchronization
import ParleyCore

/// The memberships the send path reads for every message, kept between writes. Any write that may
/// change a membership empties it before it starts and after it ends, and a read made while such a
/// write was running, or overlapped one, is not kept: so a cached membership is always the committed
/// one. Shared by every copy of one store value.
final class MembershipCache: Sendable {
    private struct State {
        var entries: [ChatID: ChatMembership] = [:]
        /// Every joined chat's current members (`memberships()`), which the timers read every beat.
        var allMembers: [ChatID: [PeerID]]?
        /// The members of each epoch read so far: every insert into a keyed chat checks its author
        /// against the epoch it was sealed for.
        var epochMembers: [ChatID: [Int64: Set<PeerID>]] = [:]
        /// Bumped at the start and at the end of every write that may change a membership.
        var generation: UInt64 = 0
        var changesRunning = 0

        /// Drops every cached value, and moves the generation so no read begun before is kept.
        mutating func forgetAll() {
            generation &+= 1
            entries.removeAll()
            allMembers = nil
            epochMembers.removeAll()
        }
    }

    private let state = Mutex(State())

    /// The cached membership if there is one; otherwise the generation to hand `keep` with what the
    /// caller then reads.
    func lookup(_ chat: ChatID) -> (membership: ChatMembership?, generation: UInt64) {
        cached { $0.entries[chat] }
    }

    /// Keeps a membership read after `lookup` returned `generation`, unless a change raced the read.
    func keep(_ membership: ChatMembership, readAt generation: UInt64) {
        keep(readAt: generation) { $0.entries[membership.chat] = membership }
    }

    /// The cached members of every chat, or the generation to hand `keepAll` with what the caller reads.
    func lookupAll() -> (members: [ChatID: [PeerID]]?, generation: UInt64) {
        cached(\.allMembers)
    }

    func keepAll(_ members: [ChatID: [PeerID]], readAt generation: UInt64) {
        keep(readAt: generation) { $0.allMembers = members }
    }

    /// The cached members of one epoch, or the generation to hand `keepEpoch` with what the caller reads.
    func lookupEpoch(_ chat: ChatID, _ epoch: Int64) -> (members: Set<PeerID>?, generation: UInt64) {
        cached { $0.epochMembers[chat]?[epoch] }
    }

    func keepEpoch(_ chat: ChatID, _ epoch: Int64, members: Set<PeerID>, readAt generation: UInt64) {
        keep(readAt: generation) { $0.epochMembers[chat, default: [:]][epoch] = members }
    }

    /// A cached value, unless a change is running, and the generation a read made now is kept under.
    private func cached<Value>(_ value: (State) -> Value?) -> (Value?, generation: UInt64) {
        state.withLock { state in (state.changesRunning == 0 ? value(state) : nil, state.generation) }
    }

    /// Applies `change` unless a change to memberships ran since the read made at `generation`.
    private func keep(readAt generation: UInt64, _ change: (inout State) -> Void) {
        state.withLock { state in
            guard state.generation == generation, state.changesRunning == 0 else { return }
            change(&state)
        }
    }

    var count: Int { state.withLock { $0.entries.count } }

    /// Called before a write that may change memberships starts, and `changeEnds` once it ended.
    func changeBegins() {
        state.withLock { state in
            state.changesRunning += 1
            state.forgetAll()
        }
    }

    func changeEnds() {
        state.withLock { state in
            state.changesRunning -= 1
            state.forgetAll()
        }
    }
}
