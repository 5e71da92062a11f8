public import ParleyCrypto

/// Message content in a keyed chat: `u32 epoch || nonce (24) || XChaCha20-Poly1305(content) || tag (16)`,
/// bound to the chat, author and sequence. Only "Membership" messages travel unsealed, as they
/// carry the keys themselves. Tags and references stay readable: criteria queries and tallies run on them.
public enum SealedContent {
    public static let overheadBytes = 4 + ChatKey.nonceByteCount + ChatKey.tagByteCount
    /// The largest content a keyed chat's message can carry once sealed.
    public static let maxPlaintextBytes = Message.maxContentBytes - overheadBytes
    private static let label = Array("parley content v1".utf8)

    public static func isSealed(_ tag: Tag, inKeyedChat keyed: Bool) -> Bool { keyed && tag != .membership }

    public static func seal(_ plaintext: [UInt8], with key: EpochKey, chat: ChatID, author: PeerID, sequence: UInt64)
        -> [UInt8]
    {
        var out: [UInt8] = []
        withUnsafeBytes(of: key.epoch.bigEndian) { out.append(contentsOf: $0) }
        return out
            + key.key.seal(
                plaintext,
                associatedData: associatedData(chat: chat, author: author, sequence: sequence, epoch: key.epoch))
    }

    /// The epoch a sealed content claims, or nil if it is too short to be sealed content.
    public static func epoch(of content: [UInt8]) -> UInt32? {
        guard content.count >= overheadBytes else { return nil }
        return content[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// Opens with the first of `keys` (the keys held for the content's epoch) that authenticates it.
    public static func open(_ content: [UInt8], keys: [ChatKey], chat: ChatID, author: PeerID, sequence: UInt64)
        -> [UInt8]?
    {
        guard let epoch = epoch(of: content) else { return nil }
        let data = associatedData(chat: chat, author: author, sequence: sequence, epoch: epoch)
        for key in keys {
            if let plain = try? key.open(content.dropFirst(4), associatedData: data) { return plain }
        }
        return nil
    }

    private static func associatedData(chat: ChatID, author: PeerID, sequence: UInt64, epoch: UInt32) -> [UInt8] {
        var data = label
        data.reserveCapacity(label.count + 2 * Bytes32.count + 12)
        data.append(chat.bytes)
        data.append(author.bytes)
        withUnsafeBytes(of: sequence.bigEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: epoch.bigEndian) { data.append(contentsOf: $0) }
        return data
    }
}

extension Message {
    /// The same signed message as read by a member: `content` opened, `encoded` still the wire form.
    public func opened(content plaintext: [UInt8]) -> Message {
        var draft = self.draft
        draft.content = plaintext
        return Message(draft: draft, signature: signature, encoded: encoded, id: id)
    }
}
