public import ParleyCore
public import ParleyCrypto

extension ForkProof {
    /// Two different messages of `author` for one slot of its chain (`sequence`): a proof of its fork there.
    public static func forged(chat: ChatID, author: Identity, sequence: UInt64 = 1) throws -> ForkProof {
        func branch(_ text: String) throws -> Message {
            let draft = MessageDraft(
                chat: chat, author: author.publicKey, sequence: sequence, previous: nil, lamport: 1, timestampMillis: 0,
                tag: .text, content: Array(text.utf8), references: [])
            return try draft.chained().signedAsHead(by: author)
        }
        return try ForkProof(first: [try branch("to alice")], second: [try branch("to bob")])
    }
}
