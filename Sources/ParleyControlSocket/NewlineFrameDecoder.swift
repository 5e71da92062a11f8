import NIOCore

/// Splits a byte stream into lines at "\n" (a trailing "\r" is dropped too). A line longer than
/// `maxLength` fails the connection, so a peer cannot make us buffer without bound.
struct NewlineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = String

    static let defaultMaxLength = 1 << 20
    /// Requests (client to server) are short; a server's answer may be a whole chat history.
    static let requestLimit = defaultMaxLength
    static let responseLimit = 256 << 20

    let maxLength: Int
    /// How far the buffer is known to hold no newline, so a long line is scanned once, not per read.
    private var scanned = 0

    init(maxLength: Int = Self.defaultMaxLength) {
        self.maxLength = maxLength
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let newline = view[(view.startIndex + scanned)...].firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = view.count
            guard view.count <= maxLength else { throw ControlSocketError.lineTooLong(limit: maxLength) }
            return .needMoreData
        }
        let length = newline - view.startIndex
        guard length <= maxLength else { throw ControlSocketError.lineTooLong(limit: maxLength) }
        scanned = 0
        fireLine(context: context, buffer: &buffer, length: length)
        buffer.moveReaderIndex(forwardBy: 1)
        return .continue
    }

    /// At end of stream an unterminated last line is still a line.
    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if seenEOF, buffer.readableBytes > 0 {
            fireLine(context: context, buffer: &buffer, length: buffer.readableBytes)
        }
        return .needMoreData
    }

    /// Consumes `length` bytes as one line.
    private func fireLine(context: ChannelHandlerContext, buffer: inout ByteBuffer, length: Int) {
        let bytes = buffer.readableBytesView.prefix(length)
        let content = bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes
        context.fireChannelRead(Self.wrapInboundOut(String(decoding: content, as: UTF8.self)))
        buffer.moveReaderIndex(forwardBy: length)
    }
}

/// Writes each string followed by "\n".
struct NewlineFrameEncoder: MessageToByteEncoder {
    typealias OutboundIn = String

    func encode(data: String, out: inout ByteBuffer) {
        out.writeString(data)
        out.writeInteger(UInt8(ascii: "\n"))
    }

    /// A line must not contain the delimiter, and must fit the other side's limit.
    static func check(_ line: String, maxLength: Int = NewlineFrameDecoder.defaultMaxLength) throws(ControlSocketError)
    {
        guard line.utf8.count <= maxLength else { throw .lineTooLong(limit: maxLength) }
        guard !line.utf8.contains(UInt8(ascii: "\n")) else { throw .invalidLine("a line must not contain a newline") }
    }
}
