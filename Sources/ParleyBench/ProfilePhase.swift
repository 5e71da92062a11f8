import ArgumentParser

/// Hidden: runs one end-to-end phase alone, to profile it (`perf record -g parley-bench profile throughput2`).
struct ProfilePhase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile", abstract: "Run one phase alone.", shouldDisplay: false)

    enum Phase: String, ExpressibleByArgument, CaseIterable {
        case throughput2, throughput3, latency, idle, catchup, tally, search, files, secretpoll
    }

    @Argument(help: "throughput2, throughput3, latency, idle, catchup, tally, search, files or secretpoll.")
    var phase: Phase

    @Flag(help: "Use the --quick sizes.")
    var quick = false

    func run() async throws {
        let scale = quick ? Scale.quick : Scale.full
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        switch phase {
        case .throughput2:
            let result = try await Throughput.twoNodes(scale, directory: scratch.path)
            print("2 nodes: \(result.messages) messages in \(result.seconds) s = \(result.perSecond) msg/s")
        case .throughput3:
            let result = try await Throughput.threeNodes(scale, directory: scratch.path)
            print("3 nodes: \(result.messages) messages in \(result.seconds) s = \(result.perSecond) msg/s")
        case .latency:
            let result = try await Latency.measure(scale, directory: scratch.path)
            print("latency p50 \(result.p50Milliseconds) ms, p99 \(result.p99Milliseconds) ms, lost \(result.lost)")
        case .idle:
            let result = try await IdleCost.measure(scale, directory: scratch.path)
            print(
                "idle: \(result.members) nodes, \(result.processCPUSeconds) CPU s in \(result.seconds) s = \(result.percentOfACorePerNode) % of a core per node"
            )
        case .catchup:
            let result = try await CatchUp.measure(scale, directory: scratch.path)
            print("catch-up: \(result.messages) messages in \(result.seconds) s = \(result.perSecond) msg/s")
        case .tally:
            let store = try await LargeStore.build(scale, directory: scratch.path)
            print("store built in \(store.buildSeconds) s")
            let result = try await Tally.measure(scale, store: store)
            print(
                "tally \(result.tallySeconds * 1000) ms, raw \(result.rawSeconds * 1000) ms, up \(result.up) down \(result.down)"
            )
        case .search:
            let store = try await LargeStore.build(scale, directory: scratch.path)
            print("store built in \(store.buildSeconds) s")
            let result = try await SearchLatency.measure(store: store, messages: scale.storeMessages)
            print(
                "search: index \(result.indexSeconds) s, \(result.samples.count) queries p50 \(result.p50Milliseconds) ms, p99 \(result.p99Milliseconds) ms, \(result.hits) hits"
            )
        case .files:
            let result = try await FileTransfer.measure(scale, directory: scratch.path)
            let mebibytes = result.bytes / 1_048_576
            print(
                "files: \(mebibytes) MiB from one member \(result.fromOneMBps) MiB/s, from both \(result.fromBothMBps) MiB/s, plain copy \(result.copyMBps) MiB/s"
            )
        case .secretpoll:
            let result = try await SecretCount.measure(scale, directory: scratch.path)
            print(
                "secret poll: \(result.electors) electors, set up in \(result.setupSeconds) s, counted in \(result.countSeconds) s from its publication, its ballots checked on one core in \(result.oneCoreSeconds) s"
            )
        }
    }
}
