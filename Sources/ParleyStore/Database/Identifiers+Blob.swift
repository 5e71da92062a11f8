internal import Foundation
import ParleyCore
import ParleyCrypto

// Ids and keys are 32-byte BLOBs: half the size of hex, and byte order is their `Comparable` order.

extension Digest32 {
    var blob: Data { bytes.withUnsafeBytes { Data($0) } }

    static func fromBlob(_ blob: Data, _ what: String) throws(StoreError) -> Digest32 {
        do { return try Digest32(rawRepresentation: blob) } catch { throw .corrupt("\(what): \(error)") }
    }
}

extension SigningPublicKey {
    var blob: Data { bytes.withUnsafeBytes { Data($0) } }

    static func fromBlob(_ blob: Data, _ what: String) throws(StoreError) -> SigningPublicKey {
        do { return try SigningPublicKey(rawRepresentation: blob) } catch { throw .corrupt("\(what): \(error)") }
    }
}

extension Data {
    /// The first bytes in hex, for error messages about rows whose id may itself be bad.
    var hexPrefix: String { Hex.encode(prefix(6)) }
}
