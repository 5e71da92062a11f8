import NIOCore
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension WebError {
    /// Why the web app could not listen on `address`, in words, not NIO's call names.
    static func cannotListen(on address: WebAddress, _ error: any Error) -> WebError {
        let reason: String
        switch (error as? IOError)?.errnoCode {
        case EADDRINUSE:
            reason = "the port is in use (stop what listens there, or choose another port; port 0 takes a free one)"
        case EADDRNOTAVAIL: reason = "this machine has no address \(address.host)"
        case EACCES: reason = "this user may not listen on port \(address.port) (ports below 1024 need privileges)"
        case let code?: reason = String(cString: strerror(code))
        case nil: reason = "\(error)"
        }
        return WebError("cannot serve the web app on \(address): \(reason)")
    }
}
