import ParleyAPI
import ParleyTerminal

/// Secret polls: counts only, never voters; before the close, only who may vote and where this
/// user's ballot is.
extension Render {
    static func secretPoll(_ poll: PollResultsView, _ secret: SecretPollView, header: String) -> String {
        var lines = [header]
        if let description = poll.description { lines.append("  \(SafeText.singleLine(description))") }
        lines.append(
            "  electorate (\(secret.electorate.count)): "
                + secret.electorate.map { name($0.id, $0.name) }.joined(separator: ", "))
        if let problem = secret.electorateProblem {
            lines.append("  refused on every node, counts nothing and takes no ballot: \(SafeText.singleLine(problem))")
        } else {
            lines.append("  " + hiddenAmongLine(secret))
        }
        if secret.resultsFinal {
            if let up = poll.up, let down = poll.down {
                lines.append("  up \(up)  down \(down)")
            } else {
                lines += optionLines(poll)
            }
            lines.append(
                "  \(secret.counted ?? 0) of \(secret.electorate.count) electors counted; \(secret.conflicting ?? 0) conflicting, "
                    + "\(secret.rejected ?? 0) rejected, \(secret.late ?? 0) after the close"
                    + ((secret.byOthers ?? 0) > 0
                        ? ", \(secret.byOthers ?? 0) published by others than the creator (not counted)" : ""))
            if let suppressed = secret.suppressed, suppressed > 0 {
                let by = (secret.suppressionRevealedBy ?? []).map { name($0.id, $0.name) }.joined(separator: ", ")
                lines.append(
                    "  disputed: \(suppressed) ballot\(suppressed == 1 ? "" : "s") committed to by \(by) at the closing time "
                        + "not published by the creator (left out by the creator, or never handed over); the counts above leave \(suppressed == 1 ? "it" : "them") out"
                )
            }
        } else {
            if let options = poll.options { lines += options.map { "  [\($0.id)] \(SafeText.singleLine($0.text))" } }
            lines.append(
                "  secret ballot: results at the close, when every ballot is published at once; no one sees who cast which"
            )
        }
        if let own = secret.ownBallot {
            // After the close this node keeps only that this user voted, unless asked to keep the choice.
            let choice = poll.ownVotes.map { optionLabel($0, poll) }.joined(separator: "+")
            lines.append(
                choice.isEmpty
                    ? "  you voted (your choice was erased from this node at the close): " + ownBallotLine(own)
                    : "  your ballot (\(choice)): " + ownBallotLine(own))
        }
        return lines.joined(separator: "\n")
    }

    private static func ownBallotLine(_ own: SecretPollView.OwnBallot) -> String {
        switch own {
        case .relayed: "sealed and relayed; published with every ballot after the closing time"
        case .published: "published, waiting for the creator's close"
        case .counted: "counted"
        case .notCounted:
            "not counted (not published before the close: lost on its way, or alone after the creator's batch)"
        }
    }

    /// The voter's anonymity set, shown before casting: the creator reads every ballot, so a vote
    /// hides only among the others.
    static func hiddenAmongLine(_ secret: SecretPollView) -> String {
        "your vote is hidden among \(secret.hiddenAmong) members (the electors besides the poll's creator)"
    }

    static func secretBallot(_ cast: SecretBallotView, poll: PollResultsView) -> String {
        let choice = cast.selection.map { optionLabel($0, poll) }.joined(separator: "+")
        let when = poll.closesAtMillis.map { " (\(time($0)))" } ?? ""
        let hidden = poll.secret.map { "; \(hiddenAmongLine($0))" } ?? ""
        let paths = cast.paths.map {
            "through \(name($0.firstRelay, $0.firstRelayName)) sealed for \(name($0.publisher, $0.publisherName))"
        }
        return
            "secret ballot cast (\(choice)): sent \(paths.joined(separator: " and ")); published with every ballot after the close\(when); "
            + "your choice stays on this node until the close\(hidden)"
    }
}
