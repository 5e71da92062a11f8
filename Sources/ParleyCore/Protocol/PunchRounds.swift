/// Two members, in order: an introducer and the member it introduced, a requester and its target.
struct PeerPair: Hashable, Sendable {
    let first: PeerID
    let second: PeerID
}

/// Rounds of punching toward members without reaching them (PROTOCOL.md §12a), for one side of the
/// introductions, kept per `Key` (a member, or an introducer and a member). A round is the
/// introductions acted on for one start time, each introducer's once (several may answer one
/// question, each with the address it observes). A round may start `Rendezvous.askInterval` after
/// the one before, then twice as long after each round that did not reach the member, up to
/// `Rendezvous.maxAskInterval`. Two members behind symmetric NATs, who keep asking to keep each
/// other's beats relayed, thereby stop sending handshakes every 10 s that cannot arrive.
struct PunchRounds<Key: Hashable & Sendable>: Sendable {
    private struct Round {
        var number: Int
        var start: Duration
        /// When the next round may start.
        var next: Duration
    }

    private var rounds: [Key: Round] = [:]
    /// (introducer, member) → the start of the round its introduction was acted on in.
    private var acted: [PeerPair: Duration] = [:]

    /// Whether to act on `introducer`'s introduction to `peer` in `key`'s round starting at `start`:
    /// the round's number when so (and recorded); nil for an earlier round, a new one not due yet, an
    /// introducer already acted on in this round, or tables full of entries still in use.
    mutating func admit(_ key: Key, _ peer: PeerID, from introducer: PeerID, roundStart start: Duration, now: Duration)
        -> Int?
    {
        let round = rounds[key]
        let newRound = round?.start != start
        if newRound, let round, start < round.next { return nil }
        let pair = PeerPair(first: introducer, second: peer)
        guard acted[pair] != start else { return nil }
        if newRound, round == nil, rounds.count >= Rendezvous.pruneAbove {
            rounds = rounds.filter { now < $0.value.next + Rendezvous.maxAskInterval }
            guard rounds.count < Rendezvous.pruneAbove else { return nil }
        }
        if acted[pair] == nil, acted.count >= Rendezvous.pruneAbove {
            // An entry for a round older than the window can never match an introduction acted on again.
            acted = acted.filter { now - $0.value < Rendezvous.meetWindow }
            guard acted.count < Rendezvous.pruneAbove else { return nil }
        }
        acted[pair] = start
        guard newRound else { return round?.number }
        let number = (round?.number ?? 0) + 1
        rounds[key] = Round(number: number, start: start, next: start + Rendezvous.backoff(after: number))
        return number
    }

    /// `key`'s rounds start over.
    mutating func reset(_ key: Key) { rounds[key] = nil }

    /// Every key's rounds for which `matches` holds start over.
    mutating func reset(where matches: (Key) -> Bool) {
        rounds = rounds.filter { !matches($0.key) }
    }
}
