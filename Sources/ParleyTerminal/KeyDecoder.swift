/// Turns terminal input bytes into keys. Reads may split an escape sequence or a UTF-8 character;
/// the incomplete tail is kept until the next `decode`. Unknown sequences are dropped whole.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// Whether an incomplete sequence is waiting for more bytes (a lone ESC is one: it may start a sequence).
    public var hasPending: Bool { !pending.isEmpty }

    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = Self.key(in: pending[index...]) else { break } // incomplete: wait
            if let key { keys.append(key) }
            index += length
        }
        pending.removeFirst(index)
        return keys
    }

    /// The pending lone ESC as the Escape key, once no more bytes followed it.
    public mutating func flush() -> [Key] {
        defer { pending = [] }
        return pending == [0x1B] ? [.escape] : []
    }

    /// The key at the start of `bytes` and how many bytes it took (a nil key for bytes dropped),
    /// or nil when more bytes are needed.
    private static func key(in bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let start = bytes.startIndex
        let byte = bytes[start]
        switch byte {
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x1B: return escape(bytes)
        case 0x01...0x1A: return (.control(Character(Unicode.Scalar(byte + 0x60))), 1)
        case 0x00, 0x1C...0x1F: return (nil, 1)
        case 0x20...0x7E: return (.character(Character(Unicode.Scalar(byte))), 1)
        default: return utf8(bytes)
        }
    }

    private static func escape(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let start = bytes.startIndex
        guard bytes.count > 1 else { return nil }
        let introducer = bytes[start + 1]
        switch introducer {
        case UInt8(ascii: "["): return controlSequence(bytes)
        case UInt8(ascii: "O"):
            guard bytes.count > 2 else { return nil }
            let keys: [UInt8: Key] = [0x41: .up, 0x42: .down, 0x43: .right, 0x44: .left, 0x48: .home, 0x46: .end]
            return (keys[bytes[start + 2]], 3)
        case 0x1B: return (.escape, 1) // ESC ESC: the first is a lone Escape
        default: return (.escape, 1) // Alt+key: Escape, then the key on its own
        }
    }

    /// `ESC [ parameters final`: parameters 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E.
    private static func controlSequence(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let start = bytes.startIndex
        var index = start + 2
        while index < bytes.endIndex, (0x20...0x3F).contains(bytes[index]) { index += 1 }
        guard index < bytes.endIndex else { return bytes.count > 32 ? (nil, bytes.count) : nil }
        let final = bytes[index]
        let length = index - start + 1
        guard (0x40...0x7E).contains(final) else { return (nil, length - 1) } // malformed: drop up to the stray byte
        let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
        let first = parameters.split(separator: ";").first.flatMap { Int($0) }
        switch final {
        case UInt8(ascii: "A"): return (.up, length)
        case UInt8(ascii: "B"): return (.down, length)
        case UInt8(ascii: "C"): return (.right, length)
        case UInt8(ascii: "D"): return (.left, length)
        case UInt8(ascii: "H"): return (.home, length)
        case UInt8(ascii: "F"): return (.end, length)
        case UInt8(ascii: "Z"): return (.backTab, length)
        case UInt8(ascii: "~"):
            let keys: [Int: Key] = [1: .home, 7: .home, 4: .end, 8: .end, 3: .delete, 5: .pageUp, 6: .pageDown]
            return (first.flatMap { keys[$0] }, length)
        default: return (nil, length)
        }
    }

    private static func utf8(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let lead = bytes[bytes.startIndex]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return (nil, 1) // a stray continuation byte or an invalid lead
        }
        let available = bytes.prefix(length)
        for (offset, byte) in available.enumerated() where offset > 0 && byte & 0xC0 != 0x80 {
            return (nil, offset) // truncated character: drop it, keep what follows
        }
        guard available.count == length else { return nil }
        guard let scalar = String(validating: available, as: UTF8.self)?.first else { return (nil, length) }
        return (.character(scalar), length)
    }
}
