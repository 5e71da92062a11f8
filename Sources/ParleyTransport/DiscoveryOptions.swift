import NIOCore
import NIOPosix

/// LAN peer discovery over IPv4 multicast. Announcements go out with the default multicast TTL of 1,
/// so they never leave the local link.
public struct DiscoveryOptions: Hashable, Sendable {
    /// The multicast group announcements are sent to (an administratively scoped 239/8 address).
    public var group: String
    /// The port every node listens on for announcements, shared with SO_REUSEPORT.
    public var port: Int
    /// The address of the interface to discover on; nil or "0.0.0.0" picks the first non-loopback
    /// multicast interface, and loopback when there is none.
    public var interfaceAddress: String?

    public init(group: String = "239.255.70.80", port: Int = 7399, interfaceAddress: String? = nil) {
        self.group = group
        self.port = port
        self.interfaceAddress = interfaceAddress
    }

    /// The group as a socket address, checked to be IPv4 multicast.
    func groupAddress() throws(TransportError) -> SocketAddress {
        guard (1...65535).contains(port) else {
            throw .badAddress("\(group):\(port)", reason: "the discovery port must be 1–65535")
        }
        guard let address = try? SocketAddress(ipAddress: group, port: port),
            let octets = IPv4Octets(group), (224...239).contains(octets.bytes.0)
        else {
            throw .badAddress(group, reason: "not an IPv4 multicast group (224.0.0.0/4)")
        }
        return address
    }

    /// The interface to join the group on and to send announcements from.
    func device() throws(TransportError) -> NIONetworkDevice {
        let devices: [NIONetworkDevice]
        do {
            devices = try System.enumerateDevices()
        } catch {
            throw .discoveryFailed("cannot list network interfaces: \(TransportError.reason(for: error))")
        }
        let ipv4 = devices.filter { if case .v4 = $0.address { true } else { false } }
        if let wanted = interfaceAddress, wanted != "0.0.0.0" {
            guard let device = ipv4.first(where: { $0.address?.ipAddress == wanted }) else {
                throw .badAddress(wanted, reason: "no IPv4 interface has this address")
            }
            return device
        }
        let isLoopback = { (device: NIONetworkDevice) in device.address?.ipAddress?.hasPrefix("127.") ?? false }
        if let device = ipv4.first(where: { $0.multicastSupported && !isLoopback($0) }) ?? ipv4.first(where: isLoopback)
        {
            return device
        }
        throw .discoveryFailed("no IPv4 interface to discover on")
    }
}
