/// Rejections by the core: bad encodings, limits, and protocol rule violations.
public struct CoreError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Base: Hashable, Sendable {
        case malformed(String)
        case tooLarge(what: String, limit: Int, actual: Int)
        case invalid(String)
        case unsupportedVersion(UInt8)
        case badSignature(String)
    }

    private let base: Base
    private init(_ base: Base) { self.base = base }

    public static func malformed(_ reason: String) -> CoreError { CoreError(.malformed(reason)) }
    public static func invalid(_ reason: String) -> CoreError { CoreError(.invalid(reason)) }
    public static func unsupportedVersion(_ version: UInt8) -> CoreError { CoreError(.unsupportedVersion(version)) }
    public static func badSignature(_ what: String) -> CoreError { CoreError(.badSignature(what)) }
    public static func tooLarge(_ what: String, limit: Int, actual: Int) -> CoreError {
        CoreError(.tooLarge(what: what, limit: limit, actual: actual))
    }

    public var isUnsupportedVersion: Bool { if case .unsupportedVersion = base { true } else { false } }
    public var isBadSignature: Bool { if case .badSignature = base { true } else { false } }

    public var description: String {
        switch base {
        case let .malformed(reason): "malformed encoding: \(reason)"
        case let .tooLarge(what, limit, actual): "\(what) is \(actual) bytes; the limit is \(limit)"
        case let .invalid(reason): reason
        case let .unsupportedVersion(version): "unsupported protocol version \(version)"
        case let .badSignature(what): "\(what) signature does not verify"
        }
    }
}
