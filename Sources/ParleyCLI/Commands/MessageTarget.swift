import ArgumentParser

/// CHAT and MESSAGE, shared by the commands that act on one message (edit, delete, pin, thread).
struct MessageTarget: ParsableArguments {
    @Argument(help: "The chat (id prefix or title).") var chat: String
    @Argument(help: "The message's id (a unique prefix is enough).") var message: String
}
