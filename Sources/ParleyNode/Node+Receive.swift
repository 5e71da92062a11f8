import Foundation
import Logging
import ParleyCore
import ParleyCrypto
import ParleyStore

/// The receive path, built for bursts: one engine hop to decrypt the whole batch, signature checks
/// spread over the cores, one store transaction for every message in it, then one ack per peer.
extension Node {
    func process(_ batch: [Datagram]) async throws {
        let now = clock.now
        let opened = await engine.open(batch, now: now, wallMillis: clock.wallMillis)
        logger.trace("batch", metadata: [
            "datagrams": "\(batch.count)", "frames": "\(opened.frames.reduce(0) { $0 + $1.frames.count })",
            "established": "\(opened.established.map(\.shortHex))",
        ])
        await send(opened.replies)
        for peer in Set(opened.established + opened.announced) { try await greet(peer) }

        var replies: [PeerID: [Frame]] = [:]
        var incoming: [(peer: PeerID, bytes: [UInt8])] = []
        var acked: [(MessageID, PeerID)] = []
        var continuations: [(peer: PeerID, chat: ChatID)] = []
        for (peer, frames) in opened.frames {
            for frame in frames {
                switch frame {
                case let .message(bytes): incoming.append((peer, bytes))
                case let .invite(bytes): replies[peer, default: []] += try await receiveInvite(bytes, from: peer)
                case let .inviteAck(chat): _ = await engine.acknowledge([.invite(chat, to: peer)])
                case let .ack(ids): acked += ids.map { ($0, peer) }
                case let .syncRequest(chat, vector): replies[peer, default: []] += try syncReply(chat: chat, vector: vector, to: peer)
                case let .syncEnd(chat, more): if more { continuations.append((peer, chat)) }
                case let .needInvite(chat):
                    if let invite = try store.chat(chat), invite.isMember(peer) { replies[peer, default: []].append(.invite(invite.encoded)) }
                }
            }
        }
        for (peer, frames) in try await receiveMessages(incoming) { replies[peer, default: []] += frames }
        // Built only now, so the vector already covers the messages this batch stored.
        for (peer, chat) in continuations { replies[peer, default: []] += try syncContinuation(chat: chat, with: peer) }
        try await recordAcks(acked)
        for (peer, frames) in replies { await send(frames, to: peer) }
    }

    /// Verifies, stores (one transaction) and acknowledges a burst of messages. Messages already
    /// stored (retransmits, overlapping sync replies) are acknowledged without a signature check:
    /// their id is the hash of the exact bytes that were verified when they were first stored.
    private func receiveMessages(_ incoming: [(peer: PeerID, bytes: [UInt8])]) async throws -> [PeerID: [Frame]] {
        guard !incoming.isEmpty else { return [:] }
        var decoded: [(peer: PeerID, message: Message)] = []
        var rejected: [ProtocolRejection: Int] = [:]
        for (peer, bytes) in incoming {
            do { decoded.append((peer, try Message(decoding: bytes))) } catch {
                rejected[error.isUnsupportedVersion ? .unsupportedVersion : .malformed, default: 0] += 1
            }
        }
        let known = try store.storedIDs(among: decoded.map(\.message.id))
        let verified = await Self.verify(decoded.filter { !known.contains($0.message.id) })
        rejected[.badSignature, default: 0] += verified.badSignature
        let outcomes = try await store.insert(verified.messages.map(\.message), receivedAtMillis: clock.wallMillis, ownAuthor: me)
        var replies: [PeerID: [Frame]] = [:]
        var acks: [PeerID: [MessageID]] = [:]
        for (peer, message) in decoded where known.contains(message.id) { acks[peer, default: []].append(message.id) }
        var unknownChats: [PeerID: Set<ChatID>] = [:]
        for ((message, peer), outcome) in zip(verified.messages, outcomes) {
            switch outcome {
            case let .inserted(stored):
                chatState.observe(chat: message.chat, lamport: stored.message.lamport)
                acks[peer, default: []].append(message.id)
                if try isVoteForANonPoll(message) { rejected[.notAPoll, default: 0] += 1 }
            case .duplicate:
                acks[peer, default: []].append(message.id)
            case .unknownChat:
                rejected[.unknownChat, default: 0] += 1
                unknownChats[peer, default: []].insert(message.chat)
            case .notMember:
                rejected[.notMember, default: 0] += 1
            case .outOfRange:
                rejected[.malformed, default: 0] += 1
            }
        }
        for (reason, count) in rejected where count > 0 { await engine.reject(reason, count: count) }
        logger.debug("stored messages", metadata: [
            "received": "\(incoming.count)", "stored": "\(outcomes.count { if case .inserted = $0 { true } else { false } })",
            "ids": "\(verified.messages.prefix(8).map(\.message.id.shortHex))",
        ])
        for (peer, ids) in acks {
            for chunk in stride(from: 0, to: ids.count, by: Frame.maxAcksPerFrame) {
                replies[peer, default: []].append(.ack(Array(ids[chunk..<min(chunk + Frame.maxAcksPerFrame, ids.count)])))
            }
        }
        for (peer, chats) in unknownChats { replies[peer, default: []] += chats.map { .needInvite($0) } }
        return replies
    }

    /// A vote whose target is held and is not a poll. It is still stored, as every member stores it
    /// (refusing it would make stores depend on arrival order, and sync would resend it forever),
    /// but no tally ever counts it (`PollRules`); it is counted here so the attempt shows.
    private func isVoteForANonPoll(_ message: Message) throws -> Bool {
        guard VoteChoice(tag: message.tag) != nil else { return false }
        for reference in message.references where reference.tag == message.tag {
            if let target = try store.message(reference.id), target.message.tag != .poll { return true }
        }
        return false
    }

    struct Verified: Sendable {
        var messages: [(message: Message, peer: PeerID)] = []
        var badSignature = 0
    }

    /// Ed25519 checks dominate the receive cost, so large bursts are split across the cores.
    static func verify(_ decoded: [(peer: PeerID, message: Message)]) async -> Verified {
        let workers = decoded.count >= 64 ? max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8)) : 1
        let chunkSize = max(1, (decoded.count + workers - 1) / workers)
        return await withTaskGroup(of: Verified.self) { group in
            for start in stride(from: 0, to: decoded.count, by: chunkSize) {
                let chunk = Array(decoded[start..<min(start + chunkSize, decoded.count)])
                group.addTask { verifyChunk(chunk) }
            }
            var all = Verified()
            for await part in group {
                all.messages += part.messages
                all.badSignature += part.badSignature
            }
            return all
        }
    }

    private static func verifyChunk(_ chunk: [(peer: PeerID, message: Message)]) -> Verified {
        var result = Verified()
        var seen = Set<MessageID>()
        for (peer, message) in chunk where seen.insert(message.id).inserted {
            do { try message.verifySignature() } catch { result.badSignature += 1; continue }
            result.messages.append((message, peer))
        }
        return result
    }

    private func receiveInvite(_ bytes: [UInt8], from peer: PeerID) async throws -> [Frame] {
        let invite: ChatInvite
        do { invite = try ChatInvite(decoding: bytes) } catch {
            await engine.reject(error.isUnsupportedVersion ? .unsupportedVersion : error.isBadSignature ? .badSignature : .malformed)
            return []
        }
        guard invite.isMember(me), invite.isMember(peer) else {
            await engine.reject(.notMember)
            return []
        }
        // Not acknowledged: once the creator becomes a contact, the next message in the chat
        // triggers `needInvite` and the invite is accepted then.
        guard try configuration.invitePolicy == .anyone || invite.creator == me || store.contact(peer: invite.creator) != nil else {
            await engine.reject(.uninvited)
            return []
        }
        if try await store.saveChat(invite, joinedAtMillis: clock.wallMillis) {
            logger.info("joined chat", metadata: ["chat": "\(invite.id.shortHex)", "creator": "\(invite.creator.shortHex)"])
            for member in invite.members where member != me && member != peer {
                await send(try syncRequest(chat: invite.id), to: member)
            }
        }
        return [.inviteAck(invite.id)] + (try syncRequest(chat: invite.id))
    }

    /// Every ack is recorded, not only awaited ones: a member that got a message by sync after the
    /// retransmits gave up still moves it to delivered. The store ignores acks for others' messages.
    private func recordAcks(_ acked: [(MessageID, PeerID)]) async throws {
        guard !acked.isEmpty else { return }
        _ = await engine.acknowledge(acked.map { .message($0.0, to: $0.1) })
        _ = try await store.recordDeliveries(acked.map { (message: $0.0, peer: $0.1) })
    }

    /// A newly reachable peer: sync every chat we share with it, which also flushes its session.
    private func greet(_ peer: PeerID) async throws {
        var frames: [Frame] = []
        for summary in try store.chats() where summary.invite.isMember(peer) {
            frames += try syncRequest(chat: summary.invite.id)
        }
        if !frames.isEmpty { await send(frames, to: peer) }
    }
}
