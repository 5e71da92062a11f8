/// Failures of the control socket's line server and client, each with a message fit to show a person.
public struct ControlSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Base: Hashable, Sendable {
        case cannotListen(path: String, reason: String)
        case cannotConnect(path: String, reason: String)
        case lineTooLong(limit: Int)
        case invalidLine(reason: String)
        case sendFailed(reason: String)
        case alreadyRunning
    }

    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// The socket could not be bound: "cannot listen on /x/node.sock: another process is already listening there".
    public static func cannotListen(on path: String, reason: String) -> ControlSocketError {
        ControlSocketError(.cannotListen(path: path, reason: reason))
    }

    /// The control socket could not be reached: "cannot connect to /x/node.sock: no such file or directory".
    public static func cannotConnect(to path: String, reason: String) -> ControlSocketError {
        ControlSocketError(.cannotConnect(path: path, reason: reason))
    }

    /// A peer sent a line longer than the framing allows; the connection is dropped.
    public static func lineTooLong(limit: Int) -> ControlSocketError { ControlSocketError(.lineTooLong(limit: limit)) }

    public static func invalidLine(_ reason: String) -> ControlSocketError {
        ControlSocketError(.invalidLine(reason: reason))
    }

    public static func sendFailed(_ reason: String) -> ControlSocketError {
        ControlSocketError(.sendFailed(reason: reason))
    }

    /// `run()` was called on a server that is already serving (or was closed).
    public static var alreadyRunning: ControlSocketError { ControlSocketError(.alreadyRunning) }

    public var isLineTooLong: Bool { if case .lineTooLong = base { true } else { false } }

    public var description: String {
        switch base {
        case let .cannotListen(path, reason): "cannot listen on \(path): \(reason)"
        case let .cannotConnect(path, reason): "cannot connect to \(path): \(reason)"
        case let .lineTooLong(limit): "line longer than \(limit) bytes"
        case let .invalidLine(reason): "invalid line: \(reason)"
        case let .sendFailed(reason): "cannot send: \(reason)"
        case .alreadyRunning: "the server is already running or was closed"
        }
    }
}
