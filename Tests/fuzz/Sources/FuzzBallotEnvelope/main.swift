import FuzzSupport
import ParleyCore
import ParleyCrypto

// Fixed before the fuzzer starts: a chat, a publisher, and an envelope around a real ballot; the
// seeds are the same bytes in every run (libsodium's generator on a fixed stream).
Fuzzer.useFixedRandomness(seed: 3)
let chat = try! ChatID(rawRepresentation: [UInt8](repeating: 7, count: 32))
let publisher = try! Identity(seed: [UInt8](repeating: 4, count: 32))

// `BallotEnvelope(decoding:)` on the input as an opened envelope, and on the input zero-padded to
// the next multiple of 512 bytes (so mutations that change the length still reach the fields);
// then `Frame.decodeAll` on the input, with the envelope decoder on every `ballotRelay` frame's
// sealed bytes as if they were opened.
Fuzzer.main(seeds: seeds) { bytes in
    checkEnvelope(bytes)
    let padded = (bytes.count + BallotEnvelope.padding - 1) / BallotEnvelope.padding * BallotEnvelope.padding
    if padded != bytes.count, padded <= BallotEnvelope.maxPlaintextBytes {
        checkEnvelope(bytes + [UInt8](repeating: 0, count: padded - bytes.count))
    }
    guard let frames = try? Frame.decodeAll(bytes) else { return }
    if (try? Frame.decodeAll(Frame.encode(frames))) != frames {
        Fuzzer.fail("decoded frames do not survive a round trip")
    }
    for case let .ballotRelay(_, _, sealed) in frames {
        guard (48...Frame.maxSealedBallotBytes).contains(sealed.count) else {
            Fuzzer.fail("a relay frame holds a sealed envelope of \(sealed.count) bytes")
        }
        checkEnvelope(sealed)
    }
}

func checkEnvelope(_ bytes: [UInt8]) {
    guard let envelope = try? BallotEnvelope(decoding: bytes) else { return }
    // Padded to the input's own size, it re-encodes to the input.
    guard let again = try? envelope.encoded(size: bytes.count), again == bytes,
        (try? BallotEnvelope(decoding: again)) == envelope
    else { Fuzzer.fail("a decoded envelope does not re-encode to its bytes") }
    if let ballot = try? SecretBallot(decoding: envelope.ballot), ballot.encoded != envelope.ballot {
        Fuzzer.fail("the ballot in an envelope does not keep its encoding")
    }
}

/// A ballot on a secret poll over three electors, its envelope, and the envelope sealed in a relay frame.
func seeds() throws -> [[UInt8]] {
    let voters = try (1...3).map { try Identity(seed: [UInt8](repeating: UInt8($0), count: 32)) }
    let keys = try voters.map { try BallotKeyPair(identity: $0, chat: chat.rawRepresentation) }
    let secret = try SecretPoll(
        question: .yesNo("Pizza?"), closesAtMillis: 1_800_000_000_000,
        electorate: zip(voters, keys).map { SecretPoll.Elector(member: $0.publicKey, key: $1.publicKey) })
    let poll = try MessageDraft(
        chat: chat, author: voters[0].publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: .poll,
        content: secret.encoded()
    ).signed(by: voters[0])
    let ballot = try SecretBallot.cast(chat: chat, poll: poll.id, secret: secret, selection: ["up"], key: keys[1])
    let envelope = try BallotEnvelope(chat: chat, ballot: ballot.encoded).encoded(size: secret.envelopeBytes)
    let sealed = try publisher.publicKey.agreementKey().seal(envelope)
    let relay = Frame.ballotRelay(publisher: publisher.publicKey, holdMillis: 0, sealed: sealed)
    return [envelope, Frame.encode([relay]), Frame.encode([relay, .relayStub(envelope)])]
}

extension Frame {
    /// A relay frame whose "sealed" bytes are the plaintext envelope: the harness decodes both alike.
    static func relayStub(_ envelope: [UInt8]) -> Frame {
        .ballotRelay(publisher: publisher.publicKey, holdMillis: 0, sealed: envelope)
    }
}
