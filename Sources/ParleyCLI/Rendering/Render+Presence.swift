import Foundation
import ParleyAPI
import ParleyTerminal

extension Render {
    /// `bob  online`, `erin  online via carol`, `carol  offline, last seen 12:03:44`, `dave  offline, never seen`.
    /// A member proven to have signed two histories gets a mark after it (`ForkNotice.memberMark`).
    static func member(_ member: MemberPresenceView) -> String {
        let who = name(member.id, member.name) + (member.you ? " (you)" : "")
        let forked = member.forkedFrom.map { "  " + ForkNotice.memberMark(fromSequence: $0) } ?? ""
        if member.online, let via = member.via { return "\(who)  online via \(name(via, member.viaName))\(forked)" }
        guard !member.online else { return "\(who)  online\(forked)" }
        return "\(who)  offline, " + (member.lastSeenAt.map { "last seen \(clockTime($0))" } ?? "never seen") + forked
    }

    /// "bob is typing…", "bob and carol are typing…", "bob, carol and dave are typing…"; nil for nobody.
    static func typing(_ names: [String]) -> String? {
        guard let last = names.last else { return nil }
        let list = names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
        return "\(list) \(names.count == 1 ? "is" : "are") typing…"
    }

    /// Local time of day, HH:mm:ss.
    private static func clockTime(_ millis: Int64) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1_000))
    }
}
