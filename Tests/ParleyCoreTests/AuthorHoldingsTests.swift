import ParleyCore
import ParleyCrypto
import Testing

struct AuthorHoldingsTests {
    @Test func asksForTheGapsAndTheTailThatTheResponderHas() throws {
        // Given a requester holding 1...10 except 3...4 and 7
        let holdings = try AuthorHoldings(highest: 10, missing: [3...4, 7...7])
        // Then a responder up to 12 sends the gaps and 11...12; one up to 3 sends only 3
        #expect(holdings.wanted(upTo: 12) == [3...4, 7...7, 11...12])
        #expect(holdings.wanted(upTo: 3) == [3...3])
        #expect(AuthorHoldings.contiguous(5).wanted(upTo: 5).isEmpty)
        #expect(AuthorHoldings.contiguous(0).wanted(upTo: 2) == [1...2])
    }

    @Test func refusesGapsThatAreUnorderedOverlappingOrAboveTheHighest() {
        #expect(throws: CoreError.self) { try AuthorHoldings(highest: 10, missing: [5...6, 2...3]) }
        #expect(throws: CoreError.self) { try AuthorHoldings(highest: 10, missing: [2...5, 5...6]) }
        // Adjacent: one gap.
        #expect(throws: CoreError.self) { try AuthorHoldings(highest: 10, missing: [2...3, 4...5]) }
        #expect(throws: CoreError.self) { try AuthorHoldings(highest: 10, missing: [9...10]) }
        #expect(throws: CoreError.self) { try AuthorHoldings(highest: 10, missing: [0...1]) }
        let tooMany: [ClosedRange<UInt64>] = (UInt64(0)..<17).map { (index: UInt64) in
            let sequence = 2 + 2 * index
            return sequence...sequence
        }
        #expect(throws: CoreError.self) { try AuthorHoldings(highest: 100, missing: tooMany) }
    }

    @Test func addingABatchFillsGapsExtendsTheTailAndOpensNewGaps() throws {
        let holdings = try AuthorHoldings(highest: 10, missing: [3...4, 7...7])
        // A batch that fills 3...4 and brings 11...12 and 15
        #expect(
            holdings.adding([12, 4, 3, 11, 15, 4]) == (try AuthorHoldings(highest: 15, missing: [7...7, 13...14])))
        // The tail of a catch-up: contiguous stays contiguous
        #expect(AuthorHoldings.contiguous(2_048).adding(Array(2_049...4_096)) == .contiguous(4_096))
        // Nothing new, or only what is held (and sequence 0, which no message has), changes nothing
        #expect(holdings.adding([]) == holdings)
        #expect(holdings.adding([0, 1, 9, 10]) == holdings)
        #expect(AuthorHoldings.contiguous(0).adding([2]) == (try AuthorHoldings(highest: 2, missing: [1...1])))
    }

    @Test func addingSummarisesPastTheGapLimitLikeTheStoreDoes() throws {
        // 16 gaps below 33, then a 17th would open: highest stops before it
        let held = (UInt64(1)...UInt64(40)).filter { $0.isMultiple(of: 2) }
        let added = AuthorHoldings.contiguous(0).adding(held)
        #expect(added.missing.count == AuthorHoldings.maxMissingRanges)
        #expect(added.highest == 32)
        var builder = AuthorHoldingsBuilder(contiguous: 0)
        for sequence in held where !builder.add(sequence) { break }
        #expect(added == builder.holdings)
    }

    @Test func builderStopsAtTheGapLimit() {
        var builder = AuthorHoldingsBuilder(contiguous: 2)
        var accepted = 0
        for sequence in stride(from: 4, through: 60, by: 2) where builder.add(UInt64(sequence)) { accepted += 1 }
        #expect(builder.holdings.missing.count == AuthorHoldings.maxMissingRanges)
        #expect(builder.holdings.highest == 34)
        #expect(accepted == 16)
    }

    @Test func syncRequestEncodingIsPinned() throws {
        // chat, count, then per author: id, highest, range count, ranges (docs/PROTOCOL.md §8)
        let chat = try ChatID(rawRepresentation: [UInt8](repeating: 0xCC, count: 32))
        let author = Fixtures.alice.publicKey
        let frame = Frame.syncRequest(chat: chat, vector: [author: try AuthorHoldings(highest: 9, missing: [2...3])])
        let bytes = Frame.encode([frame])
        let header: [UInt8] = [5, 0, 0, 0, 91] // type 5, body length 32 + 2 + 32 + 8 + 1 + 16
        let body: [UInt8] = [UInt8](repeating: 0xCC, count: 32) + [0, 1] + author.rawRepresentation
        let ranges: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 9, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3]
        let expected = header + body + ranges
        #expect(bytes == expected)
        #expect(try Frame.decodeAll(bytes) == [frame])
    }

    @Test func aSyncRequestWithBadRangesIsMalformed() throws {
        let chat = [UInt8](repeating: 0xCC, count: 32)
        let author = Fixtures.alice.publicKey.rawRepresentation
        // One author, highest 5, one range 4...2 (ends before it starts)
        let reversed: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 5, 1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 2]
        let body: [UInt8] = chat + [0, 1] + author + reversed
        #expect(throws: CoreError.self) { try Frame.decodeAll([5, 0, 0, 0, UInt8(body.count)] + body) }
        // The same author twice
        let five: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 5, 0], six: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 6, 0]
        let twice: [UInt8] = chat + [0, 2] + author + five + author + six
        #expect(throws: CoreError.self) { try Frame.decodeAll([5, 0, 0, 0, UInt8(twice.count)] + twice) }
    }
}
