import ParleyCore
import ParleyCrypto
import Testing

/// PROTOCOL §4.3's keyed-chat vectors, made by the Python implementation of §15 (PyNaCl): a kind
/// `0x03` invite with key grants, alice's first batch (a chained text, the poll as its head), a sealed
/// vote, a `Membership` change and a close with its coverage.
/// Sealed boxes are random, so the invite and the change are given as bytes; everything else repeats.
struct KeyedChatVectorsTests {
    static func hex(_ text: String) -> [UInt8] { (try? Hex.decode(text)) ?? [] }

    static let invite = hex(
        "02038a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c00000000000003e8000000000000000000000000000000000205"
            + "4c756e636800038139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b3948a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d"
            + "94121bf3748801b40f6f5ced4928c628d1c2c6eae90338905995612959273a5c63f93636c14614ac8737d100544d7bab65d9679a36ee1225a5db5c9c"
            + "8014bfeb02dc3a0abf2a99828c123e99295bd661561a06b5d10a553bf061848d39ce30fedc9f25b7f6fa1b1a658f329d9f8d7913a8fdfd1145e930a6"
            + "ac277b75da2f1be5db0054651b007d84c087e54a520efc60ed4472bcb82397b23508beae7193fcb04c911e6c475b9e293b5e4379d88b9aa62693eced"
            + "ee7496c1a83c242b6a3a2d411dadeecbc68a43b0571a6c8993666cd5099ae3c4647cf30054d3006da03fc26618566b0870a0a4d057a8fc3de4d184e1"
            + "bfb8e8f2d3b067ab601fddf46be5802edb39f968b6e3eec4e007ab7901c0f597df5362fcc2a80d12fc44567f6c66e2c9e0b13618b40c7a597b15ebc6"
            + "e5213ca7db3d48c5ae545b9d45c0d117bc87d0da9f665afa47042cd9dd0d2ec96474fe61ddbbafe1c97bc3c520b1af6d3fa61e85c7f4d3b7a8224ae0"
            + "c14bba5508")
    static let membership = hex(
        "010000000100028139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b3948a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d"
            + "94121bf3748801b40f6f5c00541964e49f668660a15ad09c100d86721b7112226eba6019f27fd41dfea6e8047b97997d5a839b66d731f31a22eae188"
            + "f8ee9ce221f262c7f7f29734fee0e2428cba8015818c8fc404fd9b2712e0c993aa9015c07300543e504ef4c3d3ca9d398687dc4e80a40e6e738ebfdd"
            + "e8efeb6c9efe0e7f9436244ef4270136d159748ae607c12fd962641475345a70358d00d45c386ed7ab14cf2fdd162ee769a0a6026a89efa2cb573f5b"
            + "671829")
    static let vote = hex(
        "02012288f1fda6c8685b63377c94dbab062a2e4f6ac9bf35f7a114091a7be70e5f298139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df6"
            + "0f5b8fc9b394000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000003000000000000"
            + "002c0a506f6c6c566f74655570013a6f6cc99e5ac309c8312e6d35a39ff741a2e4c7acdc1bef2cf2f8e5f8076d510a506f6c6c566f74655570000000"
            + "2c0000000026262626262626262626262626262626262626262626262645143e298c23adb4397a89fa0dd49f3f01a10b1a933b8f22421f109b834fff"
            + "1aac34aaa0611e7bb31d7661a12e9b586bcad5cbc734612630fbca9c7c72c4f3194ee2b09fab6241aef3f157c71c8e338c00")
    static let close = hex(
        "02012288f1fda6c8685b63377c94dbab062a2e4f6ac9bf35f7a114091a7be70e5f298a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf374"
            + "8801b40f6f5c0000000000000004959afa692fff87bf091ad933bac6a0f796c9ea6d6e456de92526d592c47165db0000000000000005000000000000"
            + "002e09506f6c6c436c6f7365013a6f6cc99e5ac309c8312e6d35a39ff741a2e4c7acdc1bef2cf2f8e5f8076d5109506f6c6c436c6f73650000005800"
            + "00000127272727272727272727272727272727272727272727272715729c3c1b976125dbfd42f46b9195905e805f40c242bf05a4d0d38d9453322737"
            + "e48da44c6988b4c978408ada251222fd734d533caf2fd2777e28a101698ce329bbc833bec8052faf10e75c1fbe379f15c53f8b4e0492893675fe5def"
            + "7109ad09222ba9ffbbad700e0b69eb6dbd808c039005fe74f8de13211ee9020c")

    static let text = hex(
        "02012288f1fda6c8685b63377c94dbab062a2e4f6ac9bf35f7a114091a7be70e5f298a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf374"
            + "8801b40f6f5c000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000"
            + "002a0454657874000000002e00000000242424242424242424242424242424242424242424242424cd37aae07c5ce322b7c281aed87669babbd900"
    )
    static let poll = hex(
        "02012288f1fda6c8685b63377c94dbab062a2e4f6ac9bf35f7a114091a7be70e5f298a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf374"
            + "8801b40f6f5c00000000000000026fa19a548eab120809173f26bbfda43b7384258c14dc7dcb9d9c2c5bed0c424c0000000000000002000000000000"
            + "002b04506f6c6c000000003200000000252525252525252525252525252525252525252525252525d7233626d7be329575d030558b921b53b6bb1d6b"
            + "55bb01eaa871a150ba9e6e9a8144cd52948c16f6ebfc9204c324f96db9b1764e0c5fc28431d99eebf07441eeb1700030830feaaa68e43021e76d649d"
            + "1fe545de8faf0f")

    static let bob = Fixtures.bob

    @Test func theKeyedInviteVerifiesAndGrantsBobTheEpochZeroKey() throws {
        let invite = try ChatInvite(decoding: Self.invite)
        #expect(invite.id.hex == "2288f1fda6c8685b63377c94dbab062a2e4f6ac9bf35f7a114091a7be70e5f29")
        #expect(invite.isKeyed && invite.kind == .group && invite.title == "Lunch")
        let key = try #require(try invite.key(for: Self.bob))
        #expect(key.epoch == 0)
        key.key.withRawBytes { #expect(Array($0) == [UInt8](repeating: 0x42, count: 32)) }
    }

    @Test func theSealedVoteVerifiesAndOpensToAnEmptyPlaintext() throws {
        let vote = try Message(decoding: Self.vote)
        try vote.verifySignature()
        #expect(vote.id.hex == "809b555445da3c2a910484687ca699c46119123ac04906fef8c94fca002e8203")
        #expect(vote.content.count == 44 && vote.tag == .pollVoteUp)
        let key = try #require(try ChatInvite(decoding: Self.invite).key(for: Self.bob))
        #expect(
            SealedContent.open(
                vote.content, keys: [key.key], chat: vote.chat, author: vote.author, sequence: vote.sequence) == [])
    }

    @Test func theMembershipChangeGivesBobTheEpochOneKeyAndCarolNothing() throws {
        let change = try MembershipChange(decoding: Self.membership)
        #expect(change.epoch == 1 && change.members == [Fixtures.bob.publicKey, Fixtures.alice.publicKey].sorted())
        let keys = try #require(try change.keys(for: Self.bob))
        #expect(keys.map(\.epoch) == [1])
        keys[0].key.withRawBytes { #expect(Array($0) == [UInt8](repeating: 0x43, count: 32)) }
        #expect(try change.keys(for: Fixtures.carol) == nil)
    }

    @Test func theCloseIsSealedForEpochOneAndCoversBobsVote() throws {
        let close = try Message(decoding: Self.close)
        try close.verifySignature()
        #expect(close.id.hex == "98cc419cc6a841ef45c95ab7855f18aeff2ad2ab67b4172d47e20f7a73b45a51")
        let key = try #require(try MembershipChange(decoding: Self.membership).keys(for: Self.bob)?.first)
        let plain = try #require(
            SealedContent.open(
                close.content, keys: [key.key], chat: close.chat, author: close.author, sequence: close.sequence))
        let coverage = try PollCoverage.decode(plain)
        #expect(
            coverage.covers(author: Self.bob.publicKey, sequence: 1)
                && !coverage.covers(author: Self.bob.publicKey, sequence: 2))
    }

    @Test func thePollIsTheHeadOfAlicesFirstBatchAndVouchesForTheText() throws {
        let text = try Message(decoding: Self.text)
        let poll = try Message(decoding: Self.poll)
        #expect(text.id.hex == "6fa19a548eab120809173f26bbfda43b7384258c14dc7dcb9d9c2c5bed0c424c" && !text.isHead)
        #expect(poll.id.hex == "3a6f6cc99e5ac309c8312e6d35a39ff741a2e4c7acdc1bef2cf2f8e5f8076d51" && poll.isHead)
        #expect(throws: CryptoError.badSignature) { try text.verifySignature() }
        try poll.verifySignature()
        #expect(poll.previous == text.id)
        // The same chain rebuilt from drafts gives the same bytes: the Swift and Python encoders agree
        let alice = Fixtures.alice
        let rebuilt = try MessageDraft(
            chat: text.chat, author: alice.publicKey, sequence: 1, lamport: 1, timestampMillis: 42, tag: .text,
            content: text.content
        ).chained()
        #expect(rebuilt.encoded == Self.text)
        let head = try MessageDraft(
            chat: poll.chat, author: alice.publicKey, sequence: 2, previous: rebuilt.id, lamport: 2,
            timestampMillis: 43, tag: .poll,
            content: poll.content
        ).signed(by: alice)
        #expect(head.encoded == Self.poll)
    }
}
