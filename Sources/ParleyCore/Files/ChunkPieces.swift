/// Chunk envelopes travel in pieces that fit one datagram each (PROTOCOL.md §13e): a lost datagram
/// costs one piece, asked for again by the fetcher's want mask, never the whole 64 KiB chunk.
public enum ChunkPieces {
    /// A piece frame's header (file, chunk, piece, count) and its body fit `Frame.datagramBudget`.
    public static let pieceBytes = 1_140
    /// A want's mask has one bit per piece.
    public static let maxPieces = 64

    public static func count(envelopeBytes: Int) -> Int { max(1, (envelopeBytes + pieceBytes - 1) / pieceBytes) }

    /// Piece `piece` of `envelope`.
    public static func piece(_ piece: Int, of envelope: [UInt8]) -> ArraySlice<UInt8> {
        let start = piece * pieceBytes
        return envelope[start..<min(envelope.count, start + pieceBytes)]
    }

    /// The mask naming every piece of a chunk of `count` pieces.
    public static func allPieces(_ count: Int) -> UInt64 { count >= 64 ? .max : (1 << UInt64(count)) - 1 }
}

/// "Send me these pieces of this chunk": a bit per piece, bit 0 the first.
public struct ChunkWant: Sendable, Hashable {
    public let chunk: UInt32
    public let pieces: UInt64

    public init(chunk: UInt32, pieces: UInt64) {
        self.chunk = chunk
        self.pieces = pieces
    }

    public static let encodedCount = 12
    public static let maxPerFrame = 64
}

/// One piece of a chunk envelope.
public struct FilePiece: Sendable, Hashable {
    public let file: MessageID
    public let chunk: UInt32
    public let piece: UInt8
    /// How many pieces the envelope has: the fetcher learns the envelope's length from the last one.
    public let pieces: UInt8
    public let bytes: [UInt8]

    public init(file: MessageID, chunk: UInt32, piece: UInt8, pieces: UInt8, bytes: [UInt8]) {
        self.file = file
        self.chunk = chunk
        self.piece = piece
        self.pieces = pieces
        self.bytes = bytes
    }
}
