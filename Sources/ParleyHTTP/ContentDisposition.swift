/// `Content-Disposition` for a served file (RFC 6266): an ASCII `filename` for old clients and the
/// exact name as `filename*` (RFC 8187, UTF-8 percent-encoded). The name is the manifest's, already
/// without paths or control characters; quotes and backslashes still cannot break out of the field.
enum ContentDisposition {
    /// `disposition` is "attachment" (saved, never shown) or "inline" (a picture shown by the page).
    static func value(_ disposition: String, name: String) -> String {
        "\(disposition); filename=\"\(asciiFallback(name))\"; filename*=UTF-8''\(percentEncoded(name))"
    }

    /// Printable ASCII kept, anything else `_`: `"` and `\` too, so the quoted string needs no escapes.
    static func asciiFallback(_ name: String) -> String {
        let kept = name.unicodeScalars.map { scalar -> String in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "\\"
                ? String(scalar) : "_"
        }
        return kept.joined()
    }

    /// RFC 8187's attr-char left as is, every other byte of the UTF-8 as `%XX`.
    static func percentEncoded(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            if attrChars.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    private static let attrChars: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~".utf8))
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
