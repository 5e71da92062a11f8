import ParleyCore
import ParleyCrypto
import Testing

/// PROTOCOL §4.3's keyed-chat vectors, made by the Python implementation of §15 (PyNaCl): a kind
/// `0x03` invite with key grants, a sealed vote, a `Membership` change and a close with its coverage.
/// Sealed boxes are random, so the invite and the change are given as bytes; everything else repeats.
struct KeyedChatVectorsTests {
    static func hex(_ text: String) -> [UInt8] { (try? Hex.decode(text)) ?? [] }

    static let invite = hex(
        "01038a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c00000000000003e8000000000000000000000000000000000205" +
        "4c756e636800038139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b3948a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d" +
        "94121bf3748801b40f6f5ced4928c628d1c2c6eae90338905995612959273a5c63f93636c14614ac8737d100544d7bab65d9679a36ee1225a5db5c9c" +
        "8014bfeb02dc3a0abf2a99828c123e99295bd661561a06b5d10a553bf061848d39ce30fedc9f25b7f6fa1b1a658f329d9f8d7913a8fdfd1145e930a6" +
        "ac277b75da2f1be5db0054651b007d84c087e54a520efc60ed4472bcb82397b23508beae7193fcb04c911e6c475b9e293b5e4379d88b9aa62693eced" +
        "ee7496c1a83c242b6a3a2d411dadeecbc68a43b0571a6c8993666cd5099ae3c4647cf30054d3006da03fc26618566b0870a0a4d057a8fc3de4d184e1" +
        "bfb8e8f2d3b067ab601fddf46be5802edb39f968b6e3eec4e007ab7901c0f597df5362fcc2a80d12fc44567f6c66e2c9e0b13618b40c7a597b15ebc6" +
        "e571cd23d12d653c3d4623a56c8bc0152b72d53a34ac78fa5caf3bcb53e491a66a8ebd2fbb48e3a53d700cf23f58449f12843da820bf9a2deda8c3db" +
        "ef27a5ea0e")
    static let membership = hex(
        "010000000100028139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b3948a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d" +
        "94121bf3748801b40f6f5c00541964e49f668660a15ad09c100d86721b7112226eba6019f27fd41dfea6e8047b97997d5a839b66d731f31a22eae188" +
        "f8ee9ce221f262c7f7f29734fee0e2428cba8015818c8fc404fd9b2712e0c993aa9015c07300543e504ef4c3d3ca9d398687dc4e80a40e6e738ebfdd" +
        "e8efeb6c9efe0e7f9436244ef4270136d159748ae607c12fd962641475345a70358d00d45c386ed7ab14cf2fdd162ee769a0a6026a89efa2cb573f5b" +
        "671829")
    static let vote = hex(
        "01015c9784d0427c95aaba5263d964bcc2ba6e3ed63b0686581d29995a01a71dabc28139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df6" +
        "0f5b8fc9b39400000000000000010000000000000003000000000000002c0a506f6c6c566f7465557001cef301894312d8cf1445b3c6625f49180780" +
        "aeec7038b5a5a6305c877069b7060a506f6c6c566f746555700000002c00000000262626262626262626262626262626262626262626262626afeb40" +
        "afc43bb1fc35f86e3d04bcc7d4bc6364e80cd4eab0a67eb891ae563360331fc70e4bda2c3cbeb52145a48baf8b6740b0a8ca0d7cd4e6ce1e876bf81a" +
        "707dbfee0665c39326acdd722e40efe40c")
    static let close = hex(
        "01015c9784d0427c95aaba5263d964bcc2ba6e3ed63b0686581d29995a01a71dabc28a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf374" +
        "8801b40f6f5c00000000000000040000000000000005000000000000002e09506f6c6c436c6f736501cef301894312d8cf1445b3c6625f49180780ae" +
        "ec7038b5a5a6305c877069b70609506f6c6c436c6f7365000000580000000127272727272727272727272727272727272727272727272715729c3c1b" +
        "976125dbfd42f46b9195905e805f40c242bf05a4d0d38d9453322737e48da44c6988b4c978408a9d3abca939125dac2c6a696f5525ad9dc504f990fd" +
        "7a77dea42ae0b6318d727bd76ce4ef2396135227cc342e206b6b1b4a8bc1b5ed383093d1a4bfa802c6bbcb919c8a372a303316d01f7f260b812700")

    static let bob = Fixtures.bob

    @Test func theKeyedInviteVerifiesAndGrantsBobTheEpochZeroKey() throws {
        let invite = try ChatInvite(decoding: Self.invite)
        #expect(invite.id.hex == "5c9784d0427c95aaba5263d964bcc2ba6e3ed63b0686581d29995a01a71dabc2")
        #expect(invite.isKeyed && invite.kind == .group && invite.title == "Lunch")
        let key = try #require(try invite.key(for: Self.bob))
        #expect(key.epoch == 0)
        key.key.withRawBytes { #expect(Array($0) == [UInt8](repeating: 0x42, count: 32)) }
    }

    @Test func theSealedVoteVerifiesAndOpensToAnEmptyPlaintext() throws {
        let vote = try Message(decoding: Self.vote)
        try vote.verifySignature()
        #expect(vote.id.hex == "7aa7a00970f7db1ea01d3ce72781fcee2c3e3854c0e2b9e2e52e439841ff011c")
        #expect(vote.content.count == 44 && vote.tag == .pollVoteUp)
        let key = try #require(try ChatInvite(decoding: Self.invite).key(for: Self.bob))
        #expect(SealedContent.open(vote.content, keys: [key.key], chat: vote.chat, author: vote.author, sequence: vote.sequence) == [])
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
        #expect(close.id.hex == "cf47cd41055783bd0351d8877eafc774642351a3bbb0871328a077080bd8eb8b")
        let key = try #require(try MembershipChange(decoding: Self.membership).keys(for: Self.bob)?.first)
        let plain = try #require(SealedContent.open(close.content, keys: [key.key], chat: close.chat, author: close.author, sequence: close.sequence))
        let coverage = try PollCoverage.decode(plain)
        #expect(coverage.covers(author: Self.bob.publicKey, sequence: 1) && !coverage.covers(author: Self.bob.publicKey, sequence: 2))
    }
}
