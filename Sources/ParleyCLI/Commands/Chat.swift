import ArgumentParser
import ParleyAPI

struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create and list chats; the creator of a group adds and removes members.",
        subcommands: [Create.self, List.self, Add.self, Remove.self])
}

extension Chat {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a chat and say so; piped, it prints the chat's id alone (with --json, the chat's view).")

        @Argument(help: "The chat's name (optional for a direct chat).")
        var title: String = ""

        @Option(name: .customLong("member"), help: "A member (contact name or id); repeat for each.")
        var members: [String] = []

        @Flag(help: "A direct chat with exactly one other person: its members never change.")
        var direct = false

        @OptionGroup var options: ClientOptions

        func validate() throws {
            if direct, members.count != 1 { throw ValidationError("a direct chat takes exactly one --member") }
            if !direct, title.isEmpty { throw ValidationError("a group chat needs a name") }
        }

        func run() async throws {
            let request = APIRequest.chatCreate(title: title, members: members, kind: direct ? "direct" : "group")
            try await runPosting(
                request, options: options, as: ChatView.self, id: \.id, notice: { Render.noRoute($0.noRoute) })
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List your chats: direct chats, then groups, each most recently active first.")
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.chatList, options: options, as: [ChatView].self, text: Render.chatList)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add members to a group you created.")

        @Argument(help: "The chat (id prefix or name).")
        var chat: String

        @Argument(help: "Members to add (contact names or ids).")
        var members: [String]

        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(
                .chatAddMembers(chat: chat, members: members), options: options, as: ChatView.self,
                text: Render.members,
                notice: { Render.noRoute($0.noRoute) })
        }
    }

    struct Remove: AsyncParsableCommand {
        // The discussion states docs/THREAT_MODEL.md ("removal is forward-only"); change both together.
        static let configuration = CommandConfiguration(
            abstract:
                "Remove members from a group you created; the chat is re-keyed, so they read nothing sent afterwards.",
            discussion: """
                Removal is forward-only. The chat is re-keyed for the members who stay: a removed member cannot \
                read anything sent after the removal, nor post with the new key. It keeps the keys of the epochs it \
                was in, so it still reads what was sent while it was a member, and it can still post into those \
                epochs (every node stores and counts such posts, votes too, as posts of that earlier epoch). Adding \
                it back with 'parley chat add' gives it every key, so by design it then also reads what was sent \
                while it was away.
                """)

        @Argument(help: "The chat (id prefix or name).")
        var chat: String

        @Argument(help: "Members to remove (contact names or ids).")
        var members: [String]

        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(
                .chatRemoveMembers(chat: chat, members: members), options: options, as: ChatView.self,
                text: Render.members,
                notice: { Render.noRoute($0.noRoute) })
        }
    }
}
