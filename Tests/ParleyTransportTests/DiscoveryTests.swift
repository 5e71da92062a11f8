import Foundation
import ParleyCore
import ParleyTransport
import Testing

@Suite(.timeLimit(.minutes(3))) struct DiscoveryTests {
    /// Multicast must never reach a real network from a test: this runs only where the caller has made
    /// a private network namespace with multicast routed over loopback, e.g.
    /// `unshare -n sh -c 'ip link set lo up multicast on; ip route add 224.0.0.0/4 dev lo; PARLEY_NETNS_TEST=1 swift test …'`.
    static let inPrivateNetworkNamespace = ProcessInfo.processInfo.environment["PARLEY_NETNS_TEST"] != nil

    @Test(.enabled(if: inPrivateNetworkNamespace, "needs PARLEY_NETNS_TEST and a private network namespace"))
    func announcementsReachEveryNodeOnTheHost() async throws {
        let options = DiscoveryOptions(interfaceAddress: "127.0.0.1")
        let alice = try await UDPTransport.bind(host: "127.0.0.1", port: 0, discovery: options)
        // With no interface named, the only one in the namespace is chosen: loopback.
        let bob = try await UDPTransport.bind(host: "127.0.0.1", port: 0, discovery: DiscoveryOptions())
        let target = try #require(alice.discoveryTarget)
        #expect(target == PeerAddress(host: "239.255.70.80", port: 7399))

        await alice.send([Datagram(address: target, bytes: bytes("alice is here"))])

        // Bob hears it from Alice's main socket, the address to answer; Alice hears herself too.
        let atBob = await receive(1, from: bob)
        #expect(atBob.datagrams.map(text) == ["alice is here"])
        #expect(atBob.datagrams.first?.address == alice.localAddress)
        let atAlice = await receive(1, from: alice)
        #expect(atAlice.datagrams.map(text) == ["alice is here"])

        // Discovery does not get in the way of ordinary unicast.
        await bob.send([Datagram(address: alice.localAddress, bytes: bytes("hi alice"))])
        #expect(await receive(1, from: alice).datagrams.map(text) == ["hi alice"])

        await alice.close()
        await bob.close()
    }

    @Test(arguments: [
        DiscoveryOptions(group: "10.1.2.3"),
        DiscoveryOptions(group: "not-an-ip"),
        DiscoveryOptions(port: 0),
        DiscoveryOptions(port: 70_000),
        DiscoveryOptions(interfaceAddress: "192.0.2.1"),
    ])
    func rejectsUnusableDiscoveryOptionsBeforeBinding(options: DiscoveryOptions) async {
        let error = await #expect(throws: TransportError.self) {
            _ = try await UDPTransport.bind(host: "127.0.0.1", port: 0, discovery: options)
        }
        #expect(error?.description.hasPrefix("bad address") == true, "\(String(describing: error))")
    }

    @Test func discoveryNeedsAnIPv4ListenAddress() async {
        await #expect(throws: TransportError.self) {
            _ = try await UDPTransport.bind(
                host: "::1", port: 0, discovery: DiscoveryOptions(interfaceAddress: "127.0.0.1"))
        }
    }
}
