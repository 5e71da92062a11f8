// Temporary local stand-in, replaced by the helper's module before commit.
public struct MediaType: Sendable, Hashable {
    public let mime: String; public var isPicture: Bool
    public init(mime: String, isPicture: Bool) { self.mime = mime; self.isPicture = isPicture }
}
public enum ContentSniffer {
    public static func type(of prefix: [UInt8], name: String) -> MediaType {
        if prefix.starts(with: [0xFF, 0xD8, 0xFF]) { return MediaType(mime: "image/jpeg", isPicture: true) }
        return MediaType(mime: "application/octet-stream", isPicture: false)
    }
}
public enum MediaError: Error { case malformedPicture(String) }
public enum PictureCleaner {
    public static func stripMetadata(_ bytes: [UInt8]) throws(MediaError) -> [UInt8] { bytes }
}
public struct PictureSize: Sendable, Hashable { public let width: Int; public let height: Int }
public enum PictureInfo {
    public static func size(of bytes: [UInt8]) -> PictureSize? { PictureSize(width: 1, height: 1) }
}
public enum Thumbnail {
    public static func make(from bytes: [UInt8], maxSide: Int = 96) throws(MediaError) -> [UInt8]? { nil }
}
