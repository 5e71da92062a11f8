internal import GRDB
internal import Synchronization
import ParleyCore

/// Where each chat's and each author's numbering stands, as last committed: the local number the
/// chat's next stored message gets, and every author's sync head (`author_heads`). A one-message
/// insert read both back from the store before this (a `MAX(local_number)` and a head lookup), about
/// a fifth of its transaction (with the epoch's members, now in `MembershipCache`, about half). Only
/// the insert path writes messages and heads, and nothing deletes them, so values taken when the
/// insert's transaction commits stay what the store says. Shared by every copy of one store value.
/// Like `AwaitingAcks`, it trusts that no other writer adds messages to the file while a node runs;
/// if one did, the next insert into that chat would take a local number already used and fail, so an
/// insert that fails (its transaction rolled back) empties it, and inserts after it read the store again.
final class CommittedPositions: Sendable {
    struct Head: Sendable {
        var contiguous: Int64
        var max: Int64
    }

    private struct State {
        var nextLocalNumber: [ChatID: Int64] = [:]
        var heads: [AuthorLane: Head] = [:]
    }

    private let state = Mutex(State())

    func nextLocalNumber(of chat: ChatID) -> Int64? {
        state.withLock { $0.nextLocalNumber[chat] }
    }

    func head(_ key: AuthorLane) -> Head? {
        state.withLock { $0.heads[key] }
    }

    /// Empties it: the next insert reads the store again.
    func forget() {
        state.withLock { $0 = State() }
    }

    /// Takes the values a transaction leaves when it commits.
    func update(nextLocalNumbers: [ChatID: Int64], heads: [AuthorLane: Head], in db: Database) {
        guard !nextLocalNumbers.isEmpty || !heads.isEmpty else { return }
        db.afterNextTransaction { _ in
            self.state.withLock { state in
                state.nextLocalNumber.merge(nextLocalNumbers) { _, committed in committed }
                state.heads.merge(heads) { _, committed in committed }
            }
        }
    }
}
