import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension ControlSocketError {
    /// A short lower-case reason for a NIO or system error, e.g. "connection refused".
    static func reason(for error: any Error) -> String {
        switch error {
        case let error as IOError:
            reason(errno: error.errnoCode)
        case SocketAddressError.unixDomainSocketPathTooLong:
            "the socket path is too long for the system (about 100 bytes)"
        case ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed:
            "connection closed"
        default:
            String(describing: error)
        }
    }

    static func reason(errno code: CInt) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        let text = String(cString: message)
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
