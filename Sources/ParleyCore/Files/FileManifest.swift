import NIOCore

/// A file or picture as a chat message (tag "File", PROTOCOL.md §13e): what it is and the root of the
/// hash tree over its chunks. The bytes travel apart, as sealed chunks fetched from any member holding
/// the file (`ChunkEnvelope`); the signed manifest is what makes each of them checkable.
public struct FileManifest: Sendable, Hashable {
    public static let formatVersion: UInt8 = 1
    /// Every chunk holds this many bytes but the last, which holds the rest (at least one chunk: an
    /// empty file is one empty chunk).
    public static let chunkBytes = 65_536
    /// The protocol's bound (a node's own cap is lower, `NodeConfiguration.Files`): 2^24 chunks.
    public static let maxFileBytes: UInt64 = 1 << 40
    public static let maxTypeBytes = 100
    public static let maxCaptionBytes = 4_096
    public static let maxThumbnailBytes = 8_000
    public static let maxPictureSide: UInt32 = 100_000

    /// For pictures: the size in pixels and a small JPEG to show until the picture itself is fetched.
    public struct Picture: Sendable, Hashable {
        public var width: UInt32
        public var height: UInt32
        /// Empty when no thumbnail could be made.
        public var thumbnail: [UInt8]

        public init(width: UInt32, height: UInt32, thumbnail: [UInt8]) {
            self.width = width
            self.height = height
            self.thumbnail = thumbnail
        }
    }

    /// Sanitised (`FileName`): a manifest with any other name is refused.
    public var name: String
    public var size: UInt64
    /// The MIME type its sender saw by content; a fetching node decides again from the bytes.
    public var type: String
    public var root: Digest32
    public var picture: Picture?
    public var caption: String

    public init(name: String, size: UInt64, type: String, root: Digest32, picture: Picture? = nil, caption: String = "")
        throws(CoreError)
    {
        self.name = name
        self.size = size
        self.type = type
        self.root = root
        self.picture = picture
        self.caption = caption
        try validate()
    }

    public var chunkCount: Int { Self.chunkCount(size: size) }

    public static func chunkCount(size: UInt64) -> Int {
        max(1, Int((size + UInt64(chunkBytes) - 1) / UInt64(chunkBytes)))
    }

    /// The byte count of chunk `index`: the last one holds what remains.
    public func chunkLength(_ index: Int) -> Int {
        let start = UInt64(index) * UInt64(Self.chunkBytes)
        return Int(min(UInt64(Self.chunkBytes), size - min(size, start)))
    }

    private func validate() throws(CoreError) {
        // Clamped: a size from the wire can be beyond Int, and converting it as is would trap.
        guard size <= Self.maxFileBytes else {
            throw .tooLarge("file", limit: Int(Self.maxFileBytes), actual: Int(clamping: size))
        }
        guard !name.isEmpty, name.utf8.count <= FileName.maxBytes, FileName.isSanitized(name) else {
            throw .invalid(
                "a file name must be 1 to \(FileName.maxBytes) bytes with no path, control or bidi characters and no leading dot"
            )
        }
        guard Self.isMediaType(type) else { throw .invalid("file type \"\(type)\" is not a MIME type") }
        guard caption.utf8.count <= Self.maxCaptionBytes else {
            throw .tooLarge("file caption", limit: Self.maxCaptionBytes, actual: caption.utf8.count)
        }
        if let picture {
            guard (1...Self.maxPictureSide).contains(picture.width), (1...Self.maxPictureSide).contains(picture.height)
            else { throw .invalid("picture size \(picture.width)×\(picture.height) is out of range") }
            guard picture.thumbnail.count <= Self.maxThumbnailBytes else {
                throw .tooLarge("thumbnail", limit: Self.maxThumbnailBytes, actual: picture.thumbnail.count)
            }
        }
    }

    /// `type/subtype` in lower-case ASCII letters, digits and `.+-`, at most `maxTypeBytes`.
    static func isMediaType(_ type: String) -> Bool {
        let parts = type.split(separator: "/", omittingEmptySubsequences: false)
        guard type.utf8.count <= maxTypeBytes, parts.count == 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty
                && part.utf8.allSatisfy {
                    (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2B || $0 == 0x2D
                }
        }
    }
}

extension FileManifest {
    private enum Flag {
        static let picture: UInt8 = 1
    }

    /// `u8 version ‖ u8 flags ‖ short name ‖ u64 size ‖ short type ‖ root (32) ‖ long caption
    /// [‖ u32 width ‖ u32 height ‖ u16 thumbnail length ‖ thumbnail]` (the picture part when flag 1 is set).
    public var encoded: [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeInteger(Self.formatVersion)
        buffer.writeInteger(picture == nil ? 0 : Flag.picture)
        buffer.writeShortString(name)
        buffer.writeInteger(size, endianness: .big)
        buffer.writeShortString(type)
        buffer.writeBytes32(root.bytes)
        buffer.writeLongString(caption)
        if let picture {
            buffer.writeInteger(picture.width, endianness: .big)
            buffer.writeInteger(picture.height, endianness: .big)
            buffer.writeInteger(UInt16(picture.thumbnail.count), endianness: .big)
            buffer.writeBytes(picture.thumbnail)
        }
        return Array(buffer.readableBytesView)
    }

    /// Decodes and checks a manifest; every bound is checked before anything is allocated for the file.
    public init(decoding bytes: [UInt8]) throws(CoreError) {
        var buffer = ByteBuffer(bytes: bytes)
        let version = try buffer.readU8("file manifest version")
        guard version == Self.formatVersion else { throw .malformed("unknown file manifest version \(version)") }
        let flags = try buffer.readU8("file manifest flags")
        guard flags & ~Flag.picture == 0 else { throw .malformed("unknown file manifest flags \(flags)") }
        let name = try buffer.readShortString("file name")
        let size = try buffer.readU64("file size")
        let type = try buffer.readShortString("file type")
        let root = try buffer.readDigest("file root")
        let caption = try buffer.readLongString("file caption")
        var picture: Picture?
        if flags & Flag.picture != 0 {
            let width = try buffer.readU32("picture width")
            let height = try buffer.readU32("picture height")
            let length = Int(try buffer.readU16("thumbnail length"))
            guard length <= Self.maxThumbnailBytes else {
                throw .tooLarge("thumbnail", limit: Self.maxThumbnailBytes, actual: length)
            }
            picture = Picture(width: width, height: height, thumbnail: try buffer.readExactly(length, "thumbnail"))
        }
        try buffer.expectFullyRead("file manifest")
        try self.init(name: name, size: size, type: type, root: root, picture: picture, caption: caption)
    }
}
