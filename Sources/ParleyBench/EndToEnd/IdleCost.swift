import Foundation
import ParleyCore

/// What idle nodes cost: `members` in-process nodes in one chat, every member online, nobody writing.
/// After the chat settles (every member joined, presence exchanged), the process's CPU time
/// (`getrusage`, user + system, all threads) over `seconds` of wall time, per node, as a share of one
/// core. Heartbeats, sync rounds, retransmit timers and the receive loops are all in it.
struct IdleCost: Sendable {
    let members: Int
    let seconds: Double
    let processCPUSeconds: Double

    /// Per node, in percent of one core.
    var percentOfACorePerNode: Double { processCPUSeconds / seconds / Double(members) * 100 }

    static func measure(_ scale: Scale, directory: String) async throws -> IdleCost {
        let peers = try await BenchPeer.group(scale.idleMembers, directory: directory, name: "idle")
        return try await BenchPeer.running(peers) {
            _ = try await BenchPeer.chat(peers, title: "idle")
            // Past the first presence and sync rounds, so the window sees only the steady state.
            try await Task.sleep(for: .seconds(6))
            let before = Self.processCPUSeconds()
            let start = ContinuousClock.now
            try await Task.sleep(for: scale.idleDuration)
            let wall = (ContinuousClock.now - start).seconds
            return IdleCost(members: peers.count, seconds: wall, processCPUSeconds: Self.processCPUSeconds() - before)
        }
    }

    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
