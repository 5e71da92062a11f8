internal import GRDB
import ParleyCore

/// Every failure of the store, with a message a person can act on. SQLite details are kept as text
/// so the error stays `Sendable` and callers never need to import GRDB.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Base: Hashable, Sendable {
        case cannotOpen(path: String, reason: String)
        case notADatabase(path: String)
        case newerSchema(path: String, migrations: [String])
        case olderWireProtocol(path: String, version: Int)
        case database(context: String, reason: String)
        case corrupt(String)
        case invalidPrefix(String)
        case noMatch(kind: String, prefix: String)
        case ambiguous(kind: String, prefix: String, count: Int)
        case unknownMessage(String)
        case unknownInvite(String)
        case nameTaken(name: String, owner: String)
        case invalid(String)
    }

    private let base: Base
    private init(_ base: Base) { self.base = base }

    static func cannotOpen(path: String, reason: String) -> StoreError {
        StoreError(.cannotOpen(path: path, reason: reason))
    }
    static func notADatabase(path: String) -> StoreError { StoreError(.notADatabase(path: path)) }
    static func newerSchema(path: String, migrations: [String]) -> StoreError {
        StoreError(.newerSchema(path: path, migrations: migrations.sorted()))
    }
    static func olderWireProtocol(path: String, version: Int) -> StoreError {
        StoreError(.olderWireProtocol(path: path, version: version))
    }
    /// The same error naming the store's path, for one raised where the path is not known (a migration).
    func located(at path: String) -> StoreError {
        if case let .olderWireProtocol(_, version) = base { return .olderWireProtocol(path: path, version: version) }
        return self
    }
    static func corrupt(_ reason: String) -> StoreError { StoreError(.corrupt(reason)) }
    static func invalidPrefix(_ prefix: String) -> StoreError { StoreError(.invalidPrefix(prefix)) }
    static func noMatch(_ kind: String, prefix: String) -> StoreError {
        StoreError(.noMatch(kind: kind, prefix: prefix))
    }
    static func ambiguous(_ kind: String, prefix: String, count: Int) -> StoreError {
        StoreError(.ambiguous(kind: kind, prefix: prefix, count: count))
    }
    static func unknownMessage(_ id: String) -> StoreError { StoreError(.unknownMessage(id)) }
    static func unknownInvite(_ id: String) -> StoreError { StoreError(.unknownInvite(id)) }
    static func nameTaken(_ name: String, owner: String) -> StoreError {
        StoreError(.nameTaken(name: name, owner: owner))
    }
    static func invalid(_ reason: String) -> StoreError { StoreError(.invalid(reason)) }

    /// Wraps any error raised while touching the database, naming what was being done.
    static func database(_ context: String, _ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            let reason =
                error.message.map { "\($0) (SQLite code \(error.extendedResultCode.rawValue))" } ?? error.description
            return StoreError(.database(context: context, reason: reason))
        }
        return StoreError(.database(context: context, reason: String(describing: error)))
    }

    /// What kind of failure this is, for callers that answer differently (not found, conflict, …).
    public enum Kind: String, Hashable, Sendable {
        /// The store cannot be opened or used (missing, not a database, from a newer Parley, I/O).
        case unavailable
        /// Stored data breaks an invariant.
        case corrupt
        /// No message or chat matches what was named.
        case notFound
        /// What was named is not valid, or matches more than one thing.
        case invalid
        /// The change clashes with what is stored (a contact name another peer has).
        case conflict
    }

    public var kind: Kind {
        switch base {
        case .cannotOpen, .notADatabase, .newerSchema, .olderWireProtocol, .database: .unavailable
        case .corrupt: .corrupt
        case .noMatch, .unknownMessage, .unknownInvite: .notFound
        case .invalidPrefix, .ambiguous, .invalid: .invalid
        case .nameTaken: .conflict
        }
    }

    /// No message or chat matched a prefix.
    public var isNoMatch: Bool { if case .noMatch = base { true } else { false } }
    /// A prefix matched more than one message or chat.
    public var isAmbiguous: Bool { if case .ambiguous = base { true } else { false } }
    /// The store was written by a newer Parley.
    public var isNewerSchema: Bool { if case .newerSchema = base { true } else { false } }
    /// The contact name belongs to another peer.
    public var isNameTaken: Bool { if case .nameTaken = base { true } else { false } }

    public var description: String {
        switch base {
        case let .cannotOpen(path, reason): "cannot open store at \(path): \(reason)"
        case let .notADatabase(path):
            "store at \(path) is not a Parley database (not SQLite, or corrupt); refusing to touch it"
        case let .newerSchema(path, migrations):
            "store at \(path) was written by a newer Parley (schema \(migrations.joined(separator: ", "))); upgrade Parley"
        case let .olderWireProtocol(path, version):
            "store at \(path) holds chats of wire protocol \(version), which this Parley (wire protocol \(WireVersion.current)) and its peers refuse; "
                + "it was left untouched: keep it with the Parley that wrote it, or start this one with a new --data directory"
        case let .database(context, reason): "store error while \(context): \(reason)"
        case let .corrupt(reason): "store is corrupt: \(reason)"
        case let .invalidPrefix(prefix): "'\(prefix)' is not a hex id prefix"
        case let .noMatch(kind, prefix): "no \(kind) matches id prefix '\(prefix)'"
        case let .ambiguous(kind, prefix, count): "id prefix '\(prefix)' is ambiguous: matches \(count) \(kind)s"
        case let .unknownMessage(id): "no message \(id) in the store"
        case let .unknownInvite(id): "no pending invite \(id.prefix(12)) (see 'parley invites')"
        case let .nameTaken(name, owner): "the contact name '\(name)' is already used by peer \(owner)"
        case let .invalid(reason): reason
        }
    }
}
