import ArgumentParser

/// How far a command line names real commands: the path of subcommands it names ("parley poll create"),
/// and the first word where a subcommand was expected but none has that name, with the closest one.
/// Read from the raw arguments, because a parse error leaves no parsed command to ask.
struct CommandPath: Equatable {
    /// "parley", then each subcommand named: what `--help` follows in the hint of a usage error.
    let names: [String]
    /// The word in a subcommand's place that names none ("sendd"), if any.
    let unknown: String?
    /// The subcommand `unknown` most likely meant, if one is close enough.
    let suggestion: String?

    init(_ arguments: some Sequence<String>, root: any ParsableCommand.Type) {
        var command = root
        var names = [root._commandName]
        var unknown: String?
        for word in arguments {
            let subcommands = Self.subcommands(of: command)
            // Options come after the subcommand.
            guard !word.hasPrefix("-"), !subcommands.isEmpty else { break }
            if let index = subcommands.firstIndex(where: { $0.name == word }) {
                command = subcommands[index].type
                names.append(word)
                continue
            }
            // A command with a default subcommand takes the word as that subcommand's own.
            if command.configuration.defaultSubcommand == nil { unknown = word }
            break
        }
        let candidates = Self.subcommands(of: command).map(\.name)
        self.names = names
        self.unknown = unknown
        if let unknown { suggestion = Self.closest(to: unknown, among: candidates) } else { suggestion = nil }
    }

    private static func subcommands(of command: any ParsableCommand.Type) -> [(
        name: String, type: any ParsableCommand.Type
    )] {
        var found: [(name: String, type: any ParsableCommand.Type)] = []
        for type in command.configuration.subcommands { found.append((type._commandName, type)) }
        return found
    }

    /// The name `word` is a prefix of, or else the nearest within two edits (a typo, a doubled or
    /// dropped letter); nil when nothing is that close.
    static func closest(to word: String, among names: [String]) -> String? {
        let lowered = word.lowercased()
        if let extended = names.first(where: { $0.hasPrefix(lowered) }) { return extended }
        let scored = names.map { (name: $0, distance: editDistance(lowered, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
            best.distance <= min(2, max(1, lowered.count / 2))
        else { return nil }
        return best.name
    }

    /// Levenshtein distance: insertions, deletions and substitutions of characters.
    static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let (left, right) = (Array(lhs), Array(rhs))
        var previous = Array(0...right.count)
        for (i, character) in left.enumerated() {
            var current = [i + 1]
            for (j, other) in right.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (character == other ? 0 : 1)))
            }
            previous = current
        }
        return previous[right.count]
    }

    /// "unknown command 'sendd'; did you mean 'send'?", or the list of commands to choose from.
    var unknownMessage: String? {
        guard let unknown else { return nil }
        let place = names.count > 1 ? "unknown '\(names.joined(separator: " "))' command" : "unknown command"
        return suggestion.map { "\(place) '\(unknown)'; did you mean '\($0)'?" } ?? "\(place) '\(unknown)'"
    }
}
