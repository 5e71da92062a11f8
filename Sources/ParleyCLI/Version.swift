import ParleyCore

/// What `parley --version` prints: the release, and the wire protocol version its datagrams carry
/// (nodes of another wire version reject each other's datagrams, PROTOCOL.md).
enum ParleyVersion {
    /// This release of Parley. Raised with each release.
    static let release = "0.2.0"

    static let description = "parley \(release) (wire protocol \(WireVersion.current))"
}
