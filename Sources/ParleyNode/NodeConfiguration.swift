public import ParleyCore
public import ParleyCrypto

/// Everything a node is started with. Timings are tunable so tests can run fast.
public struct NodeConfiguration: Sendable {
    /// The identity the node signs and is known by.
    public var identity: Identity
    /// Addresses to announce ourselves to at start and periodically (`--peer`).
    public var bootstrapPeers: [PeerAddress]
    /// Whether announcements also go to the transport's LAN discovery group (`--discover`).
    public var discovery: Bool
    /// How often the timers run (retransmits, handshake retries).
    public var tick: Duration = .milliseconds(50)
    /// How often they run while nothing waits for an ack or a handshake: an idle node wakes 4 times a
    /// second instead of 20. The periodic rounds (sync, presence, announce) keep their intervals; a
    /// datagram lost right after an idle spell is retransmitted at most this much later.
    public var idleTick: Duration = .milliseconds(250)
    /// How often they run while nothing at all is timed: no ack or handshake awaited, no typing
    /// indicator held, no closing time or secret-ballot timer pending. The periodic rounds still run at
    /// their exact times (the loop wakes for them); work that arrives during such a sleep (a lost
    /// datagram's retransmit, a closing time set by a new poll) waits at most this long. At 100 members
    /// this took a node at idle from 0.16 % to 0.10 % of a core.
    public var quietTick: Duration = .seconds(1)
    /// How often each chat is reconciled with some of its members.
    public var syncInterval: Duration = .seconds(2)
    /// The least time an author's messages count as fresh: the end of them stored this recently is
    /// left out of a sync reply to a member that asked before, when the author is this node or a
    /// member shown online (it is still pushing them). Under load it grows with the node's input
    /// queueing delay, up to `Node.maxSyncFreshness` (`syncReply`); zero turns it off.
    public var syncFreshness: Duration = .seconds(3)
    /// How many members of a chat each periodic round asks, in turn: every member is asked once per
    /// `members / syncFanout` rounds. Messages themselves are pushed to every member at once; the
    /// rounds repair what was lost, and asking everyone each round would cost a 100-member chat
    /// 10,000 requests and replies every 2 s.
    public var syncFanout = 4
    /// How often signed announcements go to the bootstrap peers (and the discovery group).
    public var announceInterval: Duration = .seconds(5)
    /// Messages in one sync reply before the requester must ask again.
    public var syncBatch = 2048
    /// Frames held for a peer with no session yet.
    public var maxQueuedFramesPerPeer = 20_000
    /// Per-source budgets for inbound datagrams, by class; see `RateLimiter`.
    public var rateLimits = RateLimiter.Configuration()
    /// How many chained messages wait for their head, from one delivering peer and in all; see `ChainAssembler`.
    public var chainHolding = ChainAssembler.Configuration()
    /// Whose chat invites are accepted.
    public var invitePolicy: InvitePolicy = .contacts
    /// Library hooks on outgoing messages (none by default).
    public var sendHooks = SendHooks()
    /// How often a presence heartbeat goes to every peer sharing a chat, at most: with p > 33 such
    /// peers the interval is p × 150 ms, at most 60 s (`PresenceSchedule`). Each beat says its
    /// interval, and a peer is offline once two intervals and 2 s pass without one (12 s at 5 s).
    public var presenceInterval: Duration = .seconds(5)
    /// A typing indicator lasts this long unless refreshed.
    public var typingTimeout: Duration = .seconds(6)
    /// How long creating a secret poll waits for members' ballot keys still on their way: those of
    /// connected members, and any while too few are held to hide a vote (members publish theirs as
    /// they join, so a poll posted right after a chat is made would otherwise be refused).
    public var ballotKeyWait: Duration = .seconds(5)
    /// Publishers hand the ballots they hold to the poll's creator at the closing time; the creator
    /// publishes every ballot it holds this long after it, in one batch.
    public var ballotPublishDelay: Duration = .seconds(10)
    /// A voter whose ballot is not published this long after that batch sends it again through two
    /// other members (the same bytes: it cannot count twice).
    public var ballotRetryAfter: Duration = .seconds(2)
    /// The creator publishes its late batch and closes a secret poll this long after its closing
    /// time: room for a retry from 12 s on, publishers handing over again every 2 s, and clocks a few
    /// seconds apart.
    public var ballotReleaseWindow: Duration = .seconds(25)
    /// How often a voter's node sends a ballot again before giving up (then it shows "not counted").
    /// Once: a retry can only reach the creator's late batch, and every member it goes through
    /// learns that this voter was late.
    public var ballotRetries = 1
    /// How often the node looks for stored messages to index for search, indexing them once the store
    /// has been quiet for a tick (`Node+SearchIndexing`). nil: only a search indexes, first catching up;
    /// the pumped test beds, whose runs must be the same every time, leave the node's timing to the pump.
    public var searchIndexTick: Duration? = .seconds(1)
    /// Files and pictures (§13e): where their bytes are kept and the limits on them.
    public var files = Files()

    /// Where a node keeps file bytes, and its limits.
    public struct Files: Sendable {
        /// The folder of file bytes (one file per manifest id, `.part` while fetched); nil: this node
        /// sends and fetches no file (manifests are still stored and shown).
        public var directory: String?
        /// The largest file this node sends or fetches.
        public var maxFileBytes: Int64 = 100 << 20
        /// All file bytes held here, whole or in part; past it the oldest fetched files are evicted.
        public var quotaBytes: Int64 = 2 << 30
        /// Pictures up to this size are fetched as soon as their manifest arrives; nothing else is.
        public var autoFetchPictureBytes: Int64 = 10 << 20
        /// Chunks a member may ask this node for per second (and at once): past it its wants are dropped
        /// and counted (`fileWantRefused`); its fetch slows to what it is given.
        public var servedChunksPerSecond = 4_000.0
        public var servedChunkBurst = 512.0
        /// How often a fetch looks for timed-out chunks, and asks members again for a file they lacked.
        public var fetchTick: Duration = .milliseconds(10)
        public var sourceRefresh: Duration = .seconds(2)
        public var fetch = ChunkFetch.Configuration()
        public init() {}
    }

    /// A configuration with default timings and limits.
    public init(identity: Identity, bootstrapPeers: [PeerAddress] = [], discovery: Bool = false) {
        self.identity = identity
        self.bootstrapPeers = bootstrapPeers
        self.discovery = discovery
    }
}

/// Who may add this node to a chat. With `.contacts`, a stranger cannot pull you into a chat
/// (the invite is counted as `uninvited` and ignored until you add its creator as a contact).
public enum InvitePolicy: String, Sendable, CaseIterable {
    /// `contacts`: invites only from this user's contacts; `anyone`: invites from every peer.
    case contacts, anyone
}
