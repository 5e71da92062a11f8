import Foundation
import ParleyAPI
import ParleyCore
import ParleyCrypto
import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// The `search` request on one in-process node: decoding, filters, paging, edits and failures.
struct SearchRequestTests {
    struct Fixture {
        let service: APIService
        let notes: ChatInvite
        let other: ChatInvite

        static func make() async throws -> Fixture {
            let node = Node(
                configuration: NodeConfiguration(identity: try Identity.generate()), store: try MessageStore.inMemory(),
                transport: InMemoryNetwork().makeTransport())
            let notes = try await node.createChat(title: "Notes", members: [])
            let other = try await node.createChat(title: "Other", members: [])
            return Fixture(service: APIService(node: node, selfName: "me"), notes: notes, other: other)
        }

        func search(_ request: APIRequest) async throws -> APIResponse<SearchView> {
            try APIJSON.decode(APIResponse<SearchView>.self, from: await service.respond(to: request))
        }
    }

    @Test func aSearchRequestDecodesWithOnlyItsText() throws {
        #expect(try APIJSON.decode(APIRequest.self, from: #"{"search":{"text":"lunch"}}"#) == .search(text: "lunch"))
        let full = try APIJSON.decode(
            APIRequest.self,
            from: #"{"search":{"text":"a b","chat":"Notes","from":"me","tag":"Poll","limit":5,"before":"9a"}}"#)
        #expect(full == .search(text: "a b", chat: "Notes", from: "me", tag: "Poll", limit: 5, before: "9a"))
    }

    @Test func hitsComeNewestFirstWithSnippetsAndPageThroughNext() async throws {
        // Given five notes and a poll in one chat, and a note in another, all sealed with the chats' keys
        let f = try await Fixture.make()
        let node = f.service.node
        for n in 1...5 { _ = try await node.sendText(chat: f.notes.id, "lunch plan \(n)") }
        _ = try await node.createPoll(
            chat: f.notes.id, spec: PollSpec(question: "Which day?", options: ["Monday lunch", "Friday"]))
        _ = try await node.sendText(chat: f.other.id, "lunch elsewhere")

        // When searching everything, one chat by title, by tag, and page by page
        let all = try #require(try await f.search(.search(text: "LUNCH")).result)
        let inNotes = try #require(try await f.search(.search(text: "lunch", chat: "Notes", from: "me")).result)
        let polls = try #require(try await f.search(.search(text: "lun", tag: "Poll")).result)
        let first = try #require(try await f.search(.search(text: "plan", limit: 3)).result)
        let second = try #require(try await f.search(.search(text: "plan", limit: 3, before: first.next)).result)

        // Then the newest comes first, each hit with its words marked, and the pages follow each other
        #expect(all.hits.map(\.message.text).first == "lunch elsewhere")
        #expect(all.hits.count == 7 && all.next == nil)
        #expect(all.hits[0].snippet == [.init(text: "lunch", match: true), .init(text: " elsewhere", match: false)])
        #expect(inNotes.hits.count == 6)
        #expect(polls.hits.map(\.message.kind) == ["poll"])
        #expect(first.hits.map(\.message.text) == ["lunch plan 5", "lunch plan 4", "lunch plan 3"])
        #expect(first.next == first.hits.last?.matched)
        #expect(second.hits.map(\.message.text) == ["lunch plan 2", "lunch plan 1"])
        #expect(second.next == nil)
    }

    @Test func anEditedMessageIsFoundAsItselfByItsLatestText() async throws {
        // Given a note and an edit of it (the new text, referencing the note with the tag "Edit")
        let f = try await Fixture.make()
        let node = f.service.node
        let note = try await node.sendText(chat: f.notes.id, "meet at noon")
        let edit = try Tag("Edit")
        let change = try await node.send(
            chat: f.notes.id, tag: edit, content: Array("meet at one".utf8),
            references: [MessageReference(id: note.id, tag: edit)])

        // Then the new text finds the note, naming the edit as what matched; the old text finds nothing
        let found = try #require(try await f.search(.search(text: "one")).result)
        #expect(found.hits.map(\.message.id) == [note.id.hex])
        #expect(found.hits.map(\.matched) == [change.id.hex])
        #expect(try await f.search(.search(text: "noon")).result?.hits.isEmpty == true)
    }

    @Test func badSearchesAreRefusedWithTheirKind() async throws {
        let f = try await Fixture.make()
        _ = try await f.service.node.sendText(chat: f.notes.id, "hello")
        for request in [APIRequest.search(text: ""), .search(text: "?! -"), .search(text: "hello", limit: 0)] {
            let answer = try await f.search(request)
            #expect(answer.ok == false && answer.kind == .invalid, "\(request)")
        }
        #expect(try await f.search(.search(text: "hello", chat: "Nowhere")).kind == .notFound)
        #expect(try await f.search(.search(text: "hello", from: "stranger")).kind == .notFound)
        #expect(try await f.search(.search(text: "hello", before: "ffffffff")).kind == .notFound)
    }
}
