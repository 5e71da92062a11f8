import NIOCore
import ParleyCore

extension PeerAddress {
    /// The IP address and port of a socket address; nil for Unix-domain addresses.
    init?(_ socketAddress: SocketAddress) {
        guard let host = socketAddress.ipAddress, let port = socketAddress.port, let port = UInt16(exactly: port)
        else { return nil }
        self.init(host: host, port: port)
    }
}
