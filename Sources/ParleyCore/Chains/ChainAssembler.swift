/// Holds chained (unsigned) messages until a verified head vouches for them, then releases them.
///
/// An author's messages link by hash: each names the id of its author's previous one in the chat.
/// A verified head, or a message already accepted, vouches for the message its `previous` names;
/// `release(vouchedBy:)` walks that way down the chain through what is held. Nothing held is trusted:
/// anyone can make an unsigned message in anyone's name, so held messages are indexed by id (a fake
/// cannot displace the real one) and bounded, in messages and bytes, per delivering peer (a flood
/// cannot push others out) and in all.
///
/// What the author's chain proves wrong is dropped at once (`brokenLinks`): when the author's
/// message at sequence n names its previous one, every other message held for (chat, author, n − 1)
/// is not the author's. What no head vouches for within `expiry` is dropped by `expire(now:)`.
public struct ChainAssembler: Sendable {
    public struct Configuration: Sendable {
        /// Held messages at most, from all peers.
        public var maxHeld = 65_536
        /// Held messages at most that one peer delivered: several bursts in flight, not a flood.
        public var maxHeldPerPeer = 16_384
        /// Held bytes (encodings) at most, from all peers and from one: a message may be 63 KB.
        public var maxHeldBytes = 64 << 20
        public var maxHeldBytesPerPeer = 16 << 20
        /// How long a message waits for a head. The author's retransmits bring it back, with its head.
        public var expiry: Duration = .seconds(30)

        public init() {}
    }

    /// Where a message sits in its author's chain.
    public struct Slot: Hashable, Sendable {
        public let chat: ChatID
        public let author: PeerID
        public let sequence: UInt64

        public init(chat: ChatID, author: PeerID, sequence: UInt64) {
            self.chat = chat
            self.author = author
            self.sequence = sequence
        }

        /// The slot whose message names this one as its `previous`.
        public var after: Slot? { sequence < UInt64.max ? Slot(chat: chat, author: author, sequence: sequence + 1) : nil }

        /// The slot a message's `previous` must sit in.
        public var before: Slot? { sequence > 1 ? Slot(chat: chat, author: author, sequence: sequence - 1) : nil }
    }

    public struct Held: Sendable {
        public let message: Message
        public let peer: PeerID
        let arrivedAt: Duration
    }

    /// What holding a message did.
    public enum Holding: Equatable, Sendable {
        case held
        /// Already held: the same bytes again (a retransmit).
        case alreadyHeld
        /// The peer, or the node, holds as much as it may: the message is dropped, its sender resends.
        case full
    }

    public let configuration: Configuration
    private var held: [MessageID: Held] = [:]
    private var bySlot: [Slot: [MessageID]] = [:]
    private var perPeer: [PeerID: (count: Int, bytes: Int)] = [:]
    private var heldBytes = 0
    /// Arrival order, for expiry; entries already released are skipped when met.
    private var arrivals: [(id: MessageID, at: Duration)] = []
    private var arrivalsStart = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public var count: Int { held.count }

    public func isHeld(_ id: MessageID) -> Bool { held[id] != nil }

    /// Keeps a chained message until something vouches for it.
    public mutating func hold(_ message: Message, from peer: PeerID, now: Duration) -> Holding {
        guard held[message.id] == nil else { return .alreadyHeld }
        let size = message.encoded.count
        let peerShare = perPeer[peer] ?? (0, 0)
        guard held.count < configuration.maxHeld, heldBytes + size <= configuration.maxHeldBytes,
              peerShare.count < configuration.maxHeldPerPeer, peerShare.bytes + size <= configuration.maxHeldBytesPerPeer else { return .full }
        held[message.id] = Held(message: message, peer: peer, arrivedAt: now)
        bySlot[Self.slot(of: message), default: []].append(message.id)
        perPeer[peer] = (peerShare.count + 1, peerShare.bytes + size)
        heldBytes += size
        arrivals.append((message.id, now))
        return .held
    }

    /// What an accepted message vouches for: the held message its `previous` names, then that one's
    /// previous, and so on, each removed from the holding. Every other message held in a slot the
    /// chain passes through is dropped and counted in `brokenLinks`. A chained copy of the accepted
    /// message itself (the same id, relayed without its signature) is taken out too: it is settled,
    /// and would otherwise expire and be counted `headless`.
    public mutating func release(vouchedBy accepted: Message) -> (released: [Held], brokenLinks: Int) {
        _ = take(accepted.id)
        var released: [Held] = []
        var brokenLinks = 0
        var link = accepted.previous
        var slot = Self.slot(of: accepted).before
        // A message that names no previous one vouches for nothing below it.
        while let current = slot, let named = link {
            var next: Held?
            for id in bySlot.removeValue(forKey: current) ?? [] {
                guard let entry = remove(id) else { continue }
                if id == named { next = entry } else { brokenLinks += 1 }
            }
            guard let found = next else { break }
            released.append(found)
            link = found.message.previous
            slot = Self.slot(of: found.message).before
        }
        return (released, brokenLinks)
    }

    /// Takes a held message out, for a caller that found something else vouching for it (a stored
    /// successor naming it).
    public mutating func take(_ id: MessageID) -> Held? {
        guard let entry = remove(id) else { return nil }
        let slot = Self.slot(of: entry.message)
        bySlot[slot]?.removeAll { $0 == id }
        if bySlot[slot]?.isEmpty == true { bySlot[slot] = nil }
        return entry
    }

    /// Drops what waited longer than `expiry`; returns how many (no head vouched for them).
    public mutating func expire(now: Duration) -> Int {
        var expired = 0
        while arrivalsStart < arrivals.count, now - arrivals[arrivalsStart].at >= configuration.expiry {
            let (id, at) = arrivals[arrivalsStart]
            arrivalsStart += 1
            // The same id held again since (after a release) has an entry of its own further on.
            if held[id]?.arrivedAt == at, take(id) != nil { expired += 1 }
        }
        // Compact once the consumed prefix dominates, so memory follows what is held.
        if arrivalsStart > 1_024, arrivalsStart * 2 > arrivals.count {
            arrivals.removeFirst(arrivalsStart)
            arrivalsStart = 0
        }
        return expired
    }

    public static func slot(of message: Message) -> Slot {
        Slot(chat: message.chat, author: message.author, sequence: message.sequence)
    }

    private mutating func remove(_ id: MessageID) -> Held? {
        guard let entry = held.removeValue(forKey: id) else { return nil }
        let size = entry.message.encoded.count
        let share = perPeer[entry.peer] ?? (1, size)
        perPeer[entry.peer] = share.count > 1 ? (share.count - 1, share.bytes - size) : nil
        heldBytes -= size
        return entry
    }
}
