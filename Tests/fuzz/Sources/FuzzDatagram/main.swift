import FuzzSupport
import ParleyCore
import ParleyCrypto

// The seeds draw keys, indices and nonces from libsodium: a fixed stream makes them the same bytes in
// every run, so run.sh keeps the corpus (it drops a corpus whose seeds changed).
Fuzzer.useFixedRandomness(seed: 4)

// The datagram decoder (`Packet(decoding:)`) on raw input, and the frame decoder
// (`Frame.decodeAll`) on the same input as if it were a decrypted plaintext.
Fuzzer.main(seeds: seeds) { bytes in
    if let packet = try? Packet(decoding: bytes), packet.encoded() != bytes {
        Fuzzer.fail("a decoded packet does not re-encode to its bytes")
    }
    if let frames = try? Frame.decodeAll(bytes), (try? Frame.decodeAll(Frame.encode(frames))) != frames {
        Fuzzer.fail("decoded frames do not survive a round trip")
    }
}

/// One valid packet of each type and one frame of each type: a corpus to start mutating from.
func seeds() throws -> [[UInt8]] {
    let alice = try Identity.generate(), bob = try Identity.generate()
    var table = SessionTable(identity: alice)
    let address = PeerAddress(host: "127.0.0.1", port: 7001)
    let initiation = try table.initiate(with: bob.publicKey, at: address, now: .zero, wallMillis: 1_800_000_000_000)
    let ephemeral = try EphemeralKeyPair.generate().publicKey
    let packets: [[UInt8]] = [
        initiation.bytes,
        Packet.handshakeResponse(
            senderIndex: 2, receiverIndex: 1, ephemeral: ephemeral,
            sealed: [UInt8](repeating: 9, count: Packet.handshakeResponseSealedBytes)
        ).encoded(),
        Packet.data(receiverIndex: 1, counter: 1, sealed: [UInt8](repeating: 7, count: 64)).encoded(),
        Announcement.make(identity: alice, wallMillis: 1_800_000_000_000).encoded(),
    ]
    let invite = try ChatInvite.create(by: alice, title: "Seed", members: [bob.publicKey], createdAtMillis: 0)
    let message = try MessageDraft(
        chat: invite.id, author: alice.publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: .text,
        content: Array("hi".utf8)
    ).signed(by: alice)
    let frames: [Frame] = [
        .message(message.encoded), .ack([message.id, message.id]), .invite(invite.encoded), .inviteAck(invite.id),
        .syncRequest(
            chat: invite.id,
            vector: [
                alice.publicKey: .contiguous(3),
                bob.publicKey: try AuthorHoldings(highest: 9, missing: [2...3, 5...5]),
            ]),
        .syncEnd(chat: invite.id, .more), .needInvite(invite.id),
        .read(chat: invite.id, ids: [message.id]), .readAck([message.id, message.id]),
        .meetRequest(bob.publicKey),
        .meet(peer: bob.publicKey, address: PeerAddress(host: "203.0.113.7", port: 40_001)),
        .meet(peer: alice.publicKey, address: PeerAddress(host: "2001:db8::7", port: 9)),
    ]
    return packets + frames.map { Frame.encode([$0]) } + [Frame.encode(frames)]
}
