import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

@Suite struct CriteriaTests {
    /// A poll by Alice, votes from Bob and Carol, a reply quoting the poll, and chatter.
    struct Poll {
        let f: StoreFixture
        let poll: Message
        let bobUp: Message
        let carolDown: Message
        let reply: Message

        static func make() async throws -> Poll {
            let f = try await StoreFixture.make()
            let poll = try f.message(by: f.alice, seq: 1, tag: .poll, text: "lunch?")
            let bobUp = try f.message(
                by: f.bob, seq: 1, tag: .pollVoteUp, references: [MessageReference(id: poll.id, tag: .pollVoteUp)])
            let carolDown = try f.message(
                by: f.carol, seq: 1, tag: .pollVoteDown, references: [MessageReference(id: poll.id, tag: .pollVoteDown)]
            )
            let reply = try f.message(
                by: f.bob, seq: 2, text: "re", references: [MessageReference(id: poll.id, tag: Tag("Reply"))])
            try await f.insert(poll, f.message(by: f.carol, seq: 2, text: "chatter"), bobUp, carolDown, reply)
            return Poll(f: f, poll: poll, bobUp: bobUp, carolDown: carolDown, reply: reply)
        }

        func query(_ edit: (inout MessageCriteria) throws -> Void = { _ in }) throws -> [Message] {
            var criteria = MessageCriteria(chat: f.chat)
            try edit(&criteria)
            return try f.store.messages(matching: criteria).map(\.message)
        }
    }

    @Test func wholeChatInArrivalOrder() async throws {
        let p = try await Poll.make()
        let all = try p.f.store.messages(matching: MessageCriteria(chat: p.f.chat))
        #expect(all.map(\.localNumber) == [1, 2, 3, 4, 5])
        #expect(all.map(\.message.id) == [p.poll.id, all[1].message.id, p.bobUp.id, p.carolDown.id, p.reply.id])
    }

    @Test func byTag() async throws {
        let p = try await Poll.make()
        #expect(try p.query { $0.tag = .poll } == [p.poll])
        #expect(try p.query { $0.tag = .pollVoteUp } == [p.bobUp])
        #expect(try p.query { $0.tag = try Tag("Unknown") }.isEmpty)
    }

    @Test func byReference() async throws {
        let p = try await Poll.make()
        #expect(try p.query { $0.referencing = p.poll.id } == [p.bobUp, p.carolDown, p.reply])
        #expect(try p.query { $0.referencing = p.bobUp.id }.isEmpty)
    }

    @Test func byReferenceTag() async throws {
        let p = try await Poll.make()
        #expect(
            try p.query {
                $0.referencing = p.poll.id; $0.referenceTag = .pollVoteDown
            } == [p.carolDown])
        #expect(try p.query { $0.referenceTag = .pollVoteUp } == [p.bobUp])
        #expect(
            try p.query {
                $0.referencing = p.poll.id; $0.tag = .text
            } == [p.reply])
    }

    @Test func limitReturnsTheLatestInAscendingOrder() async throws {
        let p = try await Poll.make()
        #expect(try p.query { $0.limit = 2 } == [p.carolDown, p.reply])
        #expect(
            try p.query {
                $0.referencing = p.poll.id; $0.limit = 2
            } == [p.carolDown, p.reply])
        #expect(try p.query { $0.limit = 0 }.isEmpty)
    }

    @Test func afterLocalNumberPages() async throws {
        let p = try await Poll.make()
        #expect(try p.query { $0.afterLocalNumber = 3 } == [p.carolDown, p.reply])
        #expect(
            try p.query {
                $0.afterLocalNumber = 3; $0.referencing = p.poll.id
            } == [p.carolDown, p.reply])
    }

    @Test func aRepeatedReferenceYieldsTheMessageOnce() async throws {
        let f = try await StoreFixture.make()
        let target = try f.message(by: f.alice, seq: 1)
        let twice = try f.message(
            by: f.bob, seq: 1,
            references: [MessageReference(id: target.id, tag: .text), MessageReference(id: target.id, tag: .poll)])
        try await f.insert(target, twice)
        #expect(
            try f.store.messages(matching: MessageCriteria(chat: f.chat, referencing: target.id)).map(\.message) == [
                twice
            ])
    }

    /// The query shapes a node runs; each must be answered from an index.
    enum Shape: CaseIterable, Sendable {
        case reference, referenceWithTags, referenceTagOnly, tag, tagPaged, wholeChatLimited

        func criteria(chat: ChatID, target: MessageID) -> MessageCriteria {
            switch self {
            case .reference: MessageCriteria(chat: chat, referencing: target)
            case .referenceWithTags:
                MessageCriteria(chat: chat, tag: .pollVoteUp, referencing: target, referenceTag: .pollVoteUp, limit: 10)
            case .referenceTagOnly: MessageCriteria(chat: chat, referenceTag: .pollVoteUp)
            case .tag: MessageCriteria(chat: chat, tag: .pollVoteUp)
            case .tagPaged: MessageCriteria(chat: chat, tag: .text, limit: 50, afterLocalNumber: 3)
            case .wholeChatLimited: MessageCriteria(chat: chat, limit: 20)
            }
        }
    }

    @Test(arguments: Shape.allCases)
    func queriesUseIndexesNotScans(shape: Shape) async throws {
        // Given a chat with some rows, so the planner sees real tables
        let p = try await Poll.make()
        let criteria = shape.criteria(chat: p.f.chat, target: p.poll.id)

        // When SQLite explains the query
        let plan = try p.f.store.queryPlan(criteria)

        // Then every step searches an index; nothing scans messages or message_refs
        let text = plan.joined(separator: "\n")
        #expect(plan.contains { $0.contains("USING INDEX") || $0.contains("USING COVERING INDEX") }, "\(text)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(text)")
        if criteria.referencing != nil || criteria.referenceTag != nil {
            #expect(text.contains("message_refs_by_"), "\(text)")
        } else if criteria.tag != nil {
            #expect(text.contains("messages_by_tag"), "\(text)")
        }
    }
}
