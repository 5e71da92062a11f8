import ParleyCore
import ParleyCrypto
import Testing

/// Typing indicators expire on the injected monotonic time unless refreshed.
struct TypingTableTests {
    let chat = Fixtures.invite.id
    let bob = Fixtures.bob.publicKey
    let carol = Fixtures.carol.publicKey

    @Test func anIndicatorExpiresAfterTheTimeoutWithoutARefresh() {
        var table = TypingTable(expiry: .seconds(6))
        let changed = table.record(bob, chat: chat, active: true, now: .seconds(1))
        #expect(changed)
        #expect(table.typing(in: chat, now: .milliseconds(6_999)) == [bob])
        // Read before the expiry sweep already leaves him out
        #expect(table.typing(in: chat, now: .seconds(7)) == [])
        // The sweep reports the change once
        let expired = table.expire(now: .seconds(7))
        #expect(expired == [chat: []])
        let expired2 = table.expire(now: .seconds(8))
        #expect(expired2 == [:])
    }

    @Test func aRefreshExtendsTheIndicatorAndIsNotAChange() {
        var table = TypingTable(expiry: .seconds(6))
        table.record(bob, chat: chat, active: true, now: .seconds(0))
        let changed2 = table.record(bob, chat: chat, active: true, now: .seconds(4))
        #expect(!changed2)
        let expired3 = table.expire(now: .seconds(9))
        #expect(expired3 == [:])
        #expect(table.typing(in: chat, now: .seconds(9)) == [bob])
        let expired4 = table.expire(now: .seconds(10))
        #expect(expired4 == [chat: []])
    }

    @Test func stoppingRemovesOnlyThatPeerAtOnce() {
        var table = TypingTable(expiry: .seconds(6))
        table.record(bob, chat: chat, active: true, now: .seconds(0))
        let changed3 = table.record(carol, chat: chat, active: true, now: .seconds(1))
        #expect(changed3)
        #expect(table.typing(in: chat, now: .seconds(1)) == [bob, carol].sorted())
        let changed4 = table.record(bob, chat: chat, active: false, now: .seconds(2))
        #expect(changed4)
        #expect(table.typing(in: chat, now: .seconds(2)) == [carol])
        // A stop from someone not typing changes nothing
        let changed5 = table.record(bob, chat: chat, active: false, now: .seconds(3))
        #expect(!changed5)
        let expired5 = table.expire(now: .seconds(7))
        #expect(expired5 == [chat: []])
    }

    @Test func chatsAreIndependent() throws {
        var table = TypingTable(expiry: .seconds(6))
        let other = try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1).id // any 32-byte id
        table.record(bob, chat: chat, active: true, now: .seconds(0))
        table.record(bob, chat: other, active: true, now: .seconds(3))
        let expired6 = table.expire(now: .seconds(6))
        #expect(expired6 == [chat: []])
        #expect(table.typing(in: other, now: .seconds(6)) == [bob])
    }
}
