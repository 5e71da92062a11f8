internal import CSodium

/// BLAKE2b (`crypto_generichash`), the hash behind message and chat ids.
public enum BLAKE2b {
    public static func hash256(_ data: [UInt8]) -> [UInt8] {
        _ = try? Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: 32)
        crypto_generichash(&out, 32, data, UInt64(data.count), nil, 0)
        return out
    }
}
