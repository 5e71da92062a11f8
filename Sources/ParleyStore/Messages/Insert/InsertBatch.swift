internal import Foundation
internal import GRDB
import ParleyCore
import ParleyCrypto

private struct ChatFacts {
    let creator: PeerID
    let kind: ChatKind
    let keyed: Bool
    let current: Set<PeerID>
}

/// Per-transaction caches, so a burst into one chat reads its members, last local number and author
/// heads once, and writes each head once. Every statement is prepared once per connection: this is the
/// receive path's hot loop, where building SQL per row used to cost more than SQLite itself.
struct InsertBatch {
    private typealias Head = CommittedPositions.Head

    /// Inside a write no other write runs, so a cached membership is the current one (a batch that
    /// changes memberships finds the cache bypassed for its whole transaction).
    let memberships: MembershipCache
    /// Read where this batch has not looked yet, instead of the store.
    let positions: CommittedPositions
    private var chats: [ChatID: ChatFacts?] = [:]
    private var epochMembers: [ChatID: [Int64: Set<PeerID>?]] = [:]
    private var nextLocalNumber: [ChatID: Int64] = [:]
    private var heads: [AuthorLane: Head] = [:]
    /// Each lane's top history clock, once this batch has read or moved it (`historyClock`).
    private var laneClocks: [AuthorLane: Int64] = [:]
    /// Own messages stored by this batch that wait for acknowledgements (see `AwaitingAcks`).
    private(set) var awaitingAcks: [MessageID: AwaitingAcks.Entry?] = [:]
    /// The messages this batch stored (see `RecentlyStored`).
    private(set) var inserted: [MessageID] = []
    /// The chats where this batch stored a deletion (see `ChatsWithDeletions`).
    private(set) var deletingChats: Set<ChatID> = []
    private let vouching: Vouching
    /// The batch's messages by id, where `vouching` has vouchers to look up.
    private let byID: [MessageID: Message]
    /// Whether a message of the batch is (or was) stored, as far as its vouchers decide.
    private var verdicts: [MessageID: Verdict] = [:]

    enum Verdict {
        /// Stored in this form (a covered head signed, when what vouched for it is refused).
        case stands(Message)
        case refused
    }

    init(memberships: MembershipCache, positions: CommittedPositions, vouching: Vouching, messages: [Message]) {
        self.memberships = memberships
        self.positions = positions
        self.vouching = vouching
        byID =
            vouching.isEmpty ? [:] : Dictionary(messages.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether `message` is stored as far as what vouches for it goes: walks up its vouchers to one
    /// already decided or standing on its own, then decides them from the top down. A voucher refused
    /// on its own account (`refusal`), or for its own voucher, refuses what it vouched for.
    mutating func verdict(of message: Message, _ db: Database) throws -> Verdict {
        var undecided: [Message] = []
        var above: Verdict?
        var current: Message? = message
        while let next = current {
            if let decided = verdicts[next.id] {
                above = decided
                break
            }
            undecided.append(next)
            current = vouching.vouchers[next.id].flatMap { byID[$0] }
        }
        for next in undecided.reversed() {
            let verdict: Verdict
            if try refusal(of: next, db) != nil {
                verdict = .refused
            } else if case .refused = above {
                let signed = vouching.signed[next.id].flatMap { (try? $0.verifySignature()) != nil ? $0 : nil }
                verdict = signed.map(Verdict.stands) ?? .refused
            } else {
                verdict = .stands(next)
            }
            verdicts[next.id] = verdict
            above = verdict
        }
        return above ?? .stands(message)
    }

    func hasVoucher(_ message: Message) -> Bool { vouching.vouchers[message.id] != nil }

    /// Records what the insert did with a message, for the messages it vouches for.
    mutating func settle(_ message: Message, _ outcome: InsertOutcome) {
        guard !vouching.isEmpty else { return }
        switch outcome {
        case .inserted, .duplicate: verdicts[message.id] = .stands(message)
        default: verdicts[message.id] = .refused
        }
    }

    /// Why `insert` would refuse the message now, looking at its slot only where the author's stored
    /// sequences reach it (a burst above them needs no index search); nil to store it (or a duplicate).
    mutating func refusal(of message: Message, _ db: Database) throws -> InsertOutcome? {
        guard message.sequence <= UInt64(Int64.max), message.lamport <= UInt64(Int64.max) else { return .outOfRange }
        guard let chat = try facts(of: message.chat, db) else { return .unknownChat }
        if let refusal = try admission(message, chat, db) { return refusal }
        let key = AuthorLane(of: message)
        let head = try heads[key] ?? positions.head(key) ?? storedHead(key, db)
        heads[key] = head // read once for the run above: the insert moves it on from here
        guard Int64(message.sequence) <= head.max, let held = try idAtSlot(of: message, db) else { return nil }
        return held == message.id.blob ? nil : .equivocation
    }

    mutating func insert(
        _ message: Message, grants: [EpochKey], db: Database, receivedAtMillis: Int64, ownAuthor: PeerID, ownSent: Bool
    ) throws -> InsertOutcome {
        guard message.sequence <= UInt64(Int64.max), message.lamport <= UInt64(Int64.max) else { return .outOfRange }
        guard let chat = try facts(of: message.chat, db) else { return .unknownChat }
        if let refusal = try admission(message, chat, db) { return refusal }

        // A change applies first: an own change is delivered once the members it leaves have it. A copy
        // already stored (or a fork) must apply nothing, so its slot is looked up before.
        if message.tag == .membership {
            if let held = try idAtSlot(of: message, db) { return held == message.id.blob ? .duplicate : .equivocation }
            if chat.keyed, chat.kind == .group { try apply(message, grants: grants, db) }
        }
        let members = try facts(of: message.chat, db)?.current ?? chat.current
        let localNumber = try nextLocalNumber(message.chat, db)
        let state = Self.state(of: message, members: members, ownAuthor: ownAuthor, ownSent: ownSent)
        let clock = try historyClock(of: message, db)
        // The slot's unique key refuses a second message at (chat, author, sequence): looking the slot up
        // only when that happens spares every other message an index search.
        try DirectBindings.execute(
            db.cachedStatement(
                sql: """
                    INSERT INTO messages (id, chat_id, author, seq, lamport, timestamp_ms, tag, content, encoded,
                                          local_number, received_at_ms, state, history_lamport)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (chat_id, author, seq) DO NOTHING
                    """)
        ) { row in
            row.blob(message.id.bytes)
            row.blob(message.chat.bytes)
            row.blob(message.author.bytes)
            row.integer(Int64(message.sequence))
            row.integer(Int64(message.lamport))
            row.integer(message.timestampMillis)
            row.text(message.tag.rawValue)
            row.blob(message.content)
            row.blob(message.encoded)
            row.integer(localNumber)
            row.integer(receivedAtMillis)
            row.text(state.rawValue)
            row.integer(clock.value > Int64(message.lamport) ? clock.value : nil)
        }
        guard db.changesCount > 0 else {
            return try idAtSlot(of: message, db) == message.id.blob ? .duplicate : .equivocation
        }
        try settleHistoryClock(of: message, clock, db)
        takeLocalNumber(message.chat, localNumber)
        inserted.append(message.id)
        if message.tag == .delete { deletingChats.insert(message.chat) }
        if state == .pending || state == .sent {
            awaitingAcks[message.id] = AwaitingAcks.Entry(
                row: DeliveryRow(
                    chatId: message.chat.blob, localNumber: localNumber, author: message.author, state: state),
                acknowledged: [])
        }
        if !message.references.isEmpty {
            let insertReference = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO message_refs (message_id, chat_id, ref_id, ref_tag, msg_tag) VALUES (?, ?, ?, ?, ?)
                    """)
            for reference in message.references {
                // A message may repeat a reference; one row is enough to find it.
                try DirectBindings.execute(insertReference) { row in
                    row.blob(message.id.bytes)
                    row.blob(message.chat.bytes)
                    row.blob(reference.id.bytes)
                    row.text(reference.tag.rawValue)
                    row.text(message.tag.rawValue)
                }
            }
            for target in PollRules.voteTargets(of: message) { try PollBallots.cast(message, on: target, db) }
        }
        try advanceHead(message, db)
        return .inserted(
            StoredMessage(
                message: message, localNumber: localNumber, receivedAtMillis: receivedAtMillis, state: state,
                deliveredTo: 0,
                historyClock: UInt64(clock.value)))
    }

    /// A message's history clock (PROTOCOL §11): the highest Lamport value its author claims at its
    /// sequence or a lower one. Stored in `history_lamport` only where it differs from the message's own
    /// clock. Live traffic extends its author's lane, so the lane's top clock, read once per batch and
    /// lane, is all it needs; a message filling a gap below the top reads the nearest lower message's.
    /// (A trigger did this for every insert and cost the 2-node profile a quarter of its throughput.)
    private mutating func historyClock(of message: Message, _ db: Database) throws -> (value: Int64, belowTop: Bool) {
        let key = AuthorLane(of: message)
        let sequence = Int64(message.sequence), own = Int64(message.lamport)
        let head = try heads[key] ?? positions.head(key) ?? storedHead(key, db)
        if sequence > head.max {
            let top = try laneClocks[key] ?? clock(of: key, below: head.max + 1, db)
            return (max(own, top), false)
        }
        return (max(own, try clock(of: key, below: sequence, db)), true)
    }

    /// After `message` is stored: the lane's top clock moves with an append, and a message that filled
    /// a gap raises its author's later messages to its clock (a gap filled late).
    private mutating func settleHistoryClock(
        of message: Message, _ clock: (value: Int64, belowTop: Bool), _ db: Database
    ) throws {
        let key = AuthorLane(of: message)
        guard clock.belowTop else {
            laneClocks[key] = clock.value
            return
        }
        try db.cachedStatement(
            sql: """
                UPDATE messages SET history_lamport = ?
                WHERE chat_id = ? AND author = ? AND seq > ? AND COALESCE(history_lamport, lamport) < ?
                """
        ).execute(arguments: [clock.value, key.chat.blob, key.author.blob, Int64(message.sequence), clock.value])
        laneClocks[key] = nil
    }

    /// The history clock of the author's highest stored message below `sequence`, 0 when none.
    private func clock(of key: AuthorLane, below sequence: Int64, _ db: Database) throws -> Int64 {
        try Int64.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT COALESCE(history_lamport, lamport) FROM messages WHERE chat_id = ? AND author = ? AND seq < ? ORDER BY seq DESC LIMIT 1
                    """), arguments: [key.chat.blob, key.author.blob, sequence]) ?? 0
    }

    /// Others' messages are received; own ones pending, or when the send path stores them, sent
    /// (delivered at once when no one else is a member).
    private static func state(of message: Message, members: Set<PeerID>, ownAuthor: PeerID, ownSent: Bool)
        -> DeliveryState
    {
        guard message.author == ownAuthor else { return .received }
        guard ownSent else { return .pending }
        return members.subtracting([ownAuthor]).isEmpty ? .delivered : .sent
    }

    /// The numbering this batch read or moved, for the batches after it once it commits.
    func keepPositions(_ db: Database) {
        positions.update(nextLocalNumbers: nextLocalNumber, heads: heads, in: db)
    }

    /// Writes the heads this batch moved, once each.
    func saveHeads(_ db: Database) throws {
        guard !heads.isEmpty else { return }
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO author_heads (chat_id, author, contiguous_seq, max_seq) VALUES (?, ?, ?, ?)
                ON CONFLICT (chat_id, author) DO UPDATE SET contiguous_seq = excluded.contiguous_seq, max_seq = excluded.max_seq
                """)
        for (key, head) in heads {
            try upsert.execute(arguments: [key.chat.blob, key.author.blob, head.contiguous, head.max])
        }
    }

    /// Why a message of a joined chat is refused, or nil to store it. Legacy chats never change members;
    /// in keyed chats only the creator writes "Membership" messages, and any other message must be
    /// sealed for an epoch whose members include its author.
    private mutating func admission(_ message: Message, _ chat: ChatFacts, _ db: Database) throws -> InsertOutcome? {
        guard chat.keyed else { return chat.current.contains(message.author) ? nil : .notMember }
        if message.tag == .membership { return message.author == chat.creator ? nil : .notMember }
        guard let epoch = SealedContent.epoch(of: message.content) else { return .malformedContent }
        guard let members = try members(of: message.chat, epoch: Int64(epoch), db) else { return .unknownEpoch }
        return members.contains(message.author) ? nil : .notMember
    }

    /// A creator's membership change: records its epoch, makes it current if it is the newest, and
    /// keeps the keys it grants this node. A change that does not decode or leaves out the creator is
    /// stored like any message and changes nothing.
    private mutating func apply(_ message: Message, grants: [EpochKey], _ db: Database) throws {
        guard let change = try? MembershipChange(decoding: message.content), change.members.contains(message.author)
        else { return }
        let chat = message.chat.blob
        // Only the change that wins its epoch hands out that epoch's key; one that loses to a lower id
        // (which only a creator writing twice makes) leaves no key behind, so every member seals alike.
        guard
            try Epochs.save(chat: chat, epoch: Int64(change.epoch), setBy: message.id.blob, members: change.members, db)
        else { return }
        try Epochs.promote(chat: chat, epoch: Int64(change.epoch), setBy: message.id.blob, members: change.members, db)
        try db.cachedStatement(sql: "DELETE FROM chat_keys WHERE chat_id = ? AND epoch = ?").execute(arguments: [
            chat, Int64(change.epoch),
        ])
        try Epochs.saveKeys(grants, chat: chat, db)
        chats[message.chat] = nil
        epochMembers[message.chat] = nil
    }

    /// nil when the chat is not joined.
    private mutating func facts(of chat: ChatID, _ db: Database) throws -> ChatFacts? {
        if let cached = chats[chat] { return cached }
        if let membership = memberships.lookup(chat).membership {
            let facts = ChatFacts(
                creator: membership.creator, kind: membership.kind, keyed: membership.isKeyed,
                current: Set(membership.members))
            chats[chat] = .some(facts)
            return facts
        }
        var found: ChatFacts?
        if let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT creator, kind, keyed FROM chats WHERE id = ?"), arguments: [chat.blob])
        {
            let blobs = try Data.fetchAll(
                db.cachedStatement(sql: "SELECT peer_id FROM chat_members WHERE chat_id = ?"), arguments: [chat.blob])
            let kindName: String = row["kind"]
            found = ChatFacts(
                creator: try PeerID.fromBlob(row["creator"], "chat creator"),
                kind: ChatKind(rawValue: kindName) ?? .group,
                keyed: row["keyed"],
                current: Set(try blobs.map { blob throws(StoreError) in try PeerID.fromBlob(blob, "chat member") }))
        }
        chats[chat] = .some(found)
        return found
    }

    private mutating func members(of chat: ChatID, epoch: Int64, _ db: Database) throws -> Set<PeerID>? {
        if let cached = epochMembers[chat]?[epoch] { return cached }
        let (kept, generation) = memberships.lookupEpoch(chat, epoch)
        let found = try kept ?? Epochs.members(chat: chat.blob, epoch: epoch, db)
        if kept == nil, let found { memberships.keepEpoch(chat, epoch, members: found, readAt: generation) }
        epochMembers[chat, default: [:]][epoch] = .some(found)
        return found
    }

    /// The id stored at the message's (chat, author, sequence), if any: the same id is a duplicate
    /// (the id hashes those fields), another is a fork.
    private func idAtSlot(of message: Message, _ db: Database) throws -> Data? {
        let bySequence = try db.cachedStatement(
            sql: "SELECT id FROM messages WHERE chat_id = ? AND author = ? AND seq = ?")
        return try Data.fetchOne(
            bySequence, arguments: [message.chat.blob, message.author.blob, Int64(message.sequence)])
    }

    /// The local number the chat's next stored message gets; taken only once it is stored.
    private mutating func nextLocalNumber(_ chat: ChatID, _ db: Database) throws -> Int64 {
        if let cached = nextLocalNumber[chat] ?? positions.nextLocalNumber(of: chat) { return cached }
        let max = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT MAX(local_number) FROM messages WHERE chat_id = ?"), arguments: [chat.blob])
        let next = (max ?? 0) + 1
        nextLocalNumber[chat] = next
        return next
    }

    private mutating func takeLocalNumber(_ chat: ChatID, _ number: Int64) {
        nextLocalNumber[chat] = number + 1
    }

    /// Raises the author's max, and moves the contiguous head over any run of sequences that a
    /// late arrival just joined up.
    private mutating func advanceHead(_ message: Message, _ db: Database) throws {
        let key = AuthorLane(of: message)
        let seq = Int64(message.sequence)
        var head = try heads[key] ?? positions.head(key) ?? storedHead(key, db)
        let laterMayExist = head.max > seq
        head.max = max(head.max, seq)
        if seq == head.contiguous + 1 {
            var contiguous = seq
            // Only a message that fills a gap has stored successors to join up.
            if laterMayExist {
                let later = try Int64.fetchCursor(
                    db.cachedStatement(
                        sql: "SELECT seq FROM messages WHERE chat_id = ? AND author = ? AND seq > ? ORDER BY seq"),
                    arguments: [message.chat.blob, message.author.blob, seq])
                while let next = try later.next(), next == contiguous + 1 { contiguous = next }
            }
            head.contiguous = contiguous
        }
        heads[key] = head
    }

    private func storedHead(_ key: AuthorLane, _ db: Database) throws -> Head {
        let statement = try db.cachedStatement(
            sql: "SELECT contiguous_seq, max_seq FROM author_heads WHERE chat_id = ? AND author = ?")
        guard let row = try Row.fetchOne(statement, arguments: [key.chat.blob, key.author.blob]) else {
            return Head(contiguous: 0, max: 0)
        }
        return Head(contiguous: row[0], max: row[1])
    }
}
