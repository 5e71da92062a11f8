#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A dotted-quad IPv4 address as bytes, for the few socket options NIO takes as a raw `in_addr`.
struct IPv4Octets: Sendable {
    let bytes: (UInt8, UInt8, UInt8, UInt8)

    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var values: [UInt8] = []
        for part in parts {
            guard part.count <= 3, part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            values.append(value)
        }
        bytes = (values[0], values[1], values[2], values[3])
    }

    /// The address in network byte order, as `in_addr` holds it. (Its one field, `s_addr`, is not
    /// reachable by name here: NIO's C shim owns the declaration.)
    var inAddr: in_addr {
        let hostOrder = UInt32(bytes.0) << 24 | UInt32(bytes.1) << 16 | UInt32(bytes.2) << 8 | UInt32(bytes.3)
        return unsafeBitCast(hostOrder.bigEndian, to: in_addr.self)
    }
}
