/// Lower-case hex, the form ids and keys take in text (CLI, key files, JSON).
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: some StringProtocol) throws(CryptoError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { throw .badEncoding("hex has an odd number of digits") }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else {
                throw .badEncoding("not a hex digit in \"\(text.prefix(16))…\"")
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    static func value(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Whether `text` is made only of hex digits (a possible id prefix).
    public static func isHexPrefix(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { value($0) != nil }
    }
}
