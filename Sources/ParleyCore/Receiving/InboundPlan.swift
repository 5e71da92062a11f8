public import ParleyCrypto

/// One inbound batch's frames sorted by what handles them: a plain value that the node executes. Sorting
/// decides only which handler each frame goes to; every check that needs the store, the sessions or the
/// clock is the node's, when it carries the plan out.
///
/// Each list keeps the batch's arrival order (datagram by datagram, then frame by frame), and each
/// handler takes its whole list at once, so a burst of thousands of frames costs one pass here and one
/// call per kind there.
public struct InboundPlan: Sendable {
    /// What is handled one frame at a time, in arrival order, before the batch's messages are stored:
    /// each may depend on an earlier one (an invite joins the chat a later sync request asks about; a
    /// presence beat makes its sender online for the sync reply after it).
    public enum Step: Sendable, Hashable {
        /// A chat's signed invite, to be joined, held or refused.
        case invite([UInt8])
        /// A member's sync request, answered with what it lacks.
        case syncRequest(chat: ChatID, vector: [PeerID: AuthorHoldings])
        /// A sync reply's end that closes the exchange (`done` or `nothingMissing`; a `more` is
        /// followed up instead, see `syncFollowUps`).
        case syncEnded(chat: ChatID, SyncEnd)
        /// A peer asking for a chat's invite.
        case needInvite(ChatID)
        /// A presence beat, the sender's own or relayed.
        case presence(PresenceBeat)
        /// The chain tops beside a sync request, compared with ours for forks.
        case chainTops(chat: ChatID, ChainTops)
    }

    /// The peers whose sessions delivered datagrams in the batch: traffic is presence too.
    public private(set) var senders: Set<PeerID> = []
    /// Signed messages (their wire encoding) with the peer that delivered each: checked, then stored in
    /// one transaction.
    public private(set) var messages: [(peer: PeerID, bytes: [UInt8])] = []
    /// The frames handled one at a time, in arrival order (`Step`).
    public private(set) var steps: [(peer: PeerID, step: Step)] = []
    /// Each chat's peers that ended a sync reply with `more`: asked again as soon as the batch is
    /// verified, before it is stored. A peer saying `more` twice for one chat is asked once.
    public private(set) var syncFollowUps: [ChatID: Set<PeerID>] = [:]
    /// Invites the sender accepted: recorded, and no longer pushed to it.
    public private(set) var invitesAccepted: [(chat: ChatID, peer: PeerID)] = []
    /// Each acknowledged message with the peer that acknowledged it: no longer pushed to it, and
    /// recorded as delivered. One entry per id of each ack frame: an ack that came twice is passed on
    /// twice, and recording it again changes nothing.
    public private(set) var acked: [(message: MessageID, peer: PeerID)] = []
    /// Read receipts for messages in a chat, from their reader: recorded and acknowledged.
    public private(set) var reads: [(peer: PeerID, chat: ChatID, ids: [MessageID])] = []
    /// Read receipts the peer acknowledged: no longer pushed to it.
    public private(set) var readsAcked: [(peer: PeerID, ids: [MessageID])] = []
    /// Typing indicators, checked against their chat's members.
    public private(set) var typing: [(peer: PeerID, chat: ChatID, active: Bool)] = []
    /// Sealed ballot envelopes on their way to `publisher`, with the peer that handed each over; handled
    /// once the batch's messages are stored, as an envelope may be for a poll the same batch brought.
    public private(set) var ballotRelays: [(peer: PeerID, publisher: PeerID, hold: UInt32, sealed: [UInt8])] = []
    /// Introductions asked of this node.
    public private(set) var introductionsAsked: [(requester: PeerID, target: PeerID)] = []
    /// Introductions made to this node: where `peer` was last heard from, by `introducer`, and whether
    /// this node asked (`meet`) or `peer` did (`meetAsked`).
    public private(set) var introductions:
        [(introducer: PeerID, peer: PeerID, address: PeerAddress, side: Rendezvous.Side)] = []
    /// Fork proofs' encodings, handled once the batch's messages are stored, as a proof may be about an
    /// author whose first message came with it.
    public private(set) var forkProofs: [(peer: PeerID, bytes: [UInt8])] = []
    /// File transfer frames (§13e), in arrival order: wants to serve, pieces to assemble, lacks to note.
    /// They touch no message and are handled as soon as the batch is opened.
    public private(set) var fileFrames: [(peer: PeerID, frame: FileFrame)] = []

    /// A file transfer frame's content.
    public enum FileFrame: Sendable, Hashable {
        case want(file: MessageID, wants: [ChunkWant])
        case piece(FilePiece)
        case lack(file: MessageID)
    }

    /// Sorts a batch: the frames of each authenticated datagram, with the peer whose session it came on.
    public init(sorting batch: [(peer: PeerID, frames: [Frame])]) {
        for (peer, frames) in batch {
            senders.insert(peer)
            for frame in frames { sort(frame, from: peer) }
        }
    }

    private mutating func sort(_ frame: Frame, from peer: PeerID) {
        switch frame {
        case let .message(bytes): messages.append((peer, bytes))
        case let .invite(bytes): steps.append((peer, .invite(bytes)))
        case let .inviteAck(chat): invitesAccepted.append((chat, peer))
        case let .ack(ids): acked.append(contentsOf: ids.lazy.map { ($0, peer) })
        case let .syncRequest(chat, vector): steps.append((peer, .syncRequest(chat: chat, vector: vector)))
        case let .syncEnd(chat, .more): syncFollowUps[chat, default: []].insert(peer)
        case let .syncEnd(chat, end): steps.append((peer, .syncEnded(chat: chat, end)))
        case let .needInvite(chat): steps.append((peer, .needInvite(chat)))
        case let .read(chat, ids): reads.append((peer, chat, ids))
        case let .readAck(ids): readsAcked.append((peer, ids))
        case let .presence(beat): steps.append((peer, .presence(beat)))
        case let .typing(chat, active): typing.append((peer, chat, active))
        case let .ballotRelay(publisher, hold, sealed): ballotRelays.append((peer, publisher, hold, sealed))
        case let .meetRequest(target): introductionsAsked.append((peer, target))
        case let .meet(target, address): introductions.append((peer, target, address, .requester))
        case let .meetAsked(requester, address): introductions.append((peer, requester, address, .target))
        case let .chainTops(chat, tops): steps.append((peer, .chainTops(chat: chat, tops)))
        case let .forkProof(bytes): forkProofs.append((peer, bytes))
        case let .fileWant(file, wants): fileFrames.append((peer, .want(file: file, wants: wants)))
        case let .filePiece(piece): fileFrames.append((peer, .piece(piece)))
        case let .fileLack(file): fileFrames.append((peer, .lack(file: file)))
        }
    }
}
