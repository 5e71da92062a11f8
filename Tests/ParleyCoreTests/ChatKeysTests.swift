import ParleyCore
import ParleyCrypto
import Testing

/// Chat keys, key grants, sealed content, membership changes and keyed invites.
struct ChatKeysTests {
    let key = (try? ChatKey.generate())!

    @Test func opensAnXChaChaVectorComputedWithPyNaCl() throws {
        // Key 00…1f, nonce 64…7b, AD "parley": nacl.bindings.crypto_aead_xchacha20poly1305_ietf_encrypt
        let vectorKey = try ChatKey(rawRepresentation: Array(0..<32))
        let sealed = try Hex.decode(
            "6465666768696a6b6c6d6e6f707172737475767778797a7b141695dc9002a9e5f55fe84fc625a53c4d43594ea0a13266a42ad2c7")
        #expect(try vectorKey.open(sealed, associatedData: Array("parley".utf8)) == Array("hello, group".utf8))
        #expect(throws: CryptoError.authenticationFailed) {
            try vectorKey.open(sealed, associatedData: Array("other".utf8))
        }
    }

    @Test func sealedContentOpensOnlyWithTheKeyAndTheSameAuthorAndSequence() throws {
        let chat = Fixtures.invite.id, author = Fixtures.bob.publicKey
        let sealed = SealedContent.seal(
            Array("secret".utf8), with: EpochKey(epoch: 7, key: key), chat: chat, author: author, sequence: 3)
        #expect(sealed.count == 6 + SealedContent.overheadBytes)
        #expect(SealedContent.epoch(of: sealed) == 7)
        #expect(
            SealedContent.open(sealed, keys: [key], chat: chat, author: author, sequence: 3) == Array("secret".utf8))
        // Copied under another author or sequence, or opened with another key, it does not open
        #expect(
            SealedContent.open(sealed, keys: [key], chat: chat, author: Fixtures.carol.publicKey, sequence: 3) == nil)
        #expect(SealedContent.open(sealed, keys: [key], chat: chat, author: author, sequence: 4) == nil)
        #expect(
            SealedContent.open(sealed, keys: [try ChatKey.generate()], chat: chat, author: author, sequence: 3) == nil)
        #expect(SealedContent.epoch(of: [1, 2, 3]) == nil)
    }

    @Test func aGrantOpensForItsMemberOnly() throws {
        let grant = try KeyGrant.seal(
            [EpochKey(epoch: 0, key: key), EpochKey(epoch: 1, key: try ChatKey.generate())], to: Fixtures.bob.publicKey)
        let opened = try KeyGrant.open(grant, with: Fixtures.bob)
        #expect(opened.map(\.epoch) == [0, 1])
        #expect(opened[0].key.withRawBytes { $0 } == key.withRawBytes { $0 })
        #expect(throws: CoreError.self) { try KeyGrant.open(grant, with: Fixtures.carol) }
    }

    @Test func aKeyedInviteGivesEachMemberTheSameKeyAndOutsidersNone() throws {
        let invite = try ChatInvite.create(
            by: Fixtures.alice, title: "Team", members: [Fixtures.bob.publicKey, Fixtures.carol.publicKey], key: key,
            createdAtMillis: 5)
        let decoded = try ChatInvite(decoding: invite.encoded)
        #expect(decoded == invite && decoded.isKeyed && decoded.kind == .group)
        for member in [Fixtures.alice, Fixtures.bob, Fixtures.carol] {
            #expect(try decoded.key(for: member)?.key.withRawBytes { $0 } == key.withRawBytes { $0 })
        }
        #expect(try decoded.key(for: Fixtures.mallory) == nil)
        // A legacy invite is still read, as an unkeyed group
        #expect(try ChatInvite(decoding: Fixtures.invite.encoded).isKeyed == false)
    }

    @Test func aDirectChatIsBetweenExactlyTwo() throws {
        let direct = try ChatInvite.create(
            by: Fixtures.alice, kind: .direct, title: "", members: [Fixtures.bob.publicKey], key: key,
            createdAtMillis: 0)
        #expect(try ChatInvite(decoding: direct.encoded).kind == .direct)
        #expect(throws: CoreError.self) {
            try ChatInvite.create(
                by: Fixtures.alice, kind: .direct, title: "",
                members: [Fixtures.bob.publicKey, Fixtures.carol.publicKey], key: key, createdAtMillis: 0)
        }
        #expect(throws: CoreError.self) {
            try ChatInvite.create(by: Fixtures.alice, title: "", members: [], key: key, createdAtMillis: 0)
        }
    }

    @Test func aMembershipChangeRoundTripsAndGrantsEachMemberItsKeys() throws {
        let next = EpochKey(epoch: 2, key: try ChatKey.generate())
        let change = try MembershipChange.make(
            epoch: 2, members: [Fixtures.carol.publicKey, Fixtures.alice.publicKey, Fixtures.alice.publicKey]
        ) { member in
            member == Fixtures.carol.publicKey ? [EpochKey(epoch: 0, key: key), next] : [next]
        }
        let decoded = try MembershipChange(decoding: change.encoded())
        #expect(decoded.epoch == 2)
        #expect(decoded.members == [Fixtures.alice.publicKey, Fixtures.carol.publicKey].sorted())
        #expect(try decoded.keys(for: Fixtures.carol)?.map(\.epoch) == [0, 2])
        #expect(try decoded.keys(for: Fixtures.alice)?.map(\.epoch) == [2])
        #expect(try decoded.keys(for: Fixtures.bob) == nil)
    }

    @Test func malformedMembershipChangesAreRejected() throws {
        let change = try MembershipChange.make(epoch: 1, members: [Fixtures.alice.publicKey, Fixtures.bob.publicKey]) {
            _ in [EpochKey(epoch: 1, key: key)]
        }
        let bytes = change.encoded()
        for length in 0..<bytes.count {
            #expect(throws: CoreError.self) { try MembershipChange(decoding: Array(bytes.prefix(length))) }
        }
        var epochZero = bytes
        epochZero[1...4] = [0, 0, 0, 0]
        #expect(throws: CoreError.self) { try MembershipChange(decoding: epochZero) }
        var unsorted = bytes
        unsorted.replaceSubrange(7..<71, with: Array(bytes[39..<71]) + Array(bytes[7..<39]))
        #expect(throws: CoreError.self) { try MembershipChange(decoding: unsorted) }
        #expect(throws: CoreError.self) { try MembershipChange(decoding: bytes + [0]) }
    }
}
