import NIOCore

/// What a poll's close covers: per author, the sequences of the chat its creator held when it
/// closed (PROTOCOL §10's holdings), for the authors of messages about the poll it held.
///
/// Sequences are signed and per (chat, author), so a ballot made after the close carries a sequence
/// the creator did not hold: it falls outside, whatever Lamport clock or timestamp it claims, and
/// filling an old gap in one's own sequences does not get in either (gaps are listed as missing).
public struct PollCoverage: Hashable, Sendable {
    static let version: UInt8 = 1
    /// Bytes of one author without missing ranges: id, highest, range count.
    static let bytesPerAuthor = 32 + 8 + 1

    public let holdings: [PeerID: AuthorHoldings]

    public init(holdings: [PeerID: AuthorHoldings]) { self.holdings = holdings }

    /// Coverage that fits `maxBytes` once encoded: if listing every gap does not fit, each author is
    /// cut to the prefix it holds without a gap, which claims less, never more.
    public static func fitting(_ holdings: [PeerID: AuthorHoldings], maxBytes: Int) throws(CoreError) -> PollCoverage {
        let full = PollCoverage(holdings: holdings)
        if full.encoded().count <= maxBytes { return full }
        let prefixes = PollCoverage(holdings: holdings.mapValues(\.gaplessPrefix))
        guard prefixes.encoded().count <= maxBytes else {
            throw .tooLarge("poll close (\(holdings.count) voters)", limit: maxBytes, actual: prefixes.encoded().count)
        }
        return prefixes
    }

    public func covers(author: PeerID, sequence: UInt64) -> Bool { holdings[author]?.contains(sequence) ?? false }

    /// `PollClose` content: version `1`, then the version vector as in a sync request.
    public func encoded() -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeInteger(Self.version)
        buffer.writeVersionVector(holdings)
        return Array(buffer.readableBytesView)
    }

    public static func decode(_ content: [UInt8]) throws(CoreError) -> PollCoverage {
        var buffer = ByteBuffer(bytes: content)
        let version = try buffer.readU8("close version")
        guard version == Self.version else { throw .malformed("unknown poll close version \(version)") }
        let holdings = try buffer.readVersionVector()
        try buffer.expectFullyRead("poll close")
        return PollCoverage(holdings: holdings)
    }
}

/// The close that counts for a poll: the first valid `PollClose` in its creator's own chain.
public struct PollClose: Hashable, Sendable {
    public let message: MessageID
    public let lamport: UInt64
    public let sequence: UInt64
    public let timestampMillis: Int64
    public let coverage: PollCoverage
    /// The creator's other valid closes of the poll: all after this one in its chain, they change
    /// nothing, and are counted so that a creator who closed twice can be seen doing so.
    public let laterCloses: Int

    /// Whether a ballot, answer or suggestion is inside the close: only the coverage says, never a clock.
    public func admits(_ event: some PollEvent) -> Bool {
        coverage.covers(author: event.author, sequence: event.sequence)
    }
}

extension PollRules {
    /// The creator's first close among `closes`: a `PollClose` by the poll's author, in its chat, referencing
    /// it as `PollClose`, whose content is a coverage; of several, the one with the lowest sequence (the
    /// creator's own order, which no claimed clock changes), then the lowest id (only a creator that signs
    /// two messages for one sequence makes that tie). Any other close, empty content included (as nodes
    /// sent before closes carried a coverage, and as a member sees one sealed in an epoch it holds no key
    /// for), is no close: a clock would otherwise decide which of others' ballots count.
    public static func winningClose(of poll: Message, among closes: some Sequence<Message>) -> PollClose? {
        var winner: Message?
        var winnerCoverage: PollCoverage?
        var valid = Set<MessageID>()
        for close in closes where close.tag == .pollClose && close.author == poll.author && references(close, poll) {
            guard let coverage = try? PollCoverage.decode(close.content), valid.insert(close.id).inserted else {
                continue
            }
            if winner.map({ (close.sequence, close.id) < ($0.sequence, $0.id) }) ?? true {
                (winner, winnerCoverage) = (close, coverage)
            }
        }
        guard let winner, let winnerCoverage else { return nil }
        return PollClose(
            message: winner.id, lamport: winner.lamport, sequence: winner.sequence,
            timestampMillis: winner.timestampMillis,
            coverage: winnerCoverage, laterCloses: valid.count - 1)
    }
}
