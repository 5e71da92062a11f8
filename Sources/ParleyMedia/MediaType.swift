/// A file's MIME type, and whether Parley shows it as a picture.
///
/// `ContentSniffer` decides both from the bytes. A type taken on someone's word (a peer's manifest) is made
/// with `isPicture: false` until the bytes are held and sniffed.
public struct MediaType: Sendable, Hashable {
    public let mime: String
    public var isPicture: Bool

    public init(mime: String, isPicture: Bool) {
        self.mime = mime
        self.isPicture = isPicture
    }

    public static let png = MediaType(mime: "image/png", isPicture: true)
    public static let jpeg = MediaType(mime: "image/jpeg", isPicture: true)
    public static let gif = MediaType(mime: "image/gif", isPicture: true)
    public static let webp = MediaType(mime: "image/webp", isPicture: true)
    public static let pdf = MediaType(mime: "application/pdf", isPicture: false)
    public static let zip = MediaType(mime: "application/zip", isPicture: false)
    public static let gzip = MediaType(mime: "application/gzip", isPicture: false)
    public static let mpegAudio = MediaType(mime: "audio/mpeg", isPicture: false)
    public static let mp4 = MediaType(mime: "video/mp4", isPicture: false)
    public static let ogg = MediaType(mime: "audio/ogg", isPicture: false)
    public static let plainText = MediaType(mime: "text/plain", isPicture: false)
    public static let markdown = MediaType(mime: "text/markdown", isPicture: false)
    public static let csv = MediaType(mime: "text/csv", isPicture: false)
    public static let octetStream = MediaType(mime: "application/octet-stream", isPicture: false)
}
