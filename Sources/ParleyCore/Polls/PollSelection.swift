import NIOCore

/// The content of a "PollVote" message: the author's whole selection of option ids.
/// An empty selection withdraws the author's vote.
public enum PollSelection {
    public static let maxIDs = PollSpec.maxTotalOptions

    /// u8 count, then each option id as u8 length + UTF-8.
    public static func encode(_ ids: [String]) throws(CoreError) -> [UInt8] {
        guard ids.count <= maxIDs else { throw .invalid("a vote names at most \(maxIDs) options") }
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt8(ids.count))
        for id in ids {
            guard !id.isEmpty, id.utf8.count <= 64 else { throw .invalid("option id '\(id)' is not valid") }
            buffer.writeShortString(id)
        }
        return Array(buffer.readableBytesView)
    }

    public static func decode(_ content: [UInt8]) throws(CoreError) -> [String] {
        var buffer = ByteBuffer(bytes: content)
        let count = Int(try buffer.readU8("selection count"))
        var ids: [String] = []
        for _ in 0..<count { ids.append(try buffer.readShortString("option id")) }
        try buffer.expectFullyRead("selection")
        return ids
    }
}
