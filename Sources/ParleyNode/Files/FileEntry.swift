public import ParleyCore
public import ParleyStore

/// A file message as this node sees it: its manifest and how much of its bytes are here.
public struct FileEntry: Sendable {
    public let message: StoredMessage
    public let manifest: FileManifest
    public let holding: FileHolding?
    /// Chunks on disk and checked.
    public let heldChunks: Int
    /// Members being asked for chunks now (0 when no fetch runs).
    public let sources: Int
    /// Members whose chunks failed their check: asked nothing more for this file.
    public let refusedSources: Int
    /// The type decided from the bytes themselves once held (`ContentSniffer`), else the manifest's.
    public let contentType: String
    public let isPicture: Bool

    public var id: MessageID { message.id }
    public var isHeld: Bool { holding == .held }
    public var isFetching: Bool { holding == .partial }
    public var heldBytes: Int64 {
        isHeld ? Int64(manifest.size) : min(Int64(manifest.size), Int64(heldChunks) * Int64(FileManifest.chunkBytes))
    }
}
