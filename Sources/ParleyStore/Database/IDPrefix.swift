internal import Foundation
internal import GRDB
import ParleyCore
import ParleyCrypto

/// A git-style abbreviated id: the hex prefix becomes a BLOB range [lower, upper), so resolving it is a
/// primary-key range search, not a scan. Odd lengths work: "abc" spans ab c0… to ab cf….
struct IDPrefix {
    let text: String
    let lower: Data
    /// Exclusive; nil when the prefix is all f's and the range runs to the end.
    let upper: Data?

    init(_ raw: String) throws(StoreError) {
        let text = raw.trimmingCharacters(in: .whitespaces).lowercased()
        guard Hex.isHexPrefix(text), text.utf8.count <= Digest32.byteCount * 2 else { throw .invalidPrefix(raw) }
        let even = text.utf8.count.isMultiple(of: 2)
        do {
            lower = Data(try Hex.decode(even ? text : text + "0"))
            upper = Self.successor(of: try Hex.decode(even ? text : text + "f"))
        } catch {
            throw .invalidPrefix(raw)
        }
        self.text = text
    }

    /// The smallest byte string greater than every string that starts with `bytes`, if any.
    private static func successor(of bytes: [UInt8]) -> Data? {
        var bytes = bytes
        while let last = bytes.last {
            if last < 0xff {
                bytes[bytes.count - 1] = last + 1
                return Data(bytes)
            }
            bytes.removeLast()
        }
        return nil
    }

    /// Ids in `table.id` within the range and matching `filter` (SQL starting with AND): at most two,
    /// plus the total count when there are several, for the error message.
    func matches(
        _ db: Database, table: String, filter: String = "", arguments: StatementArguments = []
    ) throws -> (ids: [Data], count: Int) {
        var condition = "id >= ?"
        var bounds: StatementArguments = [lower]
        if let upper {
            condition += " AND id < ?"
            bounds += [upper]
        }
        let sql = "FROM \(table) WHERE \(condition) \(filter)"
        let ids = try Data.fetchAll(db, sql: "SELECT id \(sql) LIMIT 2", arguments: bounds + arguments)
        let count =
            ids.count < 2
            ? ids.count : try Int.fetchOne(db, sql: "SELECT COUNT(*) \(sql)", arguments: bounds + arguments) ?? 0
        return (ids, count)
    }

    /// The one id matched, or a clear error naming what was looked for.
    func unique(_ matches: (ids: [Data], count: Int), kind: String) throws(StoreError) -> Digest32 {
        guard let first = matches.ids.first else { throw .noMatch(kind, prefix: text) }
        guard matches.count == 1 else { throw .ambiguous(kind, prefix: text, count: matches.count) }
        return try Digest32.fromBlob(first, "\(kind) id")
    }
}
