public import ParleyCrypto

/// One file's fetch as plain state (PROTOCOL.md §13e): which chunks are held, which are being assembled
/// from which member, and each member's window. The node drives it with its clock: it sends `wants`,
/// feeds it pieces, and tells it whether each assembled chunk checked out.
///
/// - Chunks are spread over every member that holds the file: each has its own window of chunks in
///   flight, so a fast member takes more of them and a slow one does not hold the rest back.
/// - A window grows by one per chunk accepted (to `maximumWindow`) and halves on a timeout, at most
///   once per round trip; the timeout follows measured round trips (`RoundTripEstimator`, Karn's rule).
/// - A timed-out chunk is asked for again by the pieces still missing, from the same member: its
///   envelope is the same bytes (`ChunkEnvelope`). After `maxAttempts` it moves to another member.
/// - A member whose chunk fails its check is asked nothing more for this file, and its chunks move.
public struct ChunkFetch: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var initialWindow = 4.0
        public var minimumWindow = 2.0
        public var maximumWindow = 48.0
        public var maxAttempts = 6
        public var roundTrip = RoundTripEstimator.Bounds()
        public init() {}
    }

    private struct Source: Sendable {
        var window: Double
        var estimator: RoundTripEstimator
        var inFlight: Set<Int> = []
        var lastReduction: Duration?
    }

    private struct Assembly: Sendable {
        let source: PeerID
        var pieceCount: Int?
        var parts: [[UInt8]?] = []
        var received: UInt64 = 0
        var attempts = 1
        /// Sent once only and not yet sampled: its first piece measures a round trip.
        var sampleFrom: Duration?
        var lastActivity: Duration
        /// Assembled and handed to the node, waiting for its verdict.
        var checking = false
    }

    public let configuration: Configuration
    public private(set) var held: ChunkSet
    private var sources: [PeerID: Source] = [:]
    private var assemblies: [Int: Assembly] = [:]
    private var cursor = 0
    /// Members that sent a chunk failing its check: never asked again for this file.
    public private(set) var refusedSources: Set<PeerID> = []
    /// Pieces that matched no assembly (late, duplicated, or from a member not asked).
    public private(set) var strayPieces = 0

    public init(held: ChunkSet, sources: some Sequence<PeerID>, configuration: Configuration = .init()) {
        self.configuration = configuration
        self.held = held
        for peer in sources { addSource(peer) }
    }

    public var isComplete: Bool { held.isFull }
    /// No member is left to ask: the fetch waits for one (`addSource`).
    public var hasSources: Bool { !sources.isEmpty }
    public var sourceCount: Int { sources.count }
    public var inFlight: Int { assemblies.count }

    public mutating func addSource(_ peer: PeerID) {
        guard sources[peer] == nil, !refusedSources.contains(peer) else { return }
        sources[peer] = Source(
            window: configuration.initialWindow, estimator: RoundTripEstimator(bounds: configuration.roundTrip))
    }

    /// The member says it serves none of this file: its chunks move to the others.
    public mutating func lacks(_ peer: PeerID) { drop(peer) }

    /// What to ask for now: pieces of chunks that timed out, then new chunks into every window's room.
    public mutating func wants(now: Duration) -> [(peer: PeerID, wants: [ChunkWant])] {
        var out: [PeerID: [ChunkWant]] = [:]
        for (index, assembly) in assemblies where !assembly.checking {
            guard let source = sources[assembly.source] else { continue }
            guard now - assembly.lastActivity >= source.estimator.timeout else { continue }
            timedOut(assembly.source, now: now)
            if assembly.attempts >= configuration.maxAttempts {
                release(index)
                continue
            }
            var retry = assembly
            retry.attempts += 1
            retry.sampleFrom = nil
            retry.lastActivity = now
            assemblies[index] = retry
            let missing = retry.pieceCount.map { ChunkPieces.allPieces($0) & ~retry.received } ?? .max
            out[assembly.source, default: []].append(ChunkWant(chunk: UInt32(index), pieces: missing))
        }
        for peer in sources.keys.sorted() {
            while let source = sources[peer], Double(source.inFlight.count) < source.window.rounded(.down),
                let index = held.firstMissing(from: cursor, where: { assemblies[$0] == nil })
            {
                cursor = (index + 1) % held.count
                assemblies[index] = Assembly(source: peer, sampleFrom: now, lastActivity: now)
                sources[peer]?.inFlight.insert(index)
                out[peer, default: []].append(ChunkWant(chunk: UInt32(index), pieces: .max))
            }
        }
        return out.sorted { $0.key < $1.key }.flatMap { peer, wants in
            stride(from: 0, to: wants.count, by: ChunkWant.maxPerFrame).map {
                (peer, Array(wants[$0..<min(wants.count, $0 + ChunkWant.maxPerFrame)]))
            }
        }
    }

    /// Takes a piece; returns the chunk's whole envelope once its last piece is in.
    public mutating func receive(_ piece: FilePiece, from peer: PeerID, now: Duration) -> [UInt8]? {
        let index = Int(piece.chunk)
        // Taken out of the table while it changes, so that its parts are not copied for every piece.
        guard index < held.count, var assembly = assemblies.removeValue(forKey: index) else {
            strayPieces += 1
            return nil
        }
        defer { assemblies[index] = assembly }
        guard assembly.source == peer, !assembly.checking else {
            strayPieces += 1
            return nil
        }
        let count = Int(piece.pieces)
        let bit: UInt64 = 1 << UInt64(piece.piece)
        // Every piece but the last is full: an envelope's length follows from its count and last piece.
        guard assembly.pieceCount ?? count == count, assembly.received & bit == 0,
            Int(piece.piece) == count - 1 || piece.bytes.count == ChunkPieces.pieceBytes
        else {
            strayPieces += 1
            return nil
        }
        if assembly.pieceCount == nil {
            assembly.pieceCount = count
            assembly.parts = Array(repeating: nil, count: count)
        }
        if let sent = assembly.sampleFrom {
            sources[peer]?.estimator.record(now - sent)
            assembly.sampleFrom = nil
        }
        assembly.parts[Int(piece.piece)] = piece.bytes
        assembly.received |= bit
        assembly.lastActivity = now
        guard assembly.received == ChunkPieces.allPieces(count) else { return nil }
        var envelope: [UInt8] = []
        envelope.reserveCapacity(count * ChunkPieces.pieceBytes)
        for part in assembly.parts { envelope += part ?? [] }
        assembly.parts = []
        assembly.checking = true
        return envelope
    }

    /// The chunk checked out and is written: held now, and its member's window grows.
    public mutating func accepted(_ index: Int, from peer: PeerID) {
        held.insert(index)
        // The chunk may have moved to another member meanwhile (its sender lacked the file, or timed
        // out): whoever holds its assembly now gives the slot back, as it is held.
        if let assembly = assemblies.removeValue(forKey: index) { sources[assembly.source]?.inFlight.remove(index) }
        guard var source = sources[peer] else { return }
        source.inFlight.remove(index)
        source.window = min(configuration.maximumWindow, source.window + 1)
        sources[peer] = source
    }

    /// The chunk failed its check. Returns whether its member is to blame: then it is asked nothing
    /// more for this file. A chunk whose pieces were asked for more than once may hold pieces of two
    /// sealings (the chat's key changed between the asks, and the holder sealed with the new one): it
    /// is asked for afresh, whole, and only a whole envelope that fails blames its member.
    public mutating func refused(_ index: Int, from peer: PeerID) -> Bool {
        let own = assemblies[index]?.source == peer
        if own, let assembly = assemblies[index], assembly.attempts > 1 {
            release(index)
            return false
        }
        // An assembly another member took over meanwhile stays: only the sender's own goes.
        if own { release(index) }
        refusedSources.insert(peer)
        drop(peer)
        return true
    }

    private mutating func timedOut(_ peer: PeerID, now: Duration) {
        guard var source = sources[peer] else { return }
        if source.lastReduction.map({ now - $0 >= source.estimator.timeout }) ?? true {
            source.window = max(configuration.minimumWindow, source.window / 2)
            source.lastReduction = now
        }
        sources[peer] = source
    }

    /// Gives a chunk's assembly up: the next `wants` gives it to whichever member has room.
    private mutating func release(_ index: Int) {
        guard let assembly = assemblies.removeValue(forKey: index) else { return }
        sources[assembly.source]?.inFlight.remove(index)
    }

    private mutating func drop(_ peer: PeerID) {
        guard let source = sources.removeValue(forKey: peer) else { return }
        for index in source.inFlight where assemblies[index]?.source == peer { assemblies[index] = nil }
    }
}
