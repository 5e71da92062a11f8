import Foundation
internal import ParleyNode
import ParleyCore
import ParleyCrypto
import ParleyStore

/// A failed request as every front end reports it: a kind a caller can tell apart, and one line of
/// message. The CLI turns the kind into its exit code, an HTTP front end into its status.
public struct APIFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        /// Bad input, or a rule refuses the request.
        case invalid
        /// No such chat, message, contact or option.
        case notFound
        /// This user is not a member of the chat.
        case forbidden
        /// The request clashes with what is already there (a second vote, a taken name, a vetoed send).
        case conflict
        /// The node cannot serve it now (its store cannot be used).
        case unavailable
        /// A failure of the node itself.
        case `internal`

        /// The HTTP status an HTTP front end answers with.
        public var httpStatus: Int {
            switch self {
            case .invalid: 400
            case .forbidden: 403
            case .notFound: 404
            case .conflict: 409
            case .internal: 500
            case .unavailable: 503
            }
        }

        /// The exit code of a CLI command that failed so (1 stays for failures outside the API).
        public var exitCode: Int32 {
            switch self {
            case .internal: 1
            case .invalid: 2
            case .notFound: 3
            case .forbidden: 4
            case .conflict: 5
            case .unavailable: 6
            }
        }
    }

    public let kind: Kind
    public let message: String
    public var description: String { message }

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// Classifies what the node, the store, the codecs or the request decoder threw.
    public init(_ error: any Error) {
        switch error {
        case let failure as APIFailure: self = failure
        case let error as NodeError: self.init(kind: Self.kind(of: error.kind), message: error.description)
        case let error as StoreError: self.init(kind: Self.kind(of: error.kind), message: error.description)
        case is CoreError, is CryptoError, is DecodingError:
            self.init(kind: .invalid, message: String(describing: error))
        default: self.init(kind: .internal, message: String(describing: error))
        }
    }

    private static func kind(of kind: NodeError.Kind) -> Kind {
        switch kind {
        case .notFound: .notFound
        case .invalid, .notAPoll, .refusedElectorate: .invalid
        case .notAMember, .notInElectorate: .forbidden
        case .alreadyVoted, .vetoed: .conflict
        case .fileTooLarge: .invalid
        case .fileNotHeld: .unavailable
        }
    }

    private static func kind(of kind: StoreError.Kind) -> Kind {
        switch kind {
        case .notFound: .notFound
        case .invalid: .invalid
        case .conflict: .conflict
        case .unavailable: .unavailable
        case .corrupt: .internal
        }
    }
}
