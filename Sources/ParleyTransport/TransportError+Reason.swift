import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension TransportError {
    /// A short lower-case reason for a NIO or system error, e.g. "address already in use".
    static func reason(for error: any Error) -> String {
        switch error {
        case let error as TransportError:
            return error.description
        case let error as IOError:
            return reason(errno: error.errnoCode)
        case let error as SocketAddressError:
            switch error {
            case .unixDomainSocketPathTooLong: return "the socket path is too long for the system (about 100 bytes)"
            case .failedToParseIPString: return "not an IP address"
            case let .unknown(host, _): return "cannot resolve host \"\(host)\""
            case .unsupported: return "unsupported address family"
            }
        case let error as NIOMulticastNotSupportedError:
            return "interface \(error.device.name) does not support multicast"
        case ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed:
            return "connection closed"
        default:
            return String(describing: error)
        }
    }

    static func reason(errno code: CInt) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        let text = String(cString: message)
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
