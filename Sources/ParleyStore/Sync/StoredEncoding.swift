public import ParleyCore

/// A stored message as a sync reply sends it: its signed wire form, and what the reply is cut by.
/// Read without decoding or hashing the encoding: the store checked it when it stored it, and the
/// receiver checks it again. Serving a catch-up, decoding every message only to send its bytes cost
/// the holder half of each page's read.
public struct StoredEncoding: Sendable, Hashable {
    public let id: MessageID
    public let sequence: UInt64
    /// Whether it carries its author's signature (`Message.isHead`).
    public let isHead: Bool
    public let encoded: [UInt8]
}
