/// Failures of the network and control-socket layer, each with a message fit to show a person.
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Base: Hashable, Sendable {
        case cannotListen(address: String, reason: String)
        case cannotConnect(path: String, reason: String)
        case badAddress(address: String, reason: String)
        case discoveryFailed(reason: String)
        case lineTooLong(limit: Int)
        case invalidLine(reason: String)
        case sendFailed(reason: String)
        case alreadyRunning
    }

    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// A socket could not be bound: "cannot listen on 127.0.0.1:7001: address already in use".
    public static func cannotListen(on address: String, reason: String) -> TransportError {
        TransportError(.cannotListen(address: address, reason: reason))
    }

    /// The control socket could not be reached: "cannot connect to /x/node.sock: no such file or directory".
    public static func cannotConnect(to path: String, reason: String) -> TransportError {
        TransportError(.cannotConnect(path: path, reason: reason))
    }

    public static func badAddress(_ address: String, reason: String) -> TransportError {
        TransportError(.badAddress(address: address, reason: reason))
    }

    public static func discoveryFailed(_ reason: String) -> TransportError {
        TransportError(.discoveryFailed(reason: reason))
    }

    /// A peer sent a line longer than the framing allows; the connection is dropped.
    public static func lineTooLong(limit: Int) -> TransportError { TransportError(.lineTooLong(limit: limit)) }

    public static func invalidLine(_ reason: String) -> TransportError { TransportError(.invalidLine(reason: reason)) }

    public static func sendFailed(_ reason: String) -> TransportError { TransportError(.sendFailed(reason: reason)) }

    /// `run()` was called on a server that is already serving (or was closed).
    public static var alreadyRunning: TransportError { TransportError(.alreadyRunning) }

    public var isLineTooLong: Bool { if case .lineTooLong = base { true } else { false } }

    public var description: String {
        switch base {
        case let .cannotListen(address, reason): "cannot listen on \(address): \(reason)"
        case let .cannotConnect(path, reason): "cannot connect to \(path): \(reason)"
        case let .badAddress(address, reason): "bad address \"\(address)\": \(reason)"
        case let .discoveryFailed(reason): "cannot set up LAN discovery: \(reason)"
        case let .lineTooLong(limit): "line longer than \(limit) bytes"
        case let .invalidLine(reason): "invalid line: \(reason)"
        case let .sendFailed(reason): "cannot send: \(reason)"
        case .alreadyRunning: "the server is already running or was closed"
        }
    }
}
