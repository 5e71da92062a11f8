/// Holds chained (unsigned) messages until a verified head vouches for them, then releases them.
///
/// An author's messages link by hash: each names the id of its author's previous one in the chat.
/// A verified head, or a message already accepted, vouches for the message its `previous` names;
/// `release(vouchedBy:)` walks that way down the chain through what is held. Nothing held is trusted:
/// anyone can make an unsigned message in anyone's name, so held messages are indexed by id (a fake
/// cannot displace the real one) and bounded, in messages and bytes, per delivering peer and in all.
/// The whole holding is shared fairly: when it is full, a message from a peer makes room by evicting
/// the oldest messages of the peer holding the most, so members filling their shares together cannot
/// keep out another member's first messages (`hold`).
///
/// What the author's chain proves wrong is dropped at once (`brokenLinks`): when the author's
/// message at sequence n names its previous one, every other message held for (chat, author, n − 1)
/// is not the author's. What no head vouches for within `expiry` is dropped by `expire(now:)`.
/// One walk releases at most `maxVouched` messages: no conforming sender or store makes a longer
/// chained run, and a longer one stored here could not be served on (`maxVouched`).
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
        public var after: Slot? {
            sequence < UInt64.max ? Slot(chat: chat, author: author, sequence: sequence + 1) : nil
        }

        /// The slot a message's `previous` must sit in.
        public var before: Slot? { sequence > 1 ? Slot(chat: chat, author: author, sequence: sequence - 1) : nil }
    }

    public struct Held: Sendable {
        public let message: Message
        public let peer: PeerID
        let arrivedAt: Duration
        /// Tells this holding apart from an earlier one of the same id in its peer's `order`.
        let serial: UInt64
    }

    /// What one delivering peer holds, and in which order it arrived (for eviction, oldest first).
    private struct Share {
        var count = 0
        var bytes = 0
        /// Arrivals, oldest first from `start`; entries no longer held are skipped when met.
        var order: [(id: MessageID, serial: UInt64)] = []
        var start = 0
    }

    /// The most held chained messages one walk releases below the message vouching for them. Senders
    /// put at most 63 in a row (`Node.maxChainedRun`); a store covering heads keeps a head at most 127
    /// sequences above any chained message (PROTOCOL §4.1), so what it serves runs at most 126 in a
    /// row. Past 127 the run is not a conforming one, and stored it would outgrow the 256 messages a
    /// sync reply extends by to reach a head (with the 63 a covered head adds above it): the rest
    /// stays held and expires as `headless`.
    public static let maxVouched = 127

    /// What holding a message did.
    public enum Holding: Equatable, Sendable {
        case held
        /// Already held: the same bytes again (a retransmit).
        case alreadyHeld
        /// The peer holds its share, or the node is full and no other peer holds more than this one
        /// would: the message is dropped, its sender resends.
        case full
        /// Held, after evicting this many messages of the peers holding the most (oldest first).
        case heldEvicting(Int)
    }

    public let configuration: Configuration
    private var held: [MessageID: Held] = [:]
    private var bySlot: [Slot: [MessageID]] = [:]
    private var perPeer: [PeerID: Share] = [:]
    private var heldBytes = 0
    private var serials: UInt64 = 0
    /// Arrival order, for expiry; entries already released are skipped when met.
    private var arrivals: [(id: MessageID, at: Duration)] = []
    private var arrivalsStart = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public var count: Int { held.count }

    public func isHeld(_ id: MessageID) -> Bool { held[id] != nil }

    /// Keeps a chained message until something vouches for it.
    ///
    /// Never past the peer's own share. When the whole holding is full (in messages or in bytes), room
    /// is made by evicting, oldest first, messages of the peer holding the most of what is short (ties:
    /// the lowest peer id), as long as that peer holds more than this one will with the message; when no
    /// other peer does (this one holds the most), nothing is evicted and the message is refused: a
    /// flooding peer neither pushes others out nor evicts its own older messages, which wait for their head.
    public mutating func hold(_ message: Message, from peer: PeerID, now: Duration) -> Holding {
        guard held[message.id] == nil else { return .alreadyHeld }
        let size = message.encoded.count
        let share = perPeer[peer] ?? Share()
        guard share.count < configuration.maxHeldPerPeer, share.bytes + size <= configuration.maxHeldBytesPerPeer,
            let evictions = evictions(making: size, for: peer, holding: (share.count + 1, share.bytes + size))
        else { return .full }
        for id in evictions { _ = take(id) }
        serials += 1
        held[message.id] = Held(message: message, peer: peer, arrivedAt: now, serial: serials)
        bySlot[Self.slot(of: message), default: []].append(message.id)
        var grown = perPeer[peer] ?? Share()
        grown.count += 1
        grown.bytes += size
        grown.order.append((message.id, serials))
        perPeer[peer] = grown
        heldBytes += size
        arrivals.append((message.id, now))
        return evictions.isEmpty ? .held : .heldEvicting(evictions.count)
    }

    /// The held messages to evict so that one more message of `size` bytes fits in the whole holding;
    /// nil when that would take from a peer that holds no more than `peer` will (`holding`, with the
    /// message). Only looks: `hold` evicts.
    private func evictions(making size: Int, for peer: PeerID, holding: (count: Int, bytes: Int)) -> [MessageID]? {
        var (count, bytes) = (held.count + 1, heldBytes + size)
        var taken: [PeerID: (count: Int, bytes: Int, next: Int)] = [:]
        var evictions: [MessageID] = []
        while count > configuration.maxHeld || bytes > configuration.maxHeldBytes {
            let byCount = count > configuration.maxHeld
            var largest: (peer: PeerID, amount: Int)?
            for (other, share) in perPeer where other != peer {
                let amount =
                    byCount ? share.count - (taken[other]?.count ?? 0) : share.bytes - (taken[other]?.bytes ?? 0)
                if largest.map({ amount > $0.amount || amount == $0.amount && other < $0.peer }) ?? true {
                    largest = (other, amount)
                }
            }
            guard let victim = largest, victim.amount > (byCount ? holding.count : holding.bytes),
                let share = perPeer[victim.peer]
            else { return nil }
            var progress = taken[victim.peer] ?? (0, 0, share.start)
            // The victim holds more than nothing, so a live entry lies ahead.
            while share.order[progress.next].serial != held[share.order[progress.next].id]?.serial {
                progress.next += 1
            }
            let id = share.order[progress.next].id
            let freed = held[id]?.message.encoded.count ?? 0
            progress.next += 1
            progress.count += 1
            progress.bytes += freed
            taken[victim.peer] = progress
            evictions.append(id)
            count -= 1
            bytes -= freed
        }
        return evictions
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
        while released.count < Self.maxVouched, let current = slot, let named = link {
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
        heldBytes -= size
        guard var share = perPeer[entry.peer], share.count > 1 else {
            perPeer[entry.peer] = nil
            return entry
        }
        share.count -= 1
        share.bytes -= size
        // The oldest entry left is kept live; others gone are skipped when met, and once they are most
        // of the order, it keeps only live ones.
        while held[share.order[share.start].id]?.serial != share.order[share.start].serial { share.start += 1 }
        if share.order.count - share.start > 2 * share.count + 64 {
            share.order = share.order[share.start...].filter { held[$0.id]?.serial == $0.serial }
            share.start = 0
        }
        perPeer[entry.peer] = share
        return entry
    }
}
