import Foundation
import ParleyTerminal
import ParleyAPI

extension Render {
    /// Sections "direct" and "groups", each sorted by name (the node's order).
    /// `parley invites`: who invites you to what, with the id to answer with. The creator is named
    /// when a contact, else "someone (key prefix)"; the members are listed without you and the creator.
    static func invites(_ invites: [PendingInviteView]) -> String {
        guard !invites.isEmpty else { return "(no invites waiting)" }
        return invites.map { invite in
            let others = invite.members.filter { $0.id != invite.creator.id }.map { name($0.id, $0.name) }
            let with =
                invite.kind == "direct" || others.isEmpty ? "" : " with you and \(others.joined(separator: ", "))"
            let what = invite.kind == "direct" ? "a direct chat" : "'\(SafeText.singleLine(invite.title))'"
            return
                "\(invite.id.prefix(12))  \(inviter(invite.creator)) invites you to \(what)\(with), \(time(invite.receivedAtMillis))\n"
                + "  parley invites accept \(invite.id.prefix(12)) --name NAME   |   parley invites decline \(invite.id.prefix(12))"
        }.joined(separator: "\n")
    }

    /// An invite's creator: its contact name, else "someone" and its key's first 12 hex digits.
    static func inviter(_ creator: MemberView) -> String {
        creator.name.map(SafeText.singleLine) ?? "someone (\(creator.id.prefix(12)))"
    }

    /// How a legacy chat, whose content travels unsealed, is marked wherever it is named.
    static let unsealedMark = "[not end-to-end sealed]"

    static func chatList(_ chats: [ChatView]) -> String {
        guard !chats.isEmpty else { return "(no chats)" }
        var lines: [String] = []
        for (kind, heading) in [("direct", "Direct"), ("group", "Groups")] {
            let section = chats.filter { $0.kind == kind }
            guard !section.isEmpty else { continue }
            lines.append("\(heading):")
            for chat in section {
                let last = chat.lastMessage.map { " — \(name($0.author, $0.authorName)): \(preview($0.text))" } ?? ""
                let members =
                    kind == "group" ? "  [\(chat.members.map { name($0.id, $0.name) }.joined(separator: ", "))]" : ""
                let unread = chat.unread > 0 ? "  (\(chat.unread) unread)" : ""
                let unsealed = chat.sealed ? "" : "  " + unsealedMark
                let waiting =
                    chat.waitingFor.isEmpty
                    ? ""
                    : "  (waiting for \(chat.waitingFor.map { name($0.id, $0.name) }.joined(separator: ", ")) to accept)"
                let unreachable =
                    chat.noRoute.isEmpty
                    ? ""
                    : "  (no address known for \(chat.noRoute.map { name($0.id, $0.name) }.joined(separator: ", ")))"
                let forked = ForkNotice.mark(forkMembers(chat)).map { "  " + $0 } ?? ""
                lines.append(
                    "  \(chat.id.prefix(12))  \(SafeText.singleLine(chat.name))\(unsealed)\(forked)\(members)\(waiting)\(unreachable)\(unread)  \(chat.messageCount) messages\(last)"
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The chat's members proven to have signed two histories (`ChatView.forked`), for `ForkNotice`.
    static func forkMembers(_ chat: ChatView) -> [ForkNotice.Member] {
        chat.forked.map { ForkNotice.Member(id: $0.id, name: $0.name, fromSequence: $0.fromSequence) }
    }

    /// The chat `text` names among `chats`, as the node resolves it (an id prefix, else a title);
    /// nil when it is not one of them.
    static func chat(named text: String, in chats: [ChatView]) -> ChatView? {
        let prefix = text.lowercased()
        let byID = chats.filter { !prefix.isEmpty && $0.id.hasPrefix(prefix) }
        if byID.count == 1 { return byID[0] }
        let titled = chats.filter { $0.title.caseInsensitiveCompare(text) == .orderedSame }
        return titled.count == 1 ? titled[0] : nil
    }

    /// What to tell the user about members nothing can reach (`ChatView.noRoute`), or nil. A `--peer`
    /// address alone is not enough: the node there answers this one's announces only once this user is
    /// its contact or shares a chat with it (PROTOCOL.md §12), so the line says both ways out.
    static func noRoute(_ members: [MemberView]) -> String? {
        guard !members.isEmpty else { return nil }
        let names = members.map { name($0.id, $0.name) }.joined(separator: ", ")
        let example =
            members.count == 1
            ? "\(members[0].id) --name \(members[0].name.map(shellWord) ?? "NAME")" : "ID --name NAME"
        return
            "no address known for \(names): a node answers only its contacts and chat members, so have them add you as a contact "
            + "('parley status' prints your id), or add their address: 'parley contacts add \(example) --addr HOST:PORT'"
    }

    /// `text` as one shell word, quoted only when it has to be, so the suggested command can be pasted.
    static func shellWord(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
            }
        return plain
            ? text
            : "\""
                + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "$", with: "\\$").replacingOccurrences(of: "`", with: "\\`") + "\""
    }

    static func members(_ chat: ChatView) -> String {
        let forked = Dictionary(chat.forked.map { ($0.id, $0.fromSequence) }, uniquingKeysWith: min)
        let members = chat.members.map { member in
            name(member.id, member.name)
                + (forked[member.id].map { " (\(ForkNotice.memberMark(fromSequence: $0)))" } ?? "")
        }
        return "\(SafeText.singleLine(chat.name)): \(members.joined(separator: ", ")) (epoch \(chat.epoch))"
    }

    private static func preview(_ text: String) -> String {
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return line.count > 40 ? String(line.prefix(39)) + "…" : line
    }
}
