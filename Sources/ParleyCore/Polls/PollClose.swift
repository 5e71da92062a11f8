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

/// The close that counts for a poll: its creator's earliest valid `PollClose`.
public struct PollClose: Hashable, Sendable {
    public let message: MessageID
    public let lamport: UInt64
    public let sequence: UInt64
    public let timestampMillis: Int64
    /// nil for a close without content, as nodes sent before closes carried their coverage (and as a
    /// member sees one it cannot open): such a close admits what its Lamport clock is above.
    public let coverage: PollCoverage?

    /// The rules' order, as `PollRules.isLater` compares messages.
    var order: (UInt64, UInt64, MessageID) { (lamport, sequence, message) }

    /// Whether a ballot, answer or suggestion is inside the close.
    public func admits(_ event: some PollEvent) -> Bool {
        guard let coverage else { return event.lamport < lamport }
        return coverage.covers(author: event.author, sequence: event.sequence)
    }
}

extension PollRules {
    /// The creator's earliest close (by `(lamport, sequence, id)`) among `closes`: a `PollClose` by the
    /// poll's author, in its chat, referencing it as `PollClose`, whose content is empty or a coverage.
    /// A close whose content does not decode is no close.
    public static func winningClose(of poll: Message, among closes: some Sequence<Message>) -> PollClose? {
        var winner: PollClose?
        for close in closes where close.tag == .pollClose && close.author == poll.author && references(close, poll) {
            let coverage: PollCoverage?
            if close.content.isEmpty {
                coverage = nil
            } else {
                guard let decoded = try? PollCoverage.decode(close.content) else { continue }
                coverage = decoded
            }
            let candidate = PollClose(
                message: close.id, lamport: close.lamport, sequence: close.sequence, timestampMillis: close.timestampMillis,
                coverage: coverage)
            if winner.map({ candidate.order < $0.order }) ?? true { winner = candidate }
        }
        return winner
    }
}
