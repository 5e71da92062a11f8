import Foundation
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// The property behind fork proofs (PROTOCOL.md §4.4): four honest members and mallory, who writes,
/// votes and reacts like them but also forks her chain at random slots (votes, a close of her poll,
/// reactions, texts, ballot keys), while everyone works through random partitions and delivery orders. Once the network heals and is quiet,
/// every honest node shows the same poll results, reaction counts, history and forks.
/// `PARLEY_FORK_SEEDS` sets how many seeds run (50 by default; Tests/reliability/run-long.sh runs 2,000).
struct ForkConvergenceTests {
    static func seeds() -> [UInt64] {
        let count = ProcessInfo.processInfo.environment["PARLEY_FORK_SEEDS"].flatMap(Int.init) ?? 50
        let start = ProcessInfo.processInfo.environment["PARLEY_FORK_SEED_START"].flatMap(UInt64.init) ?? 1
        return (0..<UInt64(max(count, 1))).map { start + $0 }
    }

    @Test(arguments: seeds())
    func everyHonestNodeShowsTheSameResultsWhateverMalloryForks(seed: UInt64) async throws {
        let bed = try await PumpedPeers.make(count: 5, conditions: .init(reorder: true), seed: seed)
        let honest = Array(bed.peers.prefix(4)), mallory = bed.peers[4]
        try await bed.running {
            var random = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 1)
            let chat = try await honest[0].node.createChat(
                title: "Forks", members: bed.peers.dropFirst().map(\.identity.publicKey)
            ).id
            try await bed.advance(by: .seconds(2))
            let open = try await honest[0].node.createPoll(chat: chat, question: "Open?").id
            let hers = try await mallory.node.createPoll(chat: chat, question: "Hers?").id
            let hello = try await honest[1].node.sendText(chat: chat, "hello").message.id
            try await bed.advance(by: .seconds(2))
            var forger = Forger(bed: bed, mallory: mallory, chat: chat)
            var targets = [hello, open]

            for _ in 0..<16 {
                switch random.next() % 9 {
                case 0:
                    let shuffled = bed.peers.shuffled(using: &random).map(\.node.localAddress)
                    let cut = Int(random.next() % 4) + 1
                    bed.network.conditions.partition = [Set(shuffled.prefix(cut)), Set(shuffled.dropFirst(cut))]
                case 1: bed.network.conditions.partition = []
                case 2:
                    let voter = honest[Int(random.next() % 4)].node
                    _ = try? await voter.postVote(
                        chat: chat, poll: random.next() % 2 == 0 ? open : hers,
                        choices: [random.next() % 2 == 0 ? "up" : "down"])
                case 3:
                    let reactor = honest[Int(random.next() % 4)].node
                    let target = targets[Int(random.next() % UInt64(targets.count))]
                    let type = ["👍", "🔥", "ok"][Int(random.next() % 3)]
                    if random.next() % 3 == 0 {
                        _ = try? await reactor.unreact(chat: chat, message: target, type: type)
                    } else {
                        _ = try? await reactor.react(chat: chat, message: target, type: type)
                    }
                case 4:
                    targets.append(
                        try await honest[Int(random.next() % 4)].node.sendText(chat: chat, "n\(random.next() % 100)")
                            .message.id)
                case 5, 6:
                    // Mallory also takes part honestly, so forks fall at varied slots with counted messages below them.
                    switch random.next() % 3 {
                    case 0:
                        _ = try? await mallory.node.postVote(
                            chat: chat, poll: open, choices: [random.next() % 2 == 0 ? "up" : "down"])
                    case 1:
                        _ = try? await mallory.node.react(
                            chat: chat, message: targets[Int(random.next() % UInt64(targets.count))], type: "ok")
                    default:
                        // Her own node numbers from its store, so it may collide with a slot she forked: refused there.
                        if let sent = try? await mallory.node.sendText(chat: chat, "m\(random.next() % 100)") {
                            targets.append(sent.message.id)
                        }
                    }
                default:
                    try await forger.fork(using: &random, honest: honest, polls: (open, hers), targets: targets)
                }
                try await bed.pump.advance(by: .milliseconds(Int64(random.next() % 3_000)), step: .milliseconds(250))
            }
            bed.network.conditions.partition = []
            try await bed.pump.advance(by: .seconds(40), step: .milliseconds(500))
            try await bed.settle()

            let views = try await honest.asyncMap {
                try await Self.view(
                    of: $0.node, chat: chat, polls: [open, hers], targets: targets, viewer: honest[0].identity.publicKey
                )
            }
            for (index, view) in views.enumerated().dropFirst() {
                #expect(
                    view == views[0],
                    "seed \(seed): node \(index) differs from node 0:\n\(view.difference(from: views[0]))")
            }
        }
    }

    /// What a user sees, with nothing local (arrival order, delivery states) in it.
    struct View: Equatable {
        var polls: [String] = []
        var reactions: [String] = []
        var history: [MessageID] = []
        var forks: [PeerID: UInt64] = [:]

        func difference(from other: View) -> String {
            var lines: [String] = []
            if polls != other.polls { lines.append("polls: \(polls) vs \(other.polls)") }
            if reactions != other.reactions { lines.append("reactions: \(reactions) vs \(other.reactions)") }
            if history != other.history {
                lines.append("history: \(history.map(\.shortHex)) vs \(other.history.map(\.shortHex))")
            }
            if forks != other.forks { lines.append("forks: \(forks) vs \(other.forks)") }
            return lines.joined(separator: "\n")
        }
    }

    static func view(of node: Node, chat: ChatID, polls: [MessageID], targets: [MessageID], viewer: PeerID) async throws
        -> View
    {
        var view = View()
        for poll in polls {
            let snapshot = try node.pollSnapshot(chat: chat, poll: poll)
            let tally = snapshot.tally
            view.polls.append(
                "\(snapshot.phase) up \(tally?.up ?? -1) down \(tally?.down ?? -1) ballots \(tally?.ballots.map { "\($0.voter.shortHex)=\($0.choice)" } ?? []) disputes \(String(describing: snapshot.disputes))"
            )
        }
        let forks = try node.forks(chat: chat)
        for target in targets {
            // A message of a forked branch may be held on some nodes only; it is shown nowhere.
            guard let stored = try node.message(target), forks.counts(stored.message) else {
                view.reactions.append("not shown")
                continue
            }
            let groups = try node.reactions(chat: chat, message: target).groups(viewer: viewer)
            view.reactions.append(groups.map { "\($0.type)×\($0.count)" }.joined(separator: " "))
        }
        var criteria = MessageCriteria(chat: chat, tags: ContentKind.shownTags, order: .history)
        criteria.withoutForked = true
        view.history = try node.messages(matching: criteria).map(\.message.id)
        view.forks = try node.forks(chat: chat).forkedFrom
        return view
    }
}

/// Mallory's forks: two messages for one slot of her chain, each sent to its own random set of
/// honest members, the next slot chained on either branch.
struct Forger {
    let bed: PumpedPeers
    let mallory: PumpedPeers.Peer
    let chat: ChatID
    var next: (sequence: UInt64, previous: MessageID?)?

    init(bed: PumpedPeers, mallory: PumpedPeers.Peer, chat: ChatID) {
        self.bed = bed
        self.mallory = mallory
        self.chat = chat
    }

    mutating func fork(
        using random: inout SplitMix64, honest: [PumpedPeers.Peer], polls: (open: MessageID, hers: MessageID),
        targets: [MessageID]
    ) async throws {
        let store = mallory.node.store
        let stored = try store.nextSequence(chat: chat, author: mallory.identity.publicKey)
        let below =
            stored > 1 ? try store.messageID(chat: chat, author: mallory.identity.publicKey, sequence: stored - 1) : nil
        var slot = next ?? (stored, below)
        if stored > slot.sequence {
            slot = (stored, try store.messageID(chat: chat, author: mallory.identity.publicKey, sequence: stored - 1))
        }
        // Each side is a run of 1–3 messages (chained, then a head), so branches may differ from their
        // first slot up; now and then a head carries 40 KB, so that a proof of the two cannot fit a datagram.
        let length = Int(random.next() % 3) + 1
        let padded = random.next() % 5 == 0
        var branches: [[Message]] = []
        for branch in 0..<2 {
            var run: [Message] = []
            var position = slot
            for index in 0..<length {
                let last = index == length - 1
                let kind = last && padded ? 4 : random.next() % 5
                let message = try message(
                    kind: kind, branch: branch, slot: position, polls: polls, targets: targets, head: last,
                    padding: last && padded ? 40_000 : 0,
                    random: &random)
                run.append(message)
                position = (position.sequence + 1, message.id)
            }
            branches.append(run)
        }
        for (index, run) in branches.enumerated() {
            let receivers = honest.filter { _ in random.next() % 2 == 0 || index == 0 && random.next() % 4 == 0 }
            let frames = run.map { Frame.message($0.encoded) }
            await mallory.node.transmit(
                Dictionary(receivers.map { ($0.identity.publicKey, frames) }, uniquingKeysWith: { a, _ in a }))
        }
        let continued = branches[Int(random.next() % 2)]
        next = (slot.sequence + UInt64(length), continued.last?.id)
    }

    private func message(
        kind: UInt64, branch: Int, slot: (sequence: UInt64, previous: MessageID?),
        polls: (open: MessageID, hers: MessageID),
        targets: [MessageID], head: Bool, padding: Int, random: inout SplitMix64
    ) throws -> Message {
        let identity = mallory.identity
        let tag: ParleyCore.Tag, references: [MessageReference], plaintext: [UInt8]
        switch kind {
        case 0:
            tag = branch == 0 ? .pollVoteUp : .pollVoteDown
            references = [MessageReference(id: polls.open, tag: tag)]
            plaintext = []
        case 1:
            (tag, references) = (.pollClose, [MessageReference(id: polls.hers, tag: .pollClose)])
            plaintext = PollCoverage(holdings: branch == 0 ? [:] : [identity.publicKey: .contiguous(slot.sequence)])
                .encoded()
        case 2:
            (tag, references) = (
                .reaction, [MessageReference(id: targets[Int(random.next() % UInt64(targets.count))], tag: .reaction)]
            )
            plaintext =
                branch == 0
                ? try ReactionContent.add(ReactionType("👍")).encoded()
                : ReactionContent.removal(try ReactionType("👍")).encoded()
        case 3:
            (tag, references, plaintext) = (
                .ballotKey, [], (0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            )
        default:
            (tag, references, plaintext) = (
                .text, [], Array("branch \(branch)".utf8) + [UInt8](repeating: 0x2E, count: padding)
            )
        }
        let key = try #require(try mallory.node.store.chatKeys(chat).last)
        var draft = MessageDraft(
            chat: chat, author: identity.publicKey, sequence: slot.sequence, previous: slot.previous,
            lamport: random.next() % 4 == 0 ? UInt64(Int64.max) : random.next() % 1_000, timestampMillis: 0, tag: tag,
            content: [],
            references: references)
        draft.content = SealedContent.seal(
            plaintext, with: key, chat: chat, author: identity.publicKey, sequence: slot.sequence)
        return head ? try draft.chained().signedAsHead(by: identity) : try draft.chained()
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
