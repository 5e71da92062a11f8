import Foundation
import ParleyCore
import ParleyNode
import ParleyStore
import ParleyCrypto

/// A file or picture message as front ends show it (§13e): its manifest and what this node holds.
public struct FileView: Codable, Sendable, Hashable {
    public let id: String
    public let chat: String
    public let author: String
    public let authorName: String?
    public let timestampMillis: Int64
    /// Sanitised: no path, control or bidi characters, no leading dot.
    public let name: String
    public let size: UInt64
    /// The type decided from the bytes once held here, else the one the manifest names.
    public let type: String
    public let picture: Bool
    public let width: UInt32?
    public let height: UInt32?
    /// A small JPEG to show until the picture is fetched, base64; absent when the sender made none.
    public let thumbnail: String?
    public let caption: String
    /// "held" (whole here, and served to members), "fetching", or "remote" (not fetched).
    public let state: String
    public let heldBytes: Int64
    public let chunks: Int
    public let heldChunks: Int
    /// Members asked for chunks now, and members refused for a chunk that failed its check.
    public let sources: Int
    public let refusedSources: Int

    init(_ entry: FileEntry, names: [PeerID: String]) {
        let message = entry.message.message
        let manifest = entry.manifest
        id = message.id.hex
        chat = message.chat.hex
        author = message.author.hex
        authorName = names[message.author]
        timestampMillis = message.timestampMillis
        name = manifest.name
        size = manifest.size
        type = entry.contentType
        picture = entry.isPicture
        width = manifest.picture?.width
        height = manifest.picture?.height
        thumbnail = manifest.picture.flatMap { $0.thumbnail.isEmpty ? nil : Data($0.thumbnail).base64EncodedString() }
        caption = manifest.caption
        state = entry.isHeld ? "held" : entry.isFetching ? "fetching" : "remote"
        heldBytes = entry.heldBytes
        chunks = manifest.chunkCount
        heldChunks = entry.heldChunks
        sources = entry.sources
        refusedSources = entry.refusedSources
    }
}

/// `fileSave`'s result: where the copy was written.
public struct SavedFileView: Codable, Sendable, Hashable {
    public let file: FileView
    public let path: String
}
