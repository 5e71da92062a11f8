import ArgumentParser
import Foundation

/// The default command: every measurement in one run, then the table, the JSON and the chart.
struct RunBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run every measurement, print a table, write JSON and an SVG chart.")

    @Flag(help: "A smoke run of a few seconds: every size scaled down.")
    var quick = false

    @Option(help: "Where to write the figures as JSON.")
    var json = "docs/bench/latest.json"

    @Option(help: "Where to draw the SVG chart.")
    var chart = "docs/bench/chart.svg"

    func run() async throws {
        let scale = quick ? Scale.quick : Scale.full
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let clock = ContinuousClock()
        let started = clock.now
        let progress = Progress()

        progress.phase("micro: libsodium AEAD and Ed25519")
        let crypto = try CryptoLimits.measure(scale)
        progress.phase("micro: UDP datagrams through UDPTransport")
        let udp = try await UDPLimit.measure(scale)
        progress.phase("micro: UDP datagrams of a file's pieces (\(FileTransfer.datagramBytes) B) through UDPTransport")
        let udpPieces = try await UDPLimit.measure(scale, payloadBytes: FileTransfer.datagramBytes)
        progress.phase("micro: SQLite rows through GRDB")
        let sqlite = try await SQLiteLimits.measure(scale, directory: scratch.path)
        let pipeline = PipelineLimit(crypto: crypto, udp: udp, sqlite: sqlite)

        progress.phase("end to end: 2 nodes")
        let two = try await Throughput.twoNodes(scale, directory: scratch.path)
        progress.phase("end to end: latency on idle loopback")
        let latency = try await Latency.measure(scale, directory: scratch.path)
        progress.phase("end to end: 3 nodes")
        let three = try await Throughput.threeNodes(scale, directory: scratch.path)
        progress.phase("idle: \(scale.idleMembers) members online, nobody writing")
        let idle = try await IdleCost.measure(scale, directory: scratch.path)
        progress.phase("catch-up: \(scale.catchUpMessages) missed messages")
        let catchUp = try await CatchUp.measure(scale, directory: scratch.path)
        progress.phase("large store: \(scale.storeMessages) messages, \(scale.votes) votes")
        let store = try await LargeStore.build(scale, directory: scratch.path)
        progress.phase("tally against raw SQL")
        let tally = try await Tally.measure(scale, store: store)
        progress.phase(
            "search: the index over \(scale.storeMessages) messages, then \(SearchLatency.queries().count) queries")
        let search = try await SearchLatency.measure(store: store, messages: scale.storeMessages)
        progress.phase("secret poll: \(scale.secretElectors) electors counted from the creator's publication")
        let secretCount = try await SecretCount.measure(scale, directory: scratch.path)
        progress.phase("files: \(scale.fileBytes >> 20) MiB to a second node, then to a third from both")
        let files = try await FileTransfer.measure(scale, directory: scratch.path)
        progress.phase("toxcore: two processes on loopback, \(scale.toxcoreMessages) messages in each of four modes")
        let toxcore: ToxcoreBaseline?
        do { toxcore = try ToxcoreBaseline.measure(messages: scale.toxcoreMessages, directory: scratch.path) } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            toxcore = nil
        }
        progress.phase("node process: start-up and peak RSS")
        let process = try await NodeProcessProbe.measure(store: store)
        progress.phase("web page in Chromium: first screen after login, of \(scale.webMessages) messages, vote to bar")
        let web: WebPage?
        do { web = try WebPage.measure(scale, directory: scratch.path) } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            web = nil
        }

        let figures = Figures.make(
            scale: scale, crypto: crypto, udp: udp, sqlite: sqlite, pipeline: pipeline, two: two, three: three,
            latency: latency, idle: idle, catchUp: catchUp, tally: tally, search: search, process: process, web: web,
            udpPieces: udpPieces, files: files, toxcore: toxcore, secretCount: secretCount)
        let seconds = (clock.now - started).seconds
        let report = Report(mode: scale.name, durationSeconds: seconds, figures: figures)
        print(TableRenderer.render(report))
        try report.write(json: json)
        try ChartRenderer.write(report, to: chart)
        print("wrote \(json) and \(chart) in \(String(format: "%.0f", seconds)) s")
    }
}

/// One line per phase on stderr, so the table on stdout stays clean.
struct Progress {
    private let clock = ContinuousClock()
    private let start = ContinuousClock.now

    func phase(_ name: String) {
        let elapsed = (clock.now - start).seconds
        FileHandle.standardError.write(Data(String(format: "[%6.1f s] %@\n", elapsed, name).utf8))
    }
}
