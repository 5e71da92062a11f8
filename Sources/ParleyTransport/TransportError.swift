/// Failures of the UDP transport and its LAN discovery, each with a message fit to show a person.
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Base: Hashable, Sendable {
        case cannotListen(address: String, reason: String)
        case badAddress(address: String, reason: String)
        case discoveryFailed(reason: String)
    }

    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// A socket could not be bound: "cannot listen on 127.0.0.1:7001: address already in use".
    public static func cannotListen(on address: String, reason: String) -> TransportError {
        TransportError(.cannotListen(address: address, reason: reason))
    }

    public static func badAddress(_ address: String, reason: String) -> TransportError {
        TransportError(.badAddress(address: address, reason: reason))
    }

    public static func discoveryFailed(_ reason: String) -> TransportError {
        TransportError(.discoveryFailed(reason: reason))
    }

    public var description: String {
        switch base {
        case let .cannotListen(address, reason): "cannot listen on \(address): \(reason)"
        case let .badAddress(address, reason): "bad address \"\(address)\": \(reason)"
        case let .discoveryFailed(reason): "cannot set up LAN discovery: \(reason)"
        }
    }
}
