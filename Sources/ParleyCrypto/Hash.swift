internal import CSodium

/// BLAKE2b (`crypto_generichash`), the hash behind message and chat ids.
public enum BLAKE2b {
    public static func hash256(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { hash256Inline($0) }.array
    }

    /// BLAKE2b-256 written straight into inline storage (an id's), with no array on either side.
    public static func hash256Inline(_ data: UnsafeRawBufferPointer) -> Bytes32 {
        _ = try? Sodium.ensureInitialised()
        return Bytes32 { out in
            _ = crypto_generichash(
                out, 32, data.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(data.count), nil, 0)
        }
    }

    /// Keyed BLAKE2b-256 (`crypto_generichash` with a key of 16 to 64 bytes): a publisher's salted
    /// commitment to a ballot (docs/BALLOTS.md §4).
    public static func keyedHash256(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        precondition((16...64).contains(key.count), "a BLAKE2b key is 16 to 64 bytes")
        _ = try? Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&out, 32, data, UInt64(data.count), key, key.count)
        return out
    }
}
