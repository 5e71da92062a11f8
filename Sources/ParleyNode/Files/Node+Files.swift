import Synchronization
import Logging
import Foundation
public import ParleyCore
import ParleyCrypto
import ParleyMedia
public import ParleyStore

/// Files and pictures (PROTOCOL.md §13e): a signed manifest message, and the bytes on this node's disk,
/// served to members and fetched from them in sealed chunks (`Node+FileTransfer`).
extension Node {
    /// Sends the file at `path` to `chat`: pictures lose their metadata (EXIF, GPS) unless `keepMetadata`,
    /// the bytes are copied into this node's file folder, and the manifest goes out as a "File" message.
    public func sendFile(
        chat: ChatID, path: String, name: String? = nil, caption: String = "", keepMetadata: Bool = false
    ) async throws -> StoredMessage {
        let directory = try filesDirectory()
        guard let membership = try store.membership(of: chat) else {
            throw NodeError.notFound("no chat \(chat.shortHex)")
        }
        guard membership.members.contains(me) else { throw NodeError.notAMember(chat) }
        guard membership.isKeyed else {
            throw NodeError.invalid("chat \(chat.shortHex) is a legacy chat without keys: files need sealed chunks")
        }
        let size = try Self.regularFileSize(path)
        let source = try FileDescriptor(path: path, writable: false)
        try checkCap(size)
        let displayName = FileName.sanitized(name ?? (path as NSString).lastPathComponent)
        let type = ContentSniffer.type(of: try source.read(count: 512, at: 0), name: displayName)
        let staging = directory + "/.sending-" + Hex.encode(secureRandomBytes(count: 8))
        defer { try? FileManager.default.removeItem(atPath: staging) }
        var picture: FileManifest.Picture?
        let leaves: [Digest32]
        let sentSize: Int64
        if type.isPicture {
            var bytes = try source.read(count: Int(size), at: 0)
            // Read before stripping, which takes the EXIF block with it: the thumbnail is turned upright.
            let orientation = PictureCleaner.orientation(bytes)
            if !keepMetadata {
                do { bytes = try PictureCleaner.stripMetadata(bytes) } catch {
                    throw NodeError.invalid("\(displayName) is not a readable picture: \(error)")
                }
            }
            if let dimensions = PictureInfo.size(of: bytes) {
                picture = FileManifest.Picture(
                    width: UInt32(dimensions.width), height: UInt32(dimensions.height),
                    thumbnail: (try? Thumbnail.make(from: bytes, orientation: orientation)).flatMap { $0 } ?? [])
            }
            let out = try FileDescriptor(path: staging, writable: true)
            try out.write(bytes, at: 0)
            leaves = Self.leaves(of: bytes)
            sentSize = Int64(bytes.count)
        } else {
            leaves = try Self.copy(source, size: size, to: staging)
            sentSize = size
        }
        try await makeRoom(for: sentSize)
        let manifest: FileManifest
        do {
            manifest = try FileManifest(
                name: displayName, size: UInt64(sentSize), type: type.mime, root: FileTree(leaves: leaves).root,
                picture: picture, caption: caption)
        } catch { throw NodeError.invalid("\(error)") }
        let stored = try await send(chat: chat, tag: .file, content: manifest.encoded)
        try FileManager.default.moveItem(atPath: staging, toPath: heldPath(stored.id, in: directory))
        try await store.recordFile(
            id: stored.id, chat: chat, size: sentSize, holding: .held, sentHere: true, heldAtMillis: clock.wallMillis)
        transfers.keep(FileTree(leaves: leaves), of: stored.id)
        return stored
    }

    /// The chat's files, oldest first, with what this node holds of each.
    public func files(chat: ChatID) throws -> [FileEntry] {
        guard try store.membership(of: chat) != nil else { throw NodeError.notFound("no chat \(chat.shortHex)") }
        let held = Dictionary(try store.heldFiles(chat: chat).map { ($0.id, $0) }) { first, _ in first }
        let messages = try store.messages(
            matching: MessageCriteria(chat: chat, tag: .file, oldestFirst: true, order: .history))
        let amended = try amendments(of: messages, chat: chat)
        return try messages.filter { amended[$0.id]?.deletion == nil }.compactMap {
            try entry(for: $0, held: held[$0.id])
        }
    }

    /// One file message by id.
    public func file(_ id: MessageID) throws -> FileEntry {
        guard let message = try store.message(id), message.message.tag == .file,
            try amendments(of: [message], chat: message.message.chat)[id]?.deletion == nil,
            let entry = try entry(for: message, held: try store.heldFile(id))
        else { throw NodeError.notFound("no file \(id.shortHex)") }
        return entry
    }

    /// Where the whole file is on this node's disk, for a front end to serve or copy.
    public func heldFilePath(_ id: MessageID) throws -> String {
        let entry = try file(id)
        guard entry.isHeld else {
            throw NodeError.fileNotHeld(id, entry.isFetching ? "it is still being fetched" : "fetch it first")
        }
        return heldPath(id, in: try filesDirectory())
    }

    /// Copies a held file into `directory` under its manifest's name (made unique with " (2)", " (3)"…).
    /// Returns the path written.
    public func saveFile(_ id: MessageID, to directory: String) throws -> String {
        let source = try heldFilePath(id)
        let name = try file(id).manifest.name
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw NodeError.invalid("\(directory) is not a folder")
        }
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        for attempt in 1...1_000 {
            let candidate = attempt == 1 ? name : "\(stem) (\(attempt))" + (ext.isEmpty ? "" : ".\(ext)")
            let target = (directory as NSString).appendingPathComponent(candidate)
            guard !FileManager.default.fileExists(atPath: target) else { continue }
            do { try FileManager.default.copyItem(atPath: source, toPath: target) } catch {
                throw NodeError.invalid("cannot save \(name) to \(directory): \(error.localizedDescription)")
            }
            return target
        }
        throw NodeError.invalid("\(directory) already holds 1,000 files named like \(name)")
    }

    func entry(for message: StoredMessage, held: HeldFile?) throws -> FileEntry? {
        guard let manifest = try? FileManifest(decoding: message.message.content) else { return nil }
        // Counts only, not the fetch: a copy of its plan alive while the receive path changes it would
        // make that change copy the plan.
        let fetch = transfers.state.withLock { state in
            state.fetches[message.id].map {
                (held: $0.plan.held.held, sources: $0.plan.sourceCount, refused: $0.plan.refusedSources.count)
            }
        }
        var type = MediaType(mime: manifest.type, isPicture: false)
        if held?.holding == .held, let directory = configuration.files.directory,
            let head = try? FileDescriptor(path: heldPath(message.id, in: directory), writable: false).read(
                count: 512, at: 0)
        {
            type = ContentSniffer.type(of: head, name: manifest.name)
        }
        let isPicture = held?.holding == .held ? type.isPicture : manifest.picture != nil
        return FileEntry(
            message: message, manifest: manifest, holding: held?.holding,
            heldChunks: held?.holding == .held
                ? manifest.chunkCount : fetch?.held ?? checkedOnDisk(message.id, chunks: manifest.chunkCount),
            sources: fetch?.sources ?? 0, refusedSources: fetch?.refused ?? 0,
            contentType: type.mime, isPicture: isPicture)
    }

    /// How many chunks a stopped fetch left checked on disk (`<id>.have`), before it goes on.
    private func checkedOnDisk(_ id: MessageID, chunks: Int) -> Int {
        guard let directory = configuration.files.directory,
            let marks = try? FileDescriptor(path: heldPath(id, in: directory) + ".have", writable: false).read(
                count: chunks, at: 0)
        else { return 0 }
        return marks.count { $0 == 1 }
    }

    func filesDirectory() throws -> String {
        guard let directory = configuration.files.directory else {
            throw NodeError.invalid("this node keeps no files (it was started without a file folder)")
        }
        return directory
    }

    func heldPath(_ id: MessageID, in directory: String) -> String { directory + "/" + id.hex }

    func checkCap(_ size: Int64) throws {
        let cap = configuration.files.maxFileBytes
        guard size <= cap else {
            throw NodeError.fileTooLarge(
                "the file is \(Self.byteCount(size)); this node's limit is \(Self.byteCount(cap))")
        }
    }

    /// Frees room for `size` more bytes under the quota by evicting the fetched files completed longest
    /// ago (never one sent from here or being fetched); throws when even that is not enough.
    func makeRoom(for size: Int64) async throws {
        let quota = configuration.files.quotaBytes
        var held = try store.allHeldFiles()
        var used = held.reduce(0) { $0 + $1.size }
        while used + size > quota {
            guard let victim = held.firstIndex(where: { !$0.sentHere && $0.holding == .held }) else {
                throw NodeError.fileTooLarge(
                    "the file store holds \(Self.byteCount(used)) of its \(Self.byteCount(quota)) and nothing more can be evicted for \(Self.byteCount(size))"
                )
            }
            let file = held.remove(at: victim)
            try? FileManager.default.removeItem(atPath: heldPath(file.id, in: try filesDirectory()))
            try await store.forgetFile(file.id)
            used -= file.size
            logger.info(
                "evicted a fetched file for room", metadata: ["file": "\(file.id.shortHex)", "bytes": "\(file.size)"])
        }
    }

    static func byteCount(_ bytes: Int64) -> String { MessageText.byteCount(UInt64(max(0, bytes))) }

    /// The leaves of a file on disk, read chunk by chunk (memory stays one chunk).
    static func leaves(reading file: FileDescriptor, of manifest: FileManifest) throws -> [Digest32] {
        try (0..<manifest.chunkCount).map { index in
            FileTree.leaf(
                try file.read(count: manifest.chunkLength(index), at: Int64(index) * Int64(FileManifest.chunkBytes)))
        }
    }

    static func regularFileSize(_ path: String) throws -> Int64 {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw NodeError.notFound("no file \(path)")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw NodeError.invalid("\(path) is not a regular file")
        }
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    static func leaves(of bytes: [UInt8]) -> [Digest32] {
        let count = FileManifest.chunkCount(size: UInt64(bytes.count))
        return (0..<count).map { index in
            let start = index * FileManifest.chunkBytes
            return FileTree.leaf(bytes[start..<min(bytes.count, start + FileManifest.chunkBytes)])
        }
    }

    /// Copies chunk by chunk (memory stays one chunk whatever the size), hashing each as it goes.
    static func copy(_ source: FileDescriptor, size: Int64, to path: String) throws -> [Digest32] {
        let out = try FileDescriptor(path: path, writable: true)
        let count = FileManifest.chunkCount(size: UInt64(size))
        var leaves: [Digest32] = []
        leaves.reserveCapacity(count)
        for index in 0..<count {
            let offset = Int64(index) * Int64(FileManifest.chunkBytes)
            let length = Int(min(Int64(FileManifest.chunkBytes), size - offset))
            let chunk = try source.read(count: length, at: offset)
            // A file cut short while read would be sent with chunks its manifest's size does not match.
            guard chunk.count == length else { throw NodeError.invalid("the file changed while it was read") }
            try out.write(chunk, at: offset)
            leaves.append(FileTree.leaf(chunk))
        }
        return leaves
    }
}
