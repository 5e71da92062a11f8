/// A phase the run leaves out, and why (a browser, a library or a build missing here, or the phase's
/// helper failing): the run prints it and goes on without that phase's figures.
struct PhaseUnavailable: Error, CustomStringConvertible {
    let phase: String
    let reason: String

    var description: String { "\(phase) not measured: \(reason)" }
}
