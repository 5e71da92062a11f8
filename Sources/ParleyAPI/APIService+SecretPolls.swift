import ParleyCore
import ParleyNode
import ParleyStore

extension APIService {
    /// A secret poll: a yes/no question without `spec`. Its electorate is every current member whose
    /// ballot key this node holds; the view lists the members left out.
    func createSecretPoll(chat: ChatID, question: String, spec: PollSpec?, closesAtMillis: Int64?) async throws
        -> PollResultsView
    {
        guard let closesAtMillis else {
            throw NodeError.invalid(
                "a secret poll needs a closing time (--closes-at): its ballots are published and counted then")
        }
        let created = try await node.createSecretPoll(
            chat: chat, question: spec.map { .options($0) } ?? .yesNo(question), closesAtMillis: closesAtMillis)
        return try pollView(chat: chat, poll: created.poll.id)
    }
}
