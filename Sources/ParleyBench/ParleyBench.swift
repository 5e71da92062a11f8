import ArgumentParser

/// `parley-bench`: measures the limits Parley stands on and Parley itself against them (issue #5).
@main
struct ParleyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-bench",
        abstract: "Measure Parley end to end on loopback against the limits of the libraries it uses.",
        subcommands: [RunBenchmark.self, ServeNode.self, ProfilePhase.self],
        defaultSubcommand: RunBenchmark.self
    )
}
