import Foundation

/// toxcore, the C core of Tox, measured in the same run as Parley: two processes of
/// `tox-harness.c` on 127.0.0.1 (LAN discovery off, bootstrapped to each other), built here with
/// the system's compiler against Debian's `libtoxcore-dev`. toxcore keeps nothing: a message is
/// gone once delivered, while Parley stores every message on both sides. Without the library or a
/// compiler the run says why and goes on.
struct ToxcoreBaseline: Sendable, Decodable {
    let version: String
    let messages: Int
    let payloadBytes: Int
    let connectSeconds: Double
    let losslessPacedPerSecond: Double
    let losslessPacedLost: Int
    let losslessClosedLoopPerSecond: Double
    let losslessClosedLoopLost: Int
    let messagePacedPerSecond: Double
    let messagePacedLost: Int
    let messageClosedLoopPerSecond: Double
    let messageClosedLoopLost: Int
    let roundTripP50Milliseconds: Double
    let roundTripP99Milliseconds: Double
    let alicePeakRSSMiB: Double
    let bobPeakRSSMiB: Double

    /// One way of sending, and its rate.
    struct Mode: Sendable {
        let name: String
        let perSecond: Double
        let lost: Int
    }

    /// Every mode, fastest first: the first is the run's best.
    var modesFastestFirst: [Mode] {
        [
            Mode(name: "lossless packets, paced", perSecond: losslessPacedPerSecond, lost: losslessPacedLost),
            Mode(
                name: "lossless packets, closed loop", perSecond: losslessClosedLoopPerSecond,
                lost: losslessClosedLoopLost),
            Mode(name: "messages, paced", perSecond: messagePacedPerSecond, lost: messagePacedLost),
            Mode(
                name: "messages, closed loop", perSecond: messageClosedLoopPerSecond, lost: messageClosedLoopLost),
        ].sorted { $0.perSecond > $1.perSecond }
    }

    static let source = "Sources/ParleyBench/Toxcore/tox-harness.c"

    /// Builds the harness into `directory` and runs it: about 10 s to connect, then `messages` of 200
    /// bytes in each of four modes and 1,050 round trips.
    static func measure(messages: Int, directory: String) throws -> ToxcoreBaseline {
        guard FileManager.default.fileExists(atPath: source) else {
            throw PhaseUnavailable(phase: "toxcore", reason: "run from the checkout (\(source) not found)")
        }
        let flags = try Subprocess.run(["pkg-config", "--cflags", "--libs", "toxcore"])
        guard flags.status == 0 else {
            throw PhaseUnavailable(
                phase: "toxcore", reason: "libtoxcore-dev is not installed (apt-get install libtoxcore-dev)")
        }
        guard Subprocess.exists("cc") else {
            throw PhaseUnavailable(phase: "toxcore", reason: "no C compiler (cc) on the PATH")
        }
        let harness = directory + "/tox-harness"
        let build = try Subprocess.run(
            ["cc", "-O2", "-std=c11", source, "-o", harness]
                + flags.output.split(whereSeparator: \.isWhitespace).map(String.init))
        guard build.status == 0 else {
            throw PhaseUnavailable(phase: "toxcore", reason: "the harness did not build: \(build.errors)")
        }
        let run = try Subprocess.run([harness, "--messages", "\(messages)", "--payload", "200"])
        guard run.status == 0, let last = run.output.split(separator: "\n").last else {
            let reason = run.errors.split(separator: "\n").suffix(2).joined(separator: " / ")
            throw PhaseUnavailable(phase: "toxcore", reason: "the harness exited \(run.status): \(reason)")
        }
        return try JSONDecoder().decode(ToxcoreBaseline.self, from: Data(last.utf8))
    }
}
