public import ParleyAPI

/// Why a `ControlClient` got no result: no node to ask, or the node's refusal, each with a message
/// fit to show a person.
public struct ControlClientError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Base: Hashable, Sendable {
        case noNode(dataDirectory: String)
        case unreachable(dataDirectory: String, reason: String)
        case refused(APIFailure)
        case noAnswer
    }

    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// No control socket in the data directory: no node was started there.
    static func noNode(dataDirectory: String) -> ControlClientError {
        ControlClientError(.noNode(dataDirectory: dataDirectory))
    }

    /// The socket is there but nobody answers on it (a node that was killed leaves it behind).
    static func unreachable(dataDirectory: String, reason: String) -> ControlClientError {
        ControlClientError(.unreachable(dataDirectory: dataDirectory, reason: reason))
    }

    /// The node answered the request with a failure.
    static func refused(_ failure: APIFailure) -> ControlClientError { ControlClientError(.refused(failure)) }

    /// The node hung up before answering.
    static var noAnswer: ControlClientError { ControlClientError(.noAnswer) }

    /// The node's failure when it answered with one; nil when no answer came.
    public var refusal: APIFailure? { if case let .refused(failure) = base { failure } else { nil } }

    /// The refusal's kind; `unavailable` when no node could be reached, `internal` when it did not answer.
    public var kind: APIFailure.Kind {
        switch base {
        case .noNode, .unreachable: .unavailable
        case let .refused(failure): failure.kind
        case .noAnswer: .internal
        }
    }

    public var description: String {
        switch base {
        case let .noNode(directory):
            "no node is running with data directory \(directory) (start one with 'parley node --data \(directory) …')"
        case let .unreachable(directory, reason): "cannot reach the node in \(directory): \(reason)"
        case let .refused(failure): failure.message
        case .noAnswer: "the node closed the connection without answering"
        }
    }
}
