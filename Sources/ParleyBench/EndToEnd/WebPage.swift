import Foundation

/// The web app in a real browser (Debian's Chromium through Playwright): the first screen after login
/// (from following the login link to the chat list shown), the first screen of a chat of
/// `webMessages` messages, and the delay from a peer's vote being stored to the bar in the page
/// changing. `Tests/web/measure.py` drives the page; this runs it against the release `parley` and
/// reads its figures. Without a browser, Playwright or a release `parley`, the run says why and goes on.
struct WebPage: Sendable {
    let messages: Int
    let firstScreenAfterLoginMedianMillis: Double
    let firstScreenMedianMillis: Double
    let voteToBarP50Millis: Double
    let voteToBarP99Millis: Double

    private struct Measurements: Decodable {
        struct AfterLogin: Decodable { let median: Double }
        struct FirstScreen: Decodable { let messages: Int, median: Double }
        struct VoteToBar: Decodable { let p50: Double, p99: Double }
        let firstScreenAfterLoginMillis: AfterLogin
        let firstScreenMillis: FirstScreen
        let voteToBarMillis: VoteToBar
    }

    static func measure(_ scale: Scale, directory: String) throws -> WebPage {
        let script = "Tests/web/measure.py"
        guard FileManager.default.fileExists(atPath: script) else {
            throw PhaseUnavailable(phase: "web page", reason: "run from the checkout (\(script) not found)")
        }
        // The node under test is the release build beside this benchmark: `swift build -c release` makes both.
        let parley = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
            .appendingPathComponent("parley").path
        guard FileManager.default.isExecutableFile(atPath: parley) else {
            throw PhaseUnavailable(
                phase: "web page", reason: "no release parley at \(parley) (swift build -c release --product parley)")
        }
        let output = directory + "/web-measurements.json"
        let run = try Subprocess.run(
            [
                "python3", script, "--messages", "\(scale.webMessages)", "--votes", "\(scale.webVotes)", "--output",
                output,
            ],
            environment: ["PARLEY_BIN": parley])
        guard run.status == 0 else {
            // Playwright or Chromium missing is the common case: Tests/run.sh installs both.
            let printed = run.output + run.errors
            let reason = printed.split(separator: "\n").suffix(3).joined(separator: " / ")
            throw printed.contains("No module named 'playwright'") || printed.contains("Executable doesn't exist")
                ? PhaseUnavailable(
                    phase: "web page", reason: "Playwright and Chromium are needed (Tests/run.sh installs them)")
                : PhaseUnavailable(phase: "web page", reason: "Tests/web/measure.py failed: \(reason)")
        }
        let measured = try JSONDecoder().decode(Measurements.self, from: Data(contentsOf: URL(fileURLWithPath: output)))
        return WebPage(
            messages: measured.firstScreenMillis.messages,
            firstScreenAfterLoginMedianMillis: measured.firstScreenAfterLoginMillis.median,
            firstScreenMedianMillis: measured.firstScreenMillis.median,
            voteToBarP50Millis: measured.voteToBarMillis.p50, voteToBarP99Millis: measured.voteToBarMillis.p99)
    }
}
