import Synchronization
import Logging
import Foundation
public import ParleyCore
import ParleyCrypto
import ParleyStore

/// Chunks on the wire (PROTOCOL.md §13e): a fetch asks every live member of the file's chat for chunks,
/// within a window per member, checks each against the manifest's hash tree and writes it at its offset;
/// a member holding the whole file serves it to current members only, sealed with the current key.
extension Node {
    /// Starts fetching a file (or returns at once if it is held or already being fetched). What is on
    /// disk and checked (`<id>.have`) is never fetched again: a fetch stopped by a restart, or a kill,
    /// goes on from there.
    @discardableResult
    public func fetchFile(_ id: MessageID) async throws -> FileEntry {
        try await fetchFile(id, evicting: true)
    }

    /// `evicting: false` (an automatic fetch): only into room the quota has, so a member's manifests
    /// cannot push this user's fetched files out.
    func fetchFile(_ id: MessageID, evicting: Bool) async throws -> FileEntry {
        let directory = try filesDirectory()
        let entry = try file(id)
        if entry.isHeld { return entry }
        // Claimed before any wait: two callers (the page, the CLI, an automatic fetch) start one fetch.
        guard transfers.state.withLock({ $0.fetches[id] == nil && $0.starting.insert(id).inserted }) else {
            return try file(id)
        }
        defer { transfers.state.withLock { _ = $0.starting.remove(id) } }
        let manifest = entry.manifest, chat = entry.message.message.chat
        guard let membership = try store.membership(of: chat), membership.members.contains(me) else {
            throw NodeError.notAMember(chat)
        }
        try checkCap(Int64(manifest.size))
        let keys = try store.chatKeys(chat)
        if entry.holding == nil {
            if evicting {
                try await makeRoom(for: Int64(manifest.size))
            } else {
                let used = try store.allHeldFiles().reduce(0) { $0 + $1.size }
                guard used + Int64(manifest.size) <= configuration.files.quotaBytes else {
                    throw NodeError.fileTooLarge("the file store has no room for it without evicting")
                }
            }
        }
        let data = try FileDescriptor(path: heldPath(id, in: directory) + ".part", writable: true)
        try data.truncate(to: Int64(manifest.size))
        let have = try FileDescriptor(path: heldPath(id, in: directory) + ".have", writable: true)
        var held = ChunkSet(count: manifest.chunkCount)
        for (index, mark) in try have.read(count: manifest.chunkCount, at: 0).enumerated() where mark == 1 {
            held.insert(index)
        }
        try await store.recordFile(
            id: id, chat: chat, size: Int64(manifest.size), holding: .partial, sentHere: false, heldAtMillis: nil)
        let now = clock.now
        let others = membership.members.filter { $0 != me }
        let live = await engine.live(among: others, now: now)
        let fetch = FileTransfers.Fetch(
            id: id, chat: chat, manifest: manifest,
            plan: ChunkFetch(
                held: held, sources: live.isEmpty ? Set(others) : live, configuration: configuration.files.fetch),
            data: data, have: have, keys: keys, askedAllAt: now, startedAt: now,
            heldAtStart: held.held)
        transfers.state.withLock { $0.fetches[id] = fetch }
        transfers.started()
        logger.info(
            "fetching a file",
            metadata: ["file": "\(id.shortHex)", "chunks": "\(manifest.chunkCount)", "held": "\(held.held)"])
        if held.isFull { try await complete(id) } else { await askForChunks(of: [id]) }
        return try file(id)
    }

    /// Fetches that a stop interrupted go on.
    func resumeFetches() async {
        guard configuration.files.directory != nil,
            let partial = try? store.allHeldFiles().filter({ $0.holding == .partial })
        else { return }
        for file in partial {
            do { try await fetchFile(file.id) } catch {
                logger.warning(
                    "a stopped fetch cannot go on", metadata: ["file": "\(file.id.shortHex)", "error": "\(error)"])
            }
        }
    }

    /// New file messages from members, read opened: one whose manifest does not decode is stored as
    /// every member stores it, counted, and shown and fetched by none; pictures up to the automatic
    /// threshold are fetched at once.
    func fetchAutomatically(_ ids: [MessageID]) async {
        var malformed = 0
        for id in ids {
            guard let stored = try? store.message(id), !stored.isSealed, stored.message.author != me else { continue }
            guard let manifest = try? FileManifest(decoding: stored.message.content) else {
                malformed += 1
                continue
            }
            guard configuration.files.directory != nil, manifest.picture != nil,
                Int64(manifest.size) <= min(configuration.files.autoFetchPictureBytes, configuration.files.maxFileBytes)
            else { continue }
            do { try await fetchFile(id, evicting: false) } catch {
                logger.info(
                    "a picture is not fetched automatically", metadata: ["file": "\(id.shortHex)", "error": "\(error)"])
            }
        }
        if malformed > 0 { await engine.reject(.malformed, count: malformed) }
    }

    /// While fetches run: timed-out chunks asked again, lacking members asked again now and then.
    /// With none under way it waits for one to start, so an idle node never wakes for files.
    func fileFetchLoop() async throws {
        var wakes = transfers.wakes.makeAsyncIterator()
        while !Task.isCancelled {
            let active = transfers.state.withLock { Array($0.fetches.keys) }
            guard !active.isEmpty else {
                guard await wakes.next() != nil else { return }
                continue
            }
            await refreshSources(of: active)
            await askForChunks(of: active)
            try await clock.sleep(for: configuration.files.fetchTick)
        }
    }

    private func refreshSources(of ids: [MessageID]) async {
        let now = clock.now
        for id in ids {
            guard
                let (chat, due) = transfers.state.withLock({ state -> (ChatID, Bool)? in
                    state.fetches[id].map { ($0.chat, now - $0.askedAllAt >= configuration.files.sourceRefresh) }
                }), due
            else { continue }
            let members = (try? store.membership(of: chat))?.members.filter { $0 != me } ?? []
            let live = await engine.live(among: members, now: now)
            transfers.state.withLock { state in
                state.fetches[id]?.askedAllAt = now
                for peer in live { state.fetches[id]?.plan.addSource(peer) }
            }
        }
    }

    /// Sends each fetch's wants: what timed out, and new chunks into each member's window.
    func askForChunks(of ids: [MessageID]) async {
        let now = clock.now
        var frames: [PeerID: [Frame]] = [:]
        transfers.state.withLock { state in
            for id in ids {
                guard let wants = state.fetches[id]?.plan.wants(now: now) else { continue }
                for (peer, batch) in wants { frames[peer, default: []].append(.fileWant(file: id, wants: batch)) }
            }
        }
        await transmit(frames)
    }

    /// The batch's file frames: wants served, pieces assembled (and checked, written, asked on), lacks noted.
    func receiveFileFrames(_ frames: [(peer: PeerID, frame: InboundPlan.FileFrame)]) async {
        guard !frames.isEmpty else { return }
        let now = clock.now
        var replies: [PeerID: [Frame]] = [:]
        var envelopes: [(id: MessageID, chunk: Int, peer: PeerID, envelope: [UInt8])] = []
        for (peer, frame) in frames {
            switch frame {
            case let .want(file, wants): replies[peer, default: []] += await serve(file, wants, to: peer, now: now)
            case let .lack(file): transfers.state.withLock { $0.fetches[file]?.plan.lacks(peer) }
            case let .piece(piece):
                if let envelope = transfers.state.withLock({
                    $0.fetches[piece.file]?.plan.receive(piece, from: peer, now: now)
                }) {
                    envelopes.append((piece.file, Int(piece.chunk), peer, envelope))
                }
            }
        }
        await transmit(replies)
        guard !envelopes.isEmpty else { return }
        var touched = Set<MessageID>()
        for (id, chunk, peer, envelope) in envelopes {
            touched.insert(id)
            await check(envelope, chunk: chunk, of: id, from: peer)
        }
        for id in touched where transfers.state.withLock({ $0.fetches[id]?.plan.isComplete ?? false }) {
            do { try await complete(id) } catch {
                logger.warning(
                    "a fetched file cannot be kept", metadata: ["file": "\(id.shortHex)", "error": "\(error)"])
            }
        }
        await askForChunks(of: Array(touched))
    }

    /// Opens and checks one assembled chunk, writes it at its offset and marks it held; a chunk that
    /// fails is counted and its sender asked nothing more for the file.
    private func check(_ envelope: [UInt8], chunk: Int, of id: MessageID, from peer: PeerID) async {
        guard let fetch = transfers.target(of: id) else { return }
        var keys = fetch.keys
        func open(with keys: [EpochKey]) throws(ChunkEnvelope.Refusal) -> [UInt8] {
            try ChunkEnvelope.open(
                envelope, index: chunk, manifest: fetch.manifest,
                keys: { epoch in keys.filter { $0.epoch == epoch }.map(\.key) }, chat: fetch.chat, file: id
            ).chunk
        }
        do {
            let bytes: [UInt8]
            do { bytes = try open(with: keys) } catch .unopenable {
                // The chat's keys as the fetch read them may be out of date (a new epoch, or a key
                // change that won for an epoch already held): read again, and judge on those alone,
                // so the verdict does not depend on when the fetch began.
                keys = (try? store.chatKeys(fetch.chat)) ?? keys
                let current = keys
                transfers.state.withLock { $0.fetches[id]?.keys = current }
                bytes = try open(with: keys)
            }
            try fetch.data.write(bytes, at: Int64(chunk) * Int64(FileManifest.chunkBytes))
            try fetch.have.write([1], at: Int64(chunk))
            transfers.state.withLock { state in
                state.fetches[id]?.plan.accepted(chunk, from: peer)
                state.chunksFetched += 1
            }
        } catch let ChunkEnvelope.Refusal.unopenable(epoch) where !keys.contains(where: { $0.epoch == epoch }) {
            // Sealed with a key this node does not hold yet (a membership change still on its way):
            // the member is left out until the next round of asking, not refused. A chunk that opens
            // with no key held for its epoch is refused below.
            transfers.state.withLock { $0.fetches[id]?.plan.lacks(peer) }
        } catch let refusal as ChunkEnvelope.Refusal {
            let blamed = transfers.state.withLock { state in
                let blamed = state.fetches[id]?.plan.refused(chunk, from: peer) ?? false
                if blamed { state.refusedChunks[peer, default: 0] += 1 }
                return blamed
            }
            guard blamed else { return }
            await engine.reject(.fileChunkRefused)
            logger.warning(
                "refused a file chunk",
                metadata: [
                    "file": "\(id.shortHex)", "chunk": "\(chunk)", "from": "\(peer.shortHex)", "reason": "\(refusal)",
                ])
        } catch {
            transfers.state.withLock { $0.fetches[id]?.plan.lacks(peer) }
            logger.warning("cannot write a file chunk", metadata: ["file": "\(id.shortHex)", "error": "\(error)"])
        }
    }

    /// Every chunk is in: the file is renamed into place and held from now on (and served).
    private func complete(_ id: MessageID) async throws {
        guard let fetch = transfers.state.withLock({ $0.fetches.removeValue(forKey: id) }) else { return }
        let directory = try filesDirectory()
        fetch.data.sync()
        // Every chunk was checked as it came, but marks and bytes may part on a crash: the whole file is
        // checked against the root once more before it is held (and served).
        let tree = FileTree(leaves: try Self.leaves(reading: fetch.data, of: fetch.manifest))
        guard tree.root == fetch.manifest.root else {
            try? FileManager.default.removeItem(atPath: fetch.have.path)
            try? FileManager.default.removeItem(atPath: fetch.data.path)
            try await store.forgetFile(id)
            throw NodeError.invalid(
                "the fetched bytes of file \(id.shortHex) do not match its manifest; fetch it again")
        }
        guard rename(fetch.data.path, heldPath(id, in: directory)) == 0 else {
            throw NodeError.invalid("cannot move file \(id.shortHex) into place: \(String(cString: strerror(errno)))")
        }
        transfers.keep(tree, of: id)
        try? FileManager.default.removeItem(atPath: fetch.have.path)
        try await store.recordFile(
            id: id, chat: fetch.chat, size: Int64(fetch.manifest.size), holding: .held, sentHere: false,
            heldAtMillis: clock.wallMillis)
        let seconds =
            Double((clock.now - fetch.startedAt).components.attoseconds) * 1e-18
            + Double((clock.now - fetch.startedAt).components.seconds)
        logger.info(
            "fetched a file",
            metadata: [
                "file": "\(id.shortHex)", "bytes": "\(fetch.manifest.size)", "seconds": "\(seconds)",
                "refetched": "\(fetch.heldAtStart)", "refusedSources": "\(fetch.plan.refusedSources.count)",
            ])
    }

    /// Answers a member's wants with the pieces asked for, or a lack: this node serves only files it
    /// holds whole, only to current members of their chat, within each member's chunk budget.
    private func serve(_ id: MessageID, _ wants: [ChunkWant], to peer: PeerID, now: Duration) async -> [Frame] {
        // Not holding the file whole is no fault of the asker's (it asks every member): a lack, uncounted.
        guard let directory = configuration.files.directory, let held = try? store.heldFile(id), held.holding == .held,
            let membership = try? store.membership(of: held.chat), let key = membership.sealingKey
        else { return [.fileLack(file: id)] }
        guard membership.members.contains(peer) else {
            await engine.reject(.fileWantRefused)
            return [.fileLack(file: id)]
        }
        let limit = RateLimiter.Limit(
            rate: configuration.files.servedChunksPerSecond, burst: configuration.files.servedChunkBurst)
        let admitted = transfers.admit(wants.count, from: peer, limit: limit, now: now)
        if admitted < wants.count { await engine.reject(.fileWantRefused, count: wants.count - admitted) }
        // Only for a member within its budget is the tree built (the whole file read, once).
        guard admitted > 0, let tree = try? tree(of: id, size: held.size, in: directory),
            let source = try? FileDescriptor(path: heldPath(id, in: directory), writable: false)
        else { return [] }
        var frames: [Frame] = []
        for want in wants.prefix(admitted) where Int(want.chunk) < tree.leafCount {
            let index = Int(want.chunk)
            let offset = Int64(index) * Int64(FileManifest.chunkBytes)
            guard let chunk = try? source.read(count: FileManifest.chunkBytes, at: offset) else { continue }
            let envelope = ChunkEnvelope.seal(
                chunk, index: index, proof: tree.proof(for: index), key: key, chat: held.chat, file: id)
            let count = ChunkPieces.count(envelopeBytes: envelope.count)
            for piece in 0..<count where want.pieces & (1 << UInt64(piece)) != 0 {
                frames.append(
                    .filePiece(
                        FilePiece(
                            file: id, chunk: want.chunk, piece: UInt8(piece), pieces: UInt8(count),
                            bytes: Array(ChunkPieces.piece(piece, of: envelope)))))
            }
        }
        return frames
    }

    /// The file's hash tree, built from its bytes once and kept for the next wants. A file whose bytes
    /// no longer give its manifest's root (changed on disk) is not served.
    private func tree(of id: MessageID, size: Int64, in directory: String) throws -> FileTree {
        if let tree = transfers.tree(of: id) { return tree }
        guard let manifest = try? file(id).manifest else { throw NodeError.notFound("no file \(id.shortHex)") }
        let source = try FileDescriptor(path: heldPath(id, in: directory), writable: false)
        let leaves = try Self.leaves(reading: source, of: manifest)
        let tree = FileTree(leaves: leaves)
        guard tree.root == manifest.root else {
            throw NodeError.invalid("file \(id.shortHex) on disk no longer matches its manifest")
        }
        transfers.keep(tree, of: id)
        return tree
    }
}
