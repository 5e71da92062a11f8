#if os(Linux)
    import Foundation
    import Glibc
    import ParleyCore
    import ParleyTransport
    import Testing

    /// A datagram with a hop limit of its own (a rendezvous opening, PROTOCOL.md §12a) leaves with that
    /// TTL, and the datagrams after it with the system's again: read on a plain socket with `IP_RECVTTL`.
    @Suite(.timeLimit(.minutes(1))) struct HopLimitTests {
        @Test func anOpeningLeavesWithItsOwnTTLAndTheDatagramsAfterItWithTheSystemsAgain() async throws {
            let receiver = try TTLReceiver()
            defer { receiver.close() }
            let alice = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
            let target = PeerAddress(host: "127.0.0.1", port: receiver.port)

            await alice.send([Datagram(address: target, bytes: Array("before".utf8))])
            await alice.send([
                Datagram(address: target, bytes: Array("opening".utf8), hopLimit: 2),
                Datagram(address: target, bytes: Array("beside".utf8)),
            ])
            await alice.send([Datagram(address: target, bytes: Array("after".utf8))])

            var ttls: [String: Int32] = [:]
            for _ in 0..<4 {
                let (text, ttl) = try receiver.receive()
                ttls[text] = ttl
            }
            let standard = Int32(
                (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_default_ttl", encoding: .utf8))
                    .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 64)
            #expect(ttls == ["before": standard, "opening": 2, "beside": standard, "after": standard])
            #expect(alice.statistics.sendFailures == 0)
            await alice.close()
        }
    }

    /// A UDP socket on 127.0.0.1 that reports each datagram's TTL.
    private struct TTLReceiver {
        let descriptor: Int32
        let port: UInt16

        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
            var on: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_IP), IP_RECVTTL, &on, socklen_t(MemoryLayout<Int32>.size))
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw Failure(description: "bind: errno \(errno)") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            self.descriptor = descriptor
            port = UInt16(bigEndian: address.sin_port)
        }

        /// The next datagram's text and the TTL it arrived with (-1 when none was reported).
        func receive() throws -> (String, Int32) {
            var payload = [UInt8](repeating: 0, count: 2_048)
            var control = [UInt8](repeating: 0, count: 64)
            let count = payload.withUnsafeMutableBytes { payloadBytes in
                control.withUnsafeMutableBytes { controlBytes in
                    var vector = iovec(iov_base: payloadBytes.baseAddress, iov_len: payloadBytes.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var message = msghdr()
                        message.msg_iov = vectorPointer
                        message.msg_iovlen = 1
                        message.msg_control = controlBytes.baseAddress
                        message.msg_controllen = controlBytes.count
                        return recvmsg(descriptor, &message, 0)
                    }
                }
            }
            guard count >= 0 else { throw Failure(description: "recvmsg: errno \(errno)") }
            // One control message: cmsghdr (length, level, type: 16 bytes on 64-bit Linux), then the TTL.
            var ttl: Int32 = -1
            let header = MemoryLayout<cmsghdr>.size
            control.withUnsafeBytes { bytes in
                let cmsg = bytes.load(as: cmsghdr.self)
                if cmsg.cmsg_level == Int32(IPPROTO_IP), cmsg.cmsg_type == IP_TTL {
                    ttl = bytes.load(fromByteOffset: header, as: Int32.self)
                }
            }
            return (String(decoding: payload.prefix(count), as: UTF8.self), ttl)
        }

        func close() { _ = Glibc.close(descriptor) }
    }
#endif
