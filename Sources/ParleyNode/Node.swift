public import Logging
public import ParleyCore
public import ParleyCrypto
public import ParleyStore
import Synchronization

/// A Parley peer: wires the protocol state (`NodeEngine`), the store and a datagram transport.
///
/// `run()` serves until cancelled; the API methods may be called concurrently with it.
public final class Node: Sendable {
    /// The settings the node was created with.
    public let configuration: NodeConfiguration
    let store: MessageStore
    let transport: any DatagramTransport
    let clock: any NodeClock
    let logger: Logger
    let engine: NodeEngine
    let chatState: ChatStateCache
    let syncProgress = SyncProgress()
    /// Introductions asked, made and acted on, for their rate limits (`Node+Rendezvous`).
    let rendezvous: Mutex<Rendezvous>
    /// Periodic sync rounds so far: which members the next one asks (`syncFanout`).
    let syncRounds = Atomic<Int>(0)
    /// Messages sent in sync replies so far (`status`).
    let syncMessagesSent = Atomic<Int>(0)
    /// Others' messages pushed on to members relayed through this node (`relayOnward`).
    let relayPushes = Atomic<Int>(0)
    /// Others' messages this node sent lately in sync replies: their acks change nothing in the store
    /// (only own messages have deliveries), so they are dropped without looking each up by id. A
    /// returning member acks every message of its catch-up, and those lookups had taken a core.
    let relayed = Mutex(RecentSet<MessageID>(capacity: Node.relayedMemory))
    static let relayedMemory = 16_384
    /// Each author lane's highest stored message as the receive path last stored it (`LaneTops`): the
    /// fork check of a batch that simply extends a lane compares links in memory, with no store read.
    let laneTops = Mutex(LaneTops())
    /// Polls whose ballot this node is changing: one change at a time per poll.
    let ballotsInFlight = Mutex<Set<MessageID>>([])
    /// Chats whose members this node is changing: one change at a time per chat.
    let membershipChanges = Mutex<Set<ChatID>>([])
    /// Concurrent sends share store transactions and engine hops; a batch fills a few datagrams per peer.
    let outbox = GroupCommit<OutgoingMessage, StoredMessage>(maxBatch: 256)
    /// Chained messages waiting for a verified head to vouch for them (`ChainAssembler`); never stored.
    let chains: Mutex<ChainAssembler>
    /// Who is here now and who is typing; never stored.
    let presenceHub: PresenceHub
    /// When this node's own timed polls are due to be closed.
    let pollDeadlines = PollDeadlines()
    /// Secret ballots' relay delays, release times and checks, and checked ballots.
    let secretBallots = SecretBallotDesk()
    /// Ballot envelopes for this node, checked off the receive path, and the budgets that refuse a
    /// fake one before its ring is verified.
    let envelopeChecks = EnvelopeChecks()
    /// File fetches under way, trees of files served, members' chunk budgets (§13e).
    let transfers = FileTransfers()

    /// This node's peer id: its identity's public key.
    public var me: PeerID { configuration.identity.publicKey }
    /// The identity the node signs with.
    public var identity: Identity { configuration.identity }
    /// The address the transport is bound to, with the real port.
    public var localAddress: PeerAddress { transport.localAddress }

    /// Creates a node over an open store and a bound transport; nothing happens until ``run()``.
    public init(
        configuration: NodeConfiguration, store: MessageStore, transport: any DatagramTransport,
        clock: any NodeClock = SystemClock(), logger: Logger = Logger(label: "parley.node")
    ) {
        self.configuration = configuration
        self.store = store
        self.transport = transport
        self.clock = clock
        self.logger = logger
        engine = NodeEngine(
            identity: configuration.identity, maxWaiting: configuration.maxQueuedFramesPerPeer,
            rateLimits: configuration.rateLimits,
            logger: logger)
        chatState = ChatStateCache()
        chains = Mutex(ChainAssembler(configuration: configuration.chainHolding))
        presenceHub = PresenceHub(
            typingExpiry: configuration.typingTimeout,
            trafficTimeout: PresenceBeat.timeout(interval: configuration.presenceInterval))
        rendezvous = Mutex(Rendezvous(firstTurn: Int(configuration.identity.publicKey.rawRepresentation.first ?? 0)))
    }

    /// Receives and reacts to datagrams, and runs the timers, until the task is cancelled.
    public func run() async throws {
        try await resumeRetransmits()
        try await loadPollDeadlines()
        await answerPendingBallotKeyCalls()
        await resumeFetches()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await self.receiveLoop() }
            group.addTask { try await self.timerLoop() }
            group.addTask { await self.checkEnvelopes() }
            group.addTask { try await self.indexForSearchWhenQuiet() }
            group.addTask { try await self.fileFetchLoop() }
        }
    }

    /// Tells the peers sharing a chat that this node is leaving, then stops the transport, which
    /// ends `run()`'s receive loop.
    public func shutdown() async {
        await sayGoodbye()
        await transport.close()
    }

    /// Batches are committed in arrival order. While a burst is being stored, the next batch is taken
    /// as soon as it arrives and decrypted and verified beside it: the two halves use different cores.
    /// (Waiting for the commit before taking more left a catch-up's next page in the inbox for up to a
    /// commit's length, a fifth of each page's time.) The inbox is told while a commit runs beside its
    /// wait, so the node is not taken for idle and a batch taken meanwhile counts as waiting.
    /// A sync follow-up counts the burst's messages as arriving only while its commit still runs.
    private func receiveLoop() async {
        let inbox = transport.inbound
        await withTaskGroup(of: Void.self) { group in
            var storing: PreparedBatch? // a burst whose commit was started in `group` and not awaited yet
            while !Task.isCancelled {
                guard let batch = await inbox.next() else { break } // the transport closed, or the node is stopping
                let prepared = await openAndVerify(batch)
                await continueSyncs(after: prepared, besides: inbox.hasWorkBeside ? storing : nil)
                if storing != nil { await group.next() }
                storing = prepared.messages.isBurst ? prepared : nil
                if storing != nil {
                    inbox.besideBegins()
                    group.addTask {
                        await self.storeReporting(prepared)
                        inbox.besideEnds()
                    }
                } else {
                    await storeReporting(prepared)
                }
            }
        }
    }

    /// A batch that fails to commit is dropped (its messages come again by retransmit or sync); the
    /// failure is logged, except when shutting down.
    private func storeReporting(_ prepared: PreparedBatch) async {
        do { try await storeAndReply(prepared) } catch  where !Task.isCancelled {
            logger.warning("dropped an inbound batch", metadata: ["error": "\(error)"])
        } catch {}
    }

    private func timerLoop() async throws {
        var lastSync = Duration.zero - configuration.syncInterval
        var lastAnnounce = Duration.zero - configuration.announceInterval
        var nextHeartbeat = Duration.zero
        while !Task.isCancelled {
            let now = clock.now
            let (due, idle) = await engine.tick(
                now: now, wallMillis: clock.wallMillis, inputDelay: transport.inbound.queueDelay)
            await transmit(due)
            if now - lastAnnounce >= configuration.announceInterval {
                lastAnnounce = now
                await announce()
            }
            presenceHub.expireTyping(now: now)
            let headless = chains.withLock { $0.expire(now: now) }
            if headless > 0 { await engine.reject(.headless, count: headless) }
            // Held ballots go out before a close that is due at the same time.
            await runSecretBallotTimers()
            await closeDuePolls()
            if now - lastSync >= configuration.syncInterval {
                lastSync = now
                do { try await syncAllChats() } catch {
                    logger.warning("periodic sync failed; retrying next interval", metadata: ["error": "\(error)"])
                }
            }
            // A beat at start, then at each wall-clock multiple of the interval the last one announced
            // (`PresenceSchedule`): the loop wakes at that instant rather than on its next tick.
            if now >= nextHeartbeat {
                var interval = PresenceSchedule.interval(peers: 0, minimum: configuration.presenceInterval)
                do { interval = try await heartbeat() } catch {
                    logger.warning("presence heartbeat failed; retrying next interval", metadata: ["error": "\(error)"])
                }
                nextHeartbeat =
                    clock.now + PresenceSchedule.delay(untilNextBeatAfter: clock.wallMillis, interval: interval)
            }
            let quiet = idle && !presenceHub.holdsTypingIndicators && !secretBallots.hasTimers && pollDeadlines.isEmpty
            let tick =
                quiet
                ? max(configuration.quietTick, configuration.idleTick, configuration.tick)
                : idle ? max(configuration.idleTick, configuration.tick) : configuration.tick
            let nextRound = min(
                nextHeartbeat, lastSync + configuration.syncInterval, lastAnnounce + configuration.announceInterval)
            try await clock.sleep(for: max(.zero, min(tick, nextRound - clock.now)))
        }
    }

    func transmit(_ datagrams: [Datagram]) async {
        guard !datagrams.isEmpty else { return }
        await transport.send(datagrams)
    }

    /// Seals and sends frames to one peer (queued until a session exists).
    func transmit(_ frames: [Frame], to peer: PeerID) async {
        await transmit(await engine.datagrams(frames, to: peer, now: clock.now, wallMillis: clock.wallMillis))
    }

    /// Seals and sends frames to many peers in one engine hop and one transport write.
    func transmit(_ framesByPeer: [PeerID: [Frame]]) async {
        guard !framesByPeer.isEmpty else { return }
        await transmit(await engine.datagrams(framesByPeer, now: clock.now, wallMillis: clock.wallMillis))
    }

    private func announce() async {
        let packet = Announcement.make(identity: identity, wallMillis: clock.wallMillis).encoded()
        var targets = configuration.bootstrapPeers
        if configuration.discovery, let group = transport.discoveryTarget { targets.append(group) }
        await transmit(targets.map { Datagram(address: $0, bytes: packet) })
    }

    /// After a restart, own messages not yet acknowledged by every member, and read receipts not yet
    /// acknowledged by their authors, are pushed again.
    private func resumeRetransmits() async throws {
        var items: [(key: OutboundKey, frame: Frame)] = []
        for (message, missing) in try store.undelivered(author: me) {
            items += missing.map { (.message(message.id, to: $0), .message(message.encoded)) }
        }
        items += try store.pendingReadReceipts().map(Self.readReceiptItem)
        await pushReliably(items)
    }

    /// Sends each frame to its key's peer, in order, and retransmits it until acknowledged: one engine
    /// hop and one transport write for all of them.
    func pushReliably(_ items: [(key: OutboundKey, frame: Frame)]) async {
        guard !items.isEmpty else { return }
        await transmit(await engine.reliable(items, now: clock.now, wallMillis: clock.wallMillis))
    }
}
