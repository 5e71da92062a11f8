/// Every failure of the picture functions. Sniffing and sizing never fail (they answer octet-stream or nil);
/// what throws is cleaning and thumbnailing, whose input is a peer's or a user's file.
public enum MediaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The JPEG or PNG structure (markers, segment or chunk lengths) is broken; says where.
    case malformedPicture(String)
    /// The picture declares more pixels than `Thumbnail.maximumPixels`: refused before any pixel buffer is allocated.
    case pictureTooLarge(width: Int, height: Int)
    /// libturbojpeg or libpng could not decode the picture (their message).
    case undecodablePicture(String)
    /// libturbojpeg could not encode the thumbnail (its message).
    case thumbnailEncodingFailed(String)
    /// A thumbnail side below 1 or above `Thumbnail.maximumSide`: the caller's mistake, not the picture's.
    case invalidThumbnailSide(Int)

    public var description: String {
        switch self {
        case let .malformedPicture(reason): "malformed picture: \(reason)"
        case let .pictureTooLarge(width, height):
            "picture too large to decode: \(width)×\(height) is over \(Thumbnail.maximumPixels / 1_000_000) megapixels"
        case let .undecodablePicture(reason): "cannot decode the picture: \(reason)"
        case let .thumbnailEncodingFailed(reason): "cannot encode the thumbnail: \(reason)"
        case let .invalidThumbnailSide(side): "thumbnail side \(side) is outside 1...\(Thumbnail.maximumSide)"
        }
    }
}
