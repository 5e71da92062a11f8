import NIOCore
public import ParleyCrypto

/// A chat key and the membership epoch it belongs to: epoch 0 comes with the invite, each
/// membership change starts the next one with a fresh key.
public struct EpochKey: Sendable {
    public let epoch: UInt32
    public let key: ChatKey

    public init(epoch: UInt32, key: ChatKey) {
        self.epoch = epoch
        self.key = key
    }
}

/// One member's share of a chat's keys: the (epoch, key) pairs, in a box sealed to the member's
/// identity (`crypto_box_seal` to its X25519 key), so only that member can open it.
public enum KeyGrant {
    static let entryBytes = 4 + ChatKey.byteCount
    /// 48 bytes of sealed-box overhead around the entries.
    public static let overheadBytes = 48

    /// Seals `keys` to `member`; throws when the member's key cannot be converted to X25519.
    public static func seal(_ keys: [EpochKey], to member: PeerID) throws(CoreError) -> [UInt8] {
        var plain: [UInt8] = []
        plain.reserveCapacity(keys.count * entryBytes)
        for entry in keys {
            withUnsafeBytes(of: entry.epoch.bigEndian) { plain.append(contentsOf: $0) }
            entry.key.withRawBytes { plain.append(contentsOf: $0) }
        }
        defer { for index in plain.indices { plain[index] = 0 } }
        do { return try member.agreementKey().seal(plain) } catch {
            throw .invalid("member \(member.shortHex) has a key that cannot receive a sealed box: \(error)")
        }
    }

    /// Opens a grant sealed to `identity`. A grant that does not open, or whose contents are not
    /// whole entries, is an error: the chat's creator made it, and no key is trusted from it.
    public static func open(_ grant: [UInt8], with identity: Identity) throws(CoreError) -> [EpochKey] {
        var plain: [UInt8]
        do { plain = try identity.openSealed(grant) } catch { throw .invalid("a key grant does not open: \(error)") }
        defer { for index in plain.indices { plain[index] = 0 } }
        guard !plain.isEmpty, plain.count % entryBytes == 0 else { throw .malformed("key grant length \(plain.count)") }
        var keys: [EpochKey] = []
        for start in stride(from: 0, to: plain.count, by: entryBytes) {
            let epoch = plain[start..<start + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            do {
                keys.append(
                    EpochKey(
                        epoch: epoch, key: try ChatKey(rawRepresentation: Array(plain[start + 4..<start + entryBytes])))
                )
            } catch {
                throw .malformed("key grant entry: \(error)")
            }
        }
        return keys
    }

    /// Each grant behind a u16 length, in member order.
    static func write(_ grants: [[UInt8]], to buffer: inout ByteBuffer) {
        for grant in grants {
            buffer.writeInteger(UInt16(grant.count), endianness: .big)
            buffer.writeBytes(grant)
        }
    }

    static func read(count: Int, from buffer: inout ByteBuffer) throws(CoreError) -> [[UInt8]] {
        var grants: [[UInt8]] = []
        grants.reserveCapacity(count)
        for _ in 0..<count {
            let length = Int(try buffer.readU16("key grant length"))
            guard length > overheadBytes else { throw .malformed("key grant of \(length) bytes") }
            grants.append(try buffer.readExactly(length, "key grant"))
        }
        return grants
    }
}
