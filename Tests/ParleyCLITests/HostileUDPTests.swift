import Foundation
import ParleyCore
import ParleyCrypto
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bare UDP socket on 127.0.0.1: a hostile peer that sends whatever bytes it likes.
final class RawUDPSocket {
    let descriptor: CInt

    init() throws {
        descriptor = socket(AF_INET, CInt(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw ControlFailure(message: "socket() failed") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            throw ControlFailure(message: "bind() failed")
        }
    }

    deinit { close(descriptor) }

    /// Sends each datagram to 127.0.0.1:`port`; returns how many the kernel took.
    @discardableResult
    func send(_ datagrams: [[UInt8]], to port: Int) -> Int {
        var address = Self.loopback(port: UInt16(port))
        return datagrams.count { bytes in
            let sent = bytes.withUnsafeBytes { buffer in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(
                            descriptor, buffer.baseAddress, buffer.count, 0, $0,
                            socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            return sent == bytes.count
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// Hostile datagrams from a raw socket against the real `parley node` on loopback: each kind is
/// refused and shows under its reason in `parley status --json`, and the chat goes on.
@Suite(.serialized, .processSuiteLimit)
struct HostileUDPTests {
    struct Pair {
        let parley: ParleyBinary
        let ports: (alice: Int, bob: Int)
        let nodes: [Process]
        let chat: String

        init() throws {
            parley = try ParleyBinary()
            let base = Ports.base()
            ports = (base, base + 1)
            for name in ["alice", "bob"] { _ = try parley.keygen(name) }
            nodes = [
                try parley.startNode("alice", port: ports.alice, peers: [ports.bob]),
                try parley.startNode("bob", port: ports.bob, peers: [ports.alice]),
            ]
            try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/bob.pub", "--name", "bob"])
            try parley.client("bob", ["contacts", "add", "\(parley.workspace)/keys/alice.pub", "--name", "alice"])
            chat = try parley.client("alice", ["chat", "create", "Under fire", "--member", "bob"])
        }

        func stop() { nodes.forEach { $0.terminateAndWait() } }

        func rejections() throws -> [String: Int] {
            let status =
                try JSONSerialization.jsonObject(with: Data(try parley.client("alice", ["status", "--json"]).utf8))
                as? [String: Any]
            return status?["rejections"] as? [String: Int] ?? [:]
        }

        /// Bob writes; true once alice holds it.
        func bobReaches(alice text: String) throws -> Bool {
            try parley.client("bob", ["send", chat, text])
            return parley.eventually("alice", ["messages", chat, "--json"]) { $0.contains(text) }
        }
    }

    @Test func malformedForgedAndStaleDatagramsAreCountedInStatusAndTheChatGoesOn() throws {
        // Given alice and bob chatting on loopback
        let pair = try Pair()
        defer { pair.stop() }
        #expect(try pair.bobReaches(alice: "before"))
        let socket = try RawUDPSocket()
        let stranger = try Identity.generate()
        let now = Int64(Date().timeIntervalSince1970 * 1000)

        // When a raw socket sends alice truncated, oversized, wrong-version, unknown-session, forged and stale datagrams
        let sealed = [UInt8](repeating: 0x42, count: Packet.handshakeInitSealedBytes)
        let forgedInit = Packet.handshakeInit(
            senderIndex: 7, ephemeral: try EphemeralKeyPair.generate().publicKey, sealed: sealed
        ).encoded()
        guard case let .announce(_, _, strangersSignature) = Announcement.make(identity: stranger, wallMillis: now)
        else {
            Issue.record("not an announce")
            return
        }
        let cases: [(String, [[UInt8]])] = [
            (
                "malformed",
                [
                    [], [2], [2, 3, 0, 0], Array(forgedInit.prefix(100)), [2, 9] + [UInt8](repeating: 0, count: 40),
                    [2, 3] + [UInt8](repeating: 0xAB, count: Packet.maxDatagramBytes),
                ]
            ),
            // (1: a peer still on wire protocol 1)
            ("unsupportedVersion", [[1] + forgedInit.dropFirst(), [0, 3] + [UInt8](repeating: 1, count: 40)]),
            (
                "unknownSession",
                [
                    Packet.data(receiverIndex: 0xDEAD_BEEF, counter: 1, sealed: [UInt8](repeating: 7, count: 40))
                        .encoded()
                ]
            ),
            ("decryptFailed", [forgedInit]),
            ("stale", [Announcement.make(identity: stranger, wallMillis: now - 3_600_000).encoded()]),
            (
                "badSignature",
                [
                    Packet.announce(
                        peer: try Identity.generate().publicKey, timestampMillis: now, signature: strangersSignature
                    ).encoded()
                ]
            ),
        ]
        let before = try pair.rejections()
        for (_, datagrams) in cases { #expect(socket.send(datagrams, to: pair.ports.alice) == datagrams.count) }

        // Then each kind is counted under its reason, exactly
        let expected = cases.reduce(into: [String: Int]()) { $0[$1.0, default: 0] += $1.1.count }
        var moved: [String: Int] = [:]
        let counted = pair.parley.eventually("alice", ["status", "--json"]) { _ in
            moved = ((try? pair.rejections()) ?? [:]).reduce(into: [:]) { moved, entry in
                let change = entry.value - before[entry.key, default: 0]
                if change != 0 { moved[entry.key] = change }
            }
            return moved == expected
        }
        #expect(counted, "counted \(moved), expected \(expected)")
        // and the chat goes on
        #expect(try pair.bobReaches(alice: "after"))
    }

    @Test func aFloodFromOneSourceIsRateLimitedAndTheChatGoesOn() throws {
        // Given alice and bob chatting on loopback
        let pair = try Pair()
        defer { pair.stop() }
        #expect(try pair.bobReaches(alice: "before the flood"))
        let before = try pair.rejections()

        // When one raw socket floods alice with 20,000 handshake inits (each would cost her a public-key
        // operation), while bob keeps writing
        let sealed = [UInt8](repeating: 0x42, count: Packet.handshakeInitSealedBytes)
        let flood = try (0..<200).map { index in
            Packet.handshakeInit(
                senderIndex: UInt32(index), ephemeral: try EphemeralKeyPair.generate().publicKey, sealed: sealed
            ).encoded()
        }
        let socket = try RawUDPSocket()
        let start = Date()
        var accepted = 0
        for round in 0..<100 {
            accepted += socket.send(flood, to: pair.ports.alice)
            if round % 20 == 0 { try pair.parley.client("bob", ["send", pair.chat, "during \(round)"]) }
        }
        let elapsed = Date().timeIntervalSince(start)

        // Then the flood is mostly dropped unopened, and at most the source's budget reached the crypto
        var after: [String: Int] = [:]
        _ = pair.parley.eventually("alice", ["status", "--json"], seconds: 10) { _ in
            after = (try? pair.rejections()) ?? [:]
            return after["rateLimited", default: 0] > before["rateLimited", default: 0]
        }
        let limited = after["rateLimited", default: 0] - before["rateLimited", default: 0]
        let opened = after["decryptFailed", default: 0] - before["decryptFailed", default: 0]
        let budget = 50 + 20 * (elapsed + 10) // burst + rate × the longest the flood could have lasted at alice
        #expect(limited > 0, "nothing was rate-limited (\(accepted) datagrams sent)")
        #expect(Double(opened) <= budget, "\(opened) handshakes were opened in \(elapsed) s")
        // and bob's messages, sent during the flood, all arrive, and alice still answers
        #expect(
            pair.parley.eventually("alice", ["messages", pair.chat, "--json"], seconds: 30) { output in
                (0..<5).allSatisfy { output.contains("during \($0 * 20)") }
            })
        #expect(try pair.bobReaches(alice: "after the flood"))
    }
}
