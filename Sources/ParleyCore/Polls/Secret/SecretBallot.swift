import NIOCore
public import ParleyCrypto

/// A secret ballot: a selection signed with a linkable ring signature over the poll's electorate,
/// so any member can check that some elector cast it and none can tell which (docs/BALLOTS.md §3).
/// It travels as the content of a "PollSecretBallot" message whose author is only its last relay.
public struct SecretBallot: Hashable, Sendable {
    static let version: UInt8 = 1
    static let signedLabel = Array("parley/2 secret ballot".utf8)

    public let poll: MessageID
    /// Choice ids ("up"/"down", or option ids), as the voter wrote them.
    public let selection: [String]
    public let signature: RingSignature
    public let encoded: [UInt8]

    /// The ballot's id: BLAKE2b-256 of its encoding. A retried ballot keeps its bytes, so its id.
    public var id: Digest32 { .hashing(encoded) }
    public var linkingTag: LinkingTag { signature.linkingTag }

    /// Signs `selection` as the elector holding `key`. Throws if the selection is not valid for the
    /// poll or the key is not in its electorate.
    public static func cast(
        chat: ChatID, poll: MessageID, secret: SecretPoll, selection: [String], key: BallotKeyPair
    ) throws(CoreError) -> SecretBallot {
        try cast(chat: chat, poll: poll, secret: secret, selection: selection, key: key) { _ in
            secureRandomBytes(count: 64)
        }
    }

    /// The same with fixed draws, for test vectors only (`LSAG.sign`).
    package static func cast(
        chat: ChatID, poll: MessageID, secret: SecretPoll, selection: [String], key: BallotKeyPair,
        randomness: (Int) -> [UInt8]
    ) throws(CoreError) -> SecretBallot {
        let normalised = try secret.normalise(selection)
        guard secret.electorate.contains(where: { $0.key == key.publicKey }) else {
            throw .invalid("this member's ballot key is not in the poll's electorate")
        }
        let selectionBytes = try PollSelection.encode(normalised)
        let signature: RingSignature
        do {
            signature = try LSAG.sign(
                signedLabel + selectionBytes, ring: secret.ring, signer: key, scope: scope(chat: chat, poll: poll),
                randomness: randomness)
        } catch { throw .invalid("signing the ballot failed: \(error)") }
        var buffer = ByteBuffer()
        buffer.writeInteger(version)
        buffer.writeBytes32(poll.bytes)
        buffer.writeBytes(selectionBytes)
        buffer.writeInteger(UInt16(secret.electorate.count), endianness: .big)
        buffer.writeBytes(signature.encoded)
        return SecretBallot(
            poll: poll, selection: normalised, signature: signature, encoded: Array(buffer.readableBytesView))
    }

    private init(poll: MessageID, selection: [String], signature: RingSignature, encoded: [UInt8]) {
        self.poll = poll
        self.selection = selection
        self.signature = signature
        self.encoded = encoded
    }

    /// version 1, poll id (32), selection (`PollSelection`), u16 ring size n, ring signature (64 + 32n).
    /// Checks the encoding only; `verify` checks the signature against a poll.
    public init(decoding bytes: [UInt8]) throws(CoreError) {
        var buffer = ByteBuffer(bytes: bytes)
        let version = try buffer.readU8("ballot version")
        guard version == Self.version else { throw .malformed("unknown secret ballot version \(version)") }
        poll = try buffer.readDigest("poll")
        let count = Int(try buffer.readU8("selection count"))
        var selection: [String] = []
        for _ in 0..<count { selection.append(try buffer.readShortString("option id")) }
        let members = Int(try buffer.readU16("ring size"))
        guard members <= SecretPoll.maxElectorate else {
            throw .tooLarge("ballot ring", limit: SecretPoll.maxElectorate, actual: members)
        }
        let signatureBytes = try buffer.readExactly(RingSignature.byteCount(members: members), "ring signature")
        try buffer.expectFullyRead("secret ballot")
        do { signature = try RingSignature(decoding: signatureBytes, members: members) } catch {
            throw .malformed("\(error)")
        }
        self.selection = selection
        encoded = bytes
    }

    /// Throws unless this is a ballot on `poll` whose selection is valid for it and whose ring
    /// signature verifies against its electorate.
    public func verify(chat: ChatID, poll pollID: MessageID, secret: SecretPoll) throws(CoreError) {
        try checkShape(poll: pollID, secret: secret)
        do {
            try LSAG.verify(
                signature, message: Self.signedLabel + PollSelection.encode(selection), ring: secret.ring,
                scope: Self.scope(chat: chat, poll: pollID))
        } catch { throw .badSignature("ballot ring") }
    }

    /// Everything `verify` checks but the ring walk, for a few microseconds: the poll, a selection
    /// valid for it in canonical order, and a signature over as many keys as the poll's ring. A
    /// node refuses what fails this before it spends a ring verification on it.
    public func checkShape(poll pollID: MessageID, secret: SecretPoll) throws(CoreError) {
        guard poll == pollID else { throw .invalid("the ballot is for another poll") }
        guard try secret.normalise(selection) == selection else {
            throw .invalid("the ballot's selection is not in canonical order")
        }
        guard signature.responses.count == secret.electorate.count else {
            throw .invalid(
                "the ballot is signed over \(signature.responses.count) keys, the poll's ring has \(secret.electorate.count)"
            )
        }
    }

    /// The signature's scope: the chat id and the poll id, so a tag links ballots in one poll only.
    public static func scope(chat: ChatID, poll: MessageID) -> [UInt8] {
        chat.rawRepresentation + poll.rawRepresentation
    }
}

extension SecretPoll {
    /// The selection as a ballot carries it: known choice ids, none twice, within the limit, in the
    /// poll's order. Throws otherwise.
    func normalise(_ selection: [String]) throws(CoreError) -> [String] {
        let ids = choiceIDs
        guard !selection.isEmpty else { throw .invalid("a secret ballot selects at least one choice") }
        guard Set(selection).count == selection.count else { throw .invalid("a ballot names a choice twice") }
        guard selection.count <= selectionLimit else {
            throw .invalid("this poll allows \(selectionLimit) choice(s) per ballot")
        }
        for choice in selection where !ids.contains(choice) {
            throw .invalid("'\(choice)' is not a choice of this poll")
        }
        return ids.filter(selection.contains)
    }
}
