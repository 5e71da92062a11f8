import ArgumentParser

@main
struct Parley: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Peer-to-peer, end-to-end encrypted chat with polls, for one LAN.",
        subcommands: [
            Keygen.self, NodeCommand.self, Contacts.self, Chat.self, Send.self, Messages.self,
            Poll.self, Local.self, Status.self, Open.self,
            React.self, Unreact.self, Reactions.self, Read.self, Receipts.self, Members.self, Typing.self,
        ]
    )
}
