import Logging
import ParleyCore
import ParleyStore

/// After a secret poll's close a voter's node keeps only that its user voted (docs/BALLOTS.md §4,
/// "After the close"). Until the close it needs the ballot's bytes, to send them again if they are
/// not published; after it nothing does, and the bytes (which select the choice and find the
/// published ballot) and the choice itself would tell anyone who later reads the store how this user
/// voted. The choice stays only when the user asked for it when casting.
extension Node {
    /// Erases this node's choice on every secret poll these closes close, and reveals the ballots it
    /// committed to that the creator left out. A failure is logged and tried again at the next start
    /// (`loadSecretBallots`).
    func forgetSecretChoices(closedBy closes: [Message]) async {
        for close in closes {
            for target in close.references where target.tag == .pollClose {
                do {
                    guard let stored = try store.message(target.id), stored.message.chat == close.chat else { continue }
                    try await forgetSecretChoice(on: stored.message)
                    try await revealLeftOutBallots(on: stored.message)
                } catch {
                    logger.warning(
                        "erasing a secret choice or revealing a left-out ballot after the close failed; retried at the next start",
                        metadata: [
                            "poll": "\(target.id.shortHex)", "error": "\(error)",
                        ])
                }
            }
        }
    }

    /// On a closed secret poll: notes that this user voted, then erases the cast ballot's bytes and,
    /// unless the user asked to keep it, the choice. Nothing to do on another poll, an open one, or
    /// one this node did not vote on.
    func forgetSecretChoice(on poll: Message) async throws {
        let data = try store.allLocalData(message: poll.id)
        let keepsChoice = data[LocalDataKey.secretKeepChoice] != nil
        let erased = [LocalDataKey.secretBallot] + (keepsChoice ? [] : [LocalDataKey.pollVote])
        guard erased.contains(where: { data[$0] != nil }), poll.tag == .poll, try Poll(poll).secret != nil,
            try isClosed(poll)
        else { return }
        // First: a crash between the two steps must still leave "you voted".
        if data[LocalDataKey.secretVoted] == nil {
            try await store.setLocalData(message: poll.id, key: LocalDataKey.secretVoted, value: "voted")
        }
        for key in erased where data[key] != nil { _ = try await store.deleteLocalData(message: poll.id, key: key) }
        logger.info(
            "erased this node's secret ballot after the close",
            metadata: [
                "poll": "\(poll.id.shortHex)", "choice": "\(keepsChoice ? "kept, as asked" : "erased")",
            ])
    }
}
