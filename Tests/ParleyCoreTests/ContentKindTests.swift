import ParleyCore
import ParleyCrypto
import Testing

struct ContentKindTests {
    struct LinkCase: Sendable, CustomTestStringConvertible {
        let text: String
        let links: [String]
        var testDescription: String { text }
    }

    @Test(arguments: [
        LinkCase(text: "no links here", links: []),
        LinkCase(text: "see https://example.com", links: ["https://example.com"]),
        LinkCase(
            text: "HTTP://EXAMPLE.com/A?b=1#c and http://x.y", links: ["HTTP://EXAMPLE.com/A?b=1#c", "http://x.y"]),
        LinkCase(text: "end of sentence https://a.b/c.", links: ["https://a.b/c"]),
        LinkCase(text: "(see https://a.b/c), then", links: ["https://a.b/c"]),
        LinkCase(
            text: "https://en.wikipedia.org/wiki/Swift_(language)",
            links: ["https://en.wikipedia.org/wiki/Swift_(language)"]),
        LinkCase(text: "quoted \"https://q.example/x\" here", links: ["https://q.example/x"]),
        LinkCase(text: "<https://angle.example/>", links: ["https://angle.example/"]),
        LinkCase(text: "xhttps://glued.example", links: []),
        LinkCase(text: "ftp://not.http and mailto:a@b", links: []),
        LinkCase(text: "https:// alone, https:///path", links: []),
        LinkCase(text: "twice https://a.io https://a.io!", links: ["https://a.io", "https://a.io"]),
        LinkCase(text: "café https://ünï.example/ö", links: ["https://ünï.example/ö"]),
        LinkCase(text: "https://a.b/x?y=1&z=[2]", links: ["https://a.b/x?y=1&z=[2]"]),
    ])
    func detectsHTTPLinks(_ vector: LinkCase) {
        #expect(LinkDetector.links(in: vector.text) == vector.links)
        #expect(LinkDetector.containsLink(vector.text) == !vector.links.isEmpty)
    }

    @Test(arguments: [
        LinkCase(text: "see www.swift.org", links: ["https://www.swift.org"]),
        LinkCase(text: "WWW.Example.com/path?q=1. Then", links: ["https://WWW.Example.com/path?q=1"]),
        LinkCase(text: "(www.a.io), www.b.io!", links: ["https://www.a.io", "https://www.b.io"]),
        LinkCase(text: "www.swift.org at the start", links: ["https://www.swift.org"]),
        LinkCase(text: "https://www.swift.org keeps its scheme", links: ["https://www.swift.org"]),
        LinkCase(text: "awww.glued.io, x.www.sub.io, a/www.path.io, me@www.mail.io", links: []),
        LinkCase(text: "www. alone, www..dots, just www", links: []),
        LinkCase(text: "mixed http://x.y and www.z.io", links: ["http://x.y", "https://www.z.io"]),
    ])
    func detectsWWWAddressesAndListsThemWithHTTPS(_ vector: LinkCase) {
        // Given text with a bare "www." address (or something that only looks like one)
        // When its links are detected
        let links = LinkDetector.links(in: vector.text)
        // Then each address is a link given with https:// in front, and look-alikes are not links
        #expect(links == vector.links)
        #expect(LinkDetector.containsLink(vector.text) == !vector.links.isEmpty)
    }

    @Test func aTextWithOnlyAWWWAddressIsALinkMessage() {
        // Given a Text message whose only link has no scheme
        let content = Array("see www.swift.org".utf8)
        // When it is classified, then it is a link message
        #expect(ContentKind(tag: .text, content: content) == .link)
    }

    @Test func classifiesByTagAndContent() throws {
        #expect(ContentKind(tag: .text, content: Array("hello".utf8)) == .text)
        #expect(ContentKind(tag: .text, content: Array("look https://x.io".utf8)) == .link)
        #expect(ContentKind(tag: .custom, content: Array("{}".utf8)) == .custom)
        #expect(ContentKind(tag: .poll, content: []) == .poll)
        #expect(ContentKind(tag: .pollVoteUp, content: []) == .vote)
        #expect(ContentKind(tag: .pollVote, content: []) == .vote)
        #expect(ContentKind(tag: try Tag("Reaction"), content: []) == .reaction)
        #expect(ContentKind(tag: try Tag("Membership"), content: []) == .membership)
        #expect(ContentKind(tag: try Tag("Sticker"), content: []) == .unknown)
        // A link in a non-Text message does not make it a link message.
        #expect(ContentKind(tag: try Tag("Sticker"), content: Array("https://x.io".utf8)) == .unknown)
    }

    @Test func onlyConversationKindsAreShown() {
        let shown: [ContentKind] = [.text, .link, .custom, .poll, .membership]
        let hidden: [ContentKind] = [.vote, .reaction, .unknown]
        #expect(shown.allSatisfy { $0.isShown })
        #expect(hidden.allSatisfy { !$0.isShown })
        #expect(ContentKind.shownTags.map { ContentKind(tag: $0, content: []).isShown }.allSatisfy { $0 })
    }

    @Test(arguments: [#"{"k":1}"#, "[1,2,3]", #"{"nested":{"a":[true,null]}}"#, " [ ] "])
    func acceptsJSONObjectsAndArrays(_ json: String) throws {
        try ContentKind.validateCustom(Array(json.utf8))
    }

    @Test(arguments: ["", "{", "not json", "42", #""a string""#, "true", "null", #"{"k":}"#])
    func refusesAnythingElseWithAClearError(_ json: String) {
        let error = #expect(throws: CoreError.self) { try ContentKind.validateCustom(Array(json.utf8)) }
        #expect(error?.description.contains("JSON") == true)
    }

    @Test func readReceiptFramesRoundTrip() throws {
        let chat = try Digest32(rawRepresentation: BLAKE2b.hash256(Array("chat".utf8)))
        let ids = try (0..<3).map { try Digest32(rawRepresentation: BLAKE2b.hash256([UInt8($0)])) }
        let frames: [Frame] = [.read(chat: chat, ids: ids), .readAck(ids), .readAck([])]
        #expect(try Frame.decodeAll(Frame.encode(frames)) == frames)
        // Kind 10 is the receipt, 11 its ack; a receipt naming no message is malformed.
        #expect(Frame.encode([.read(chat: chat, ids: ids)]).first == 10)
        #expect(Frame.encode([.readAck(ids)]).first == 11)
        #expect(throws: CoreError.self) { try Frame.decodeAll([10, 0, 0, 0, 32] + chat.rawRepresentation) }
        #expect(throws: CoreError.self) { try Frame.decodeAll([11, 0, 0, 0, 5, 1, 2, 3, 4, 5]) }
    }
}
