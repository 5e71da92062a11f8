import Foundation
import ParleyCore
import ParleyTransport
import Testing

@Suite(.timeLimit(.minutes(3))) struct UDPTransportTests {
    /// Whether the kernel grants the transport's 4 MiB socket buffers (Linux caps them at rmem_max).
    static let kernelAllowsLargeSocketBuffers: Bool = {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/core/rmem_max", encoding: .utf8),
            let limit = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return false }
        return limit >= 4 << 20
    }()

    @Test func deliversADatagramBetweenTwoTransportsOnLoopback() async throws {
        let alice = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let bob = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        #expect(alice.localAddress.host == "127.0.0.1")
        #expect(alice.localAddress.port != 0)
        #expect(alice.discoveryTarget == nil)

        await alice.send([Datagram(address: bob.localAddress, bytes: bytes("hello bob"))])
        let atBob = await receive(1, from: bob)
        #expect(atBob.datagrams.map(text) == ["hello bob"])
        #expect(atBob.datagrams.first?.address == alice.localAddress)

        await bob.send([Datagram(address: alice.localAddress, bytes: bytes("hello alice"))])
        let atAlice = await receive(1, from: alice)
        #expect(atAlice.datagrams.map(text) == ["hello alice"])

        await alice.close()
        await bob.close()
    }

    @Test func aDatagramToPortZeroOrABroadcastOrMulticastAddressIsRefusedAndTheSocketStaysOpen() async throws {
        // Given two transports, when one is asked to send where the kernel would refuse (and NIO
        // would close the socket): port 0, broadcast, unspecified, multicast
        let alice = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let bob = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let refused = [
            PeerAddress(host: "127.0.0.1", port: 0), PeerAddress(host: "255.255.255.255", port: 7001),
            PeerAddress(host: "0.0.0.0", port: 7001), PeerAddress(host: "239.1.2.3", port: 7001),
        ]
        await alice.send(refused.map { Datagram(address: $0, bytes: bytes("no")) })

        // Then each is counted as a failed send, and the socket still delivers
        #expect(alice.statistics.sendFailures == refused.count)
        await alice.send([Datagram(address: bob.localAddress, bytes: bytes("still here"))])
        #expect(await receive(1, from: bob).datagrams.map(text) == ["still here"])
        #expect(
            UDPTransport.isUnicast("10.0.0.1") && UDPTransport.isUnicast("::1") && UDPTransport.isUnicast("2001:db8::1")
        )
        for host in ["ff02::1", "fe80::1", "::ffff:255.255.255.255", "::ffff:224.0.0.1", "0.1.2.3", "240.0.0.1", "::"] {
            #expect(!UDPTransport.isUnicast(host), "\(host)")
        }
        await alice.close()
        await bob.close()
    }

    @Test func deliversABurstOfDatagramsInBatches() async throws {
        let sender = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let receiver = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let burst = (0..<2_000).map { index in
            Datagram(
                address: receiver.localAddress, bytes: Array(repeating: UInt8(truncatingIfNeeded: index), count: 200))
        }

        await sender.send(burst)
        let received = await receive(burst.count, from: receiver)

        if Self.kernelAllowsLargeSocketBuffers {
            // The 4 MiB receive buffer holds the whole burst, so loopback loses nothing.
            #expect(received.datagrams.count == burst.count)
        } else {
            // Where rmem_max caps the buffer low, UDP may drop some of a burst; the protocol retransmits.
            #expect(received.datagrams.count >= burst.count * 9 / 10)
        }
        #expect(received.datagrams.allSatisfy { $0.bytes.count == 200 && $0.address == sender.localAddress })
        #expect(received.batchSizes.contains { $0 > 1 }, "batch sizes: \(received.batchSizes)")
        #expect(sender.statistics.datagramsSent == burst.count)
        #expect(receiver.statistics.datagramsReceived == received.datagrams.count)

        await sender.close()
        await receiver.close()
    }

    @Test func carriesTheLargestDatagramTheProtocolAllows() async throws {
        let sender = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let receiver = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let large = (0..<3).map { index in
            Datagram(address: receiver.localAddress, bytes: Array(repeating: UInt8(index), count: 65_000))
        }

        await sender.send(large)
        let received = await receive(large.count, from: receiver)

        #expect(received.datagrams.map(\.bytes) == large.map(\.bytes))
        await sender.close()
        await receiver.close()
    }

    @Test func keepsWorkingAfterSendingToAClosedPort() async throws {
        let sender = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let receiver = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let closed = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let closedAddress = closed.localAddress
        await closed.close()

        // Loopback answers with ICMP port unreachable; the transport must shrug it off.
        for _ in 0..<5 {
            await sender.send([Datagram(address: closedAddress, bytes: bytes("anyone?"))])
        }
        await sender.send([Datagram(address: receiver.localAddress, bytes: bytes("still here"))])

        #expect(await receive(1, from: receiver).datagrams.map(text) == ["still here"])
        await sender.close()
        await receiver.close()
    }

    @Test func survivesASendErrorThatClosesTheSocket() async throws {
        let sender = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let receiver = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let address = sender.localAddress

        // Loopback's broadcast address: the kernel refuses with EACCES (no SO_BROADCAST), and NIO closes
        // the socket. (Port 0 and the limited broadcast are refused before reaching it.)
        await sender.send([Datagram(address: PeerAddress(host: "127.255.255.255", port: 9), bytes: bytes("x"))])
        // An IPv4 socket cannot reach an IPv6 peer; this one is refused before reaching the socket.
        await sender.send([Datagram(address: PeerAddress(host: "::1", port: 9), bytes: bytes("x"))])
        #expect(sender.statistics.sendFailures == 2)

        // The socket is bound again on the same address, so replies still find us.
        let rebound = await eventually { sender.statistics.rebinds == 1 }
        #expect(rebound)
        await sender.send([Datagram(address: receiver.localAddress, bytes: bytes("after"))])
        let atReceiver = await receive(1, from: receiver)
        #expect(atReceiver.datagrams.map(text) == ["after"])
        #expect(atReceiver.datagrams.first?.address == address)

        await receiver.send([Datagram(address: address, bytes: bytes("reply"))])
        #expect(await receive(1, from: sender).datagrams.map(text) == ["reply"])
        await sender.close()
        await receiver.close()
    }

    @Test func closeFinishesTheInboundStream() async throws {
        let transport = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        await transport.close()

        let received = await receive(1, from: transport, timeout: .seconds(5))
        #expect(received.datagrams.isEmpty)
        #expect(received.batchSizes.isEmpty)
        // Sending after close is a counted no-op, not a crash.
        await transport.send([Datagram(address: transport.localAddress, bytes: bytes("late"))])
        #expect(transport.statistics.sendFailures == 1)
    }

    @Test func reportsAPortInUseClearly() async throws {
        let first = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let port = Int(first.localAddress.port)

        let error = await #expect(throws: TransportError.self) {
            _ = try await UDPTransport.bind(host: "127.0.0.1", port: port)
        }
        #expect(error?.description == "cannot listen on 127.0.0.1:\(port): address already in use")
        await first.close()
    }

    @Test(arguments: [70_000, -1])
    func rejectsAPortOutOfRange(port: Int) async {
        let error = await #expect(throws: TransportError.self) {
            _ = try await UDPTransport.bind(host: "127.0.0.1", port: port)
        }
        #expect(error?.description.contains("the port must be 0–65535") == true)
    }
}

/// Polls `condition` for up to five seconds.
func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
