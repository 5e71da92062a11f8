import ArgumentParser
import Foundation
import ParleyAPI
import ParleyTerminal

/// Invites from people who are not contacts: held until the user answers them.
struct Invites: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Invites from people who are not your contacts: list, accept or decline them.",
        discussion:
            "A node joins chats from contacts by itself; an invite from anyone else waits here (at most 10 from one sender and 100 in all, the oldest dropped).",
        subcommands: [List.self, Accept.self, Decline.self], defaultSubcommand: List.self)
}

extension Invites {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the invites waiting for your answer, oldest first.")

        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.invites, options: options, as: [PendingInviteView].self, text: Render.invites)
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join an invite's chat with its history; its creator becomes a contact. Prints the chat id.")

        @Argument(help: "The invite's id (any unique prefix, as 'parley invites' lists it).")
        var invite: String

        @Option(
            help:
                "The contact name for the invite's creator (default: peer-ID); renames the creator if already a contact."
        )
        var name: String?

        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(
                .inviteAccept(invite: invite, name: name), options: options, as: ChatView.self, text: { $0.id },
                notice: { Render.noRoute($0.noRoute) })
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decline an invite; the same invite sent again stays declined.")

        @Argument(help: "The invite's id (any unique prefix, as 'parley invites' lists it).")
        var invite: String

        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.inviteDecline(invite: invite), options: options, as: PendingInviteView.self) {
                "declined the invite to '\(SafeText.singleLine($0.title))' from \(Render.inviter($0.creator))"
            }
        }
    }
}
