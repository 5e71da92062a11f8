import Foundation
import ParleyCore
import ParleyCrypto
import ParleyNode
import ParleyStore

/// A member that was offline while a third member wrote `catchUpMessages` messages comes back and gets
/// them all by anti-entropy sync from the member who has them. Timed from starting both nodes until the
/// returning node holds every message.
struct CatchUp: Sendable {
    let messages: Int
    let seconds: Double
    var perSecond: Double { Double(messages) / seconds }

    static func measure(_ scale: Scale, directory: String) async throws -> CatchUp {
        let holder = try Identity.generate()
        let returning = try Identity.generate()
        let author = try Identity.generate()
        let invite = try ChatInvite.create(
            by: author, title: "Missed", members: [holder.publicKey, returning.publicKey],
            createdAtMillis: BenchContent.epochMillis)

        let holderPath = "\(directory)/catchup-holder.sqlite"
        let returningPath = "\(directory)/catchup-returning.sqlite"
        let holderStore = try MessageStore.open(path: holderPath)
        _ = try await holderStore.saveChat(invite, joinedAtMillis: BenchContent.epochMillis)
        _ = try await MessageStore.open(path: returningPath).saveChat(invite, joinedAtMillis: BenchContent.epochMillis)
        let chat = invite.id
        let authorKey = author.publicKey
        try await BulkMessages.fill(holderStore, count: scale.catchUpMessages, owner: holder.publicKey) { index in
            let draft = MessageDraft(
                chat: chat, author: authorKey, sequence: UInt64(index + 1), lamport: UInt64(index + 1),
                timestampMillis: BenchContent.epochMillis + Int64(index), tag: .text, content: BenchContent.bytes)
            return (draft, author)
        }

        let peers = [
            try await BenchPeer.make(identity: holder, storePath: holderPath),
            try await BenchPeer.make(identity: returning, storePath: returningPath),
        ]
        try await BenchPeer.introduce(peers)
        let target = UInt64(scale.catchUpMessages)
        let (caughtUp, seconds) = try await Measure.time {
            try await BenchPeer.running(peers) {
                try await Measure.waitUntil(timeout: .seconds(600), interval: .milliseconds(5)) {
                    try peers[1].contiguous(chat, from: authorKey) >= target
                }
            }
        }
        guard caughtUp else { throw BenchError("the returning member did not catch up within 600 s") }
        return CatchUp(messages: scale.catchUpMessages, seconds: seconds)
    }
}
