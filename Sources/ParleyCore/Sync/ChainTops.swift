import NIOCore
public import ParleyCrypto

/// What a sync request cannot say with sequence numbers alone (PROTOCOL.md §10, frame 15): the id
/// the sender holds at each author's highest sequence, and the forks it holds proofs of.
///
/// Two members may hold the same sequences of an author with different messages in them: the author
/// signed two histories. An id names the whole linked chain below it, so comparing one id per author
/// finds any such difference in one round; the responder answers a difference with its own run up
/// to a head, which gives the requester both branches, hence a `ForkProof`. The forks listed let the
/// responder send the proofs the requester lacks.
public struct ChainTops: Sendable, Hashable {
    public struct Top: Sendable, Hashable {
        public let sequence: UInt64
        public let id: MessageID

        public init(sequence: UInt64, id: MessageID) {
            self.sequence = sequence
            self.id = id
        }
    }

    /// At most this many tops in a frame, so that it fits one datagram beside the forks of a chat's
    /// 512 members (72 bytes a top, 40 a fork).
    public static let maxTops = 600

    public let tops: [PeerID: Top]
    /// Author → lowest forked sequence proven (`ChatForks.forkedFrom`).
    public let forks: [PeerID: UInt64]

    public init(tops: [PeerID: Top] = [:], forks: [PeerID: UInt64] = [:]) {
        self.tops = tops
        self.forks = forks
    }

    var encodedCount: Int { 4 + tops.count * 72 + forks.count * 40 }

    func write(to buffer: inout ByteBuffer) {
        let topEntries = tops.sorted { $0.key < $1.key }
        buffer.writeInteger(UInt16(topEntries.count), endianness: .big)
        for (author, top) in topEntries {
            buffer.writeBytes32(author.bytes)
            buffer.writeInteger(top.sequence, endianness: .big)
            buffer.writeBytes32(top.id.bytes)
        }
        let forkEntries = forks.sorted { $0.key < $1.key }
        buffer.writeInteger(UInt16(forkEntries.count), endianness: .big)
        for (author, sequence) in forkEntries {
            buffer.writeBytes32(author.bytes)
            buffer.writeInteger(sequence, endianness: .big)
        }
    }

    init(reading buffer: inout ByteBuffer) throws(CoreError) {
        var tops: [PeerID: Top] = [:]
        for _ in 0..<Int(try buffer.readU16("chain top count")) {
            let author = try buffer.readPeer("chain top author")
            let sequence = try buffer.readU64("chain top sequence")
            let id = try buffer.readDigest("chain top id")
            guard sequence > 0 else { throw .malformed("a chain top at sequence 0") }
            guard tops.updateValue(Top(sequence: sequence, id: id), forKey: author) == nil else {
                throw .malformed("chain tops name an author twice")
            }
        }
        var forks: [PeerID: UInt64] = [:]
        for _ in 0..<Int(try buffer.readU16("fork count")) {
            let author = try buffer.readPeer("forked author")
            let sequence = try buffer.readU64("forked sequence")
            guard sequence > 0 else { throw .malformed("a fork at sequence 0") }
            guard forks.updateValue(sequence, forKey: author) == nil else {
                throw .malformed("forks name an author twice")
            }
        }
        self.init(tops: tops, forks: forks)
    }
}
