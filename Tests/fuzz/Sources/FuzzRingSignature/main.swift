import FuzzSupport
import ParleyCrypto

// Fixed before the fuzzer starts: four ballot keys from fixed seeds, a ring of 2 and a ring of 3,
// one message and one scope, and signatures made with libsodium's generator on a fixed stream (the
// same bytes in every process, so the corpus and every job agree on which signatures exist).
Fuzzer.useFixedRandomness(seed: 2)
let chat = [UInt8](repeating: 7, count: 32)
let keys = (1...4).map {
    try! BallotKeyPair(identity: try! Identity(seed: [UInt8](repeating: UInt8($0), count: 32)), chat: chat)
}
let rings = [2: [keys[0].publicKey, keys[1].publicKey], 3: [keys[1].publicKey, keys[2].publicKey, keys[3].publicKey]]
let signers = [2: [keys[0], keys[1]], 3: [keys[1], keys[2], keys[3]]]
let message = Array("parley/2 secret ballot\u{1}\u{2}up".utf8)
let scope = chat + [UInt8](repeating: 9, count: 32)
/// The linking tag of each key in the scope: a signature that verifies carries one of its ring's.
let tags = Dictionary(uniqueKeysWithValues: keys.map { ($0.publicKey, try! LSAG.linkingTag(of: $0, scope: scope)) })
/// The only signatures that verify: the fuzzer holds no secret scalar, and encodings are unique.
let valid: Set<[UInt8]> = Set(
    [2, 3].flatMap { size in
        signers[size]!.map { try! LSAG.sign(message, ring: rings[size]!, signer: $0, scope: scope).encoded }
    })

// The seeds must verify, or the invariant below would hold for nothing.
for bytes in valid {
    let signature = try! RingSignature(decoding: bytes, members: bytes.count / 32 - 2)
    precondition(
        (try? LSAG.verify(signature, message: message, ring: rings[signature.responses.count]!, scope: scope)) != nil)
}

// `RingSignature(decoding:members:)` for the ring size the length implies, `LSAG.verify` over the
// ring of 2 or 3, and the point decoders (`BallotPublicKey`, `LinkingTag`) on 32-byte inputs.
// swift-format-ignore: OnlyOneTrailingClosureArgument
Fuzzer.main(seeds: { valid.sorted { $0.lexicographicallyPrecedes($1) } + [keys[0].publicKey.rawRepresentation] }) {
    bytes in
    if bytes.count == 32 {
        let key = try? BallotPublicKey(rawRepresentation: bytes), tag = try? LinkingTag(rawRepresentation: bytes)
        guard key?.rawRepresentation ?? bytes == bytes, (key == nil) == (tag == nil) else {
            Fuzzer.fail("point decoders disagree")
        }
    }
    guard bytes.count >= 64, bytes.count % 32 == 0 else { return }
    let members = bytes.count / 32 - 2
    for wrong in [members - 1, members + 1] where wrong >= 0 {
        if (try? RingSignature(decoding: bytes, members: wrong)) != nil {
            Fuzzer.fail("a signature decoded with the wrong ring size")
        }
    }
    guard let signature = try? RingSignature(decoding: bytes, members: members) else { return }
    guard signature.encoded == bytes, signature.responses.count == members else {
        Fuzzer.fail("a signature does not keep its encoding")
    }
    guard let ring = rings[members] else { return }
    if (try? LSAG.verify(signature, message: message, ring: ring, scope: scope)) != nil {
        guard valid.contains(bytes), ring.contains(where: { tags[$0] == signature.linkingTag }) else {
            Fuzzer.fail("a signature nobody made verifies")
        }
    }
}
