import Foundation
import GRDB
import ParleyCore
import ParleyNode
import ParleyStore
import ParleyTransport

/// The poll tally through the node API (`Node.pollResults`) against the raw indexed SQL count of the
/// same votes, on the same file in the same run. Medians of several warm runs.
struct Tally: Sendable {
    let tallySeconds: Double
    let rawSeconds: Double
    let up: Int
    let down: Int
    let rawVotes: Int

    var ratio: Double { tallySeconds / rawSeconds }

    static func measure(_ scale: Scale, store large: LargeStore) async throws -> Tally {
        let peer = try await BenchPeer.make(identity: large.owner, storePath: large.storePath)
        let timed: Result<(PollTally, Double), any Error> = Result {
            var result = try peer.node.pollResults(chat: large.chat, poll: large.poll).tally // warm
            let seconds = try Measure.median(scale.repetitions) {
                result = try peer.node.pollResults(chat: large.chat, poll: large.poll).tally
            }
            return (result, seconds)
        }
        await peer.node.shutdown()
        let (result, tallySeconds) = try timed.get()
        guard result.up + result.down == min(large.voters, large.votes) else {
            throw BenchError(
                "the tally counted \(result.up + result.down) voters, expected \(min(large.voters, large.votes))")
        }

        let queue = try DatabaseQueue(path: large.storePath, configuration: readOnly)
        let chat = Data(large.chat.rawRepresentation)
        let poll = Data(large.poll.rawRepresentation)
        var rawVotes = 0
        let count = {
            try queue.read { db in
                var total = 0
                for tag in [Tag.pollVoteUp, Tag.pollVoteDown] {
                    total +=
                        try Int.fetchOne(
                            db,
                            sql: """
                                SELECT COUNT(*) FROM message_refs
                                WHERE chat_id = ? AND ref_id = ? AND ref_tag = ? AND msg_tag = ?
                                """, arguments: [chat, poll, tag.rawValue, tag.rawValue]) ?? 0
                }
                return total
            }
        }
        rawVotes = try count()
        let rawSeconds = try Measure.median(scale.repetitions) { rawVotes = try count() }
        guard rawVotes == large.votes else {
            throw BenchError("the raw count found \(rawVotes) votes, expected \(large.votes)")
        }
        return Tally(
            tallySeconds: tallySeconds, rawSeconds: rawSeconds, up: result.up, down: result.down, rawVotes: rawVotes)
    }

    private static var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }
}
