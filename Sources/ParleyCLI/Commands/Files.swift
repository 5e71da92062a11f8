import ArgumentParser
import Foundation
import ParleyAPI
import ParleyControlSocket
import ParleyTerminal

struct Files: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a chat's files and pictures, or fetch and save one ('files get').",
        subcommands: [FilesList.self, FilesGet.self], defaultSubcommand: FilesList.self)
}

struct FilesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "A chat's files and pictures, oldest first: id, name, size, type and state.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(.files(chat: chat), options: options, as: [FileView].self) { files in
            files.isEmpty ? "no files in this chat" : files.map(FileLines.line).joined(separator: "\n")
        }
    }
}

struct FilesGet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Fetch a file from the members holding it (if not held yet) and save a copy into a folder.",
        discussion:
            "On a terminal a progress bar shows the fetch. Stopping this command does not stop the fetch: the node goes on, and a later 'files get' finds it done or further along."
    )

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Argument(help: "The file's message id (a prefix).")
    var file: String

    @Option(help: "The folder to save into (default: the current one).")
    var to: String?

    @Option(help: "Give up after this many seconds without the whole file.")
    var timeout: Double = 600

    @Flag(help: "Start the fetch and return at once (the node goes on; 'files' shows how far it is).")
    var noWait = false

    @OptionGroup var options: ClientOptions

    func validate() throws {
        guard timeout.isFinite, (0...86_400 * 30).contains(timeout) else {
            throw ValidationError("--timeout is a number of seconds from 0 to 2592000")
        }
        if noWait, to != nil { throw ValidationError("--no-wait saves nothing: give --to on a later 'files get'") }
    }

    func run() async throws {
        if noWait {
            return try await runRequest(.fileFetch(chat: chat, file: file), options: options, as: FileView.self) {
                view in
                view.state == "held"
                    ? "\(FileLines.summary(view)) is held here"
                    : "fetching \(FileLines.summary(view)): \(FileLines.state(view))"
            }
        }
        let folder = to ?? FileManager.default.currentDirectoryPath
        let absolute =
            folder.hasPrefix("/")
            ? folder : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(folder)
        let client = try await options.client()
        do {
            try await fetch(client)
            let saved = try await client.call(.fileSave(chat: chat, file: file, to: absolute), as: SavedFileView.self)
            await client.close()
            print(
                options.json
                    ? try APIJSON.encode(saved)
                    : SafeText.display("saved \(FileLines.summary(saved.file)) to \(saved.path)"))
        } catch {
            await client.close()
            throw error
        }
    }

    /// Starts the fetch and follows it until the file is held, drawing the bar on a terminal's stderr.
    private func fetch(_ client: ControlClient) async throws {
        var view = try await client.call(.fileFetch(chat: chat, file: file), as: FileView.self)
        let drawing = !options.json && isatty(STDERR_FILENO) == 1
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1_000))
        while view.state != "held" {
            if drawing {
                FileHandle.standardError.write(
                    Data("\r\u{1B}[2K\(SafeText.singleLine(FileLines.progressBar(view)))".utf8))
            }
            guard ContinuousClock.now < deadline else {
                if drawing { FileHandle.standardError.write(Data("\n".utf8)) }
                throw CLIError(
                    "file \(view.id.prefix(8)) is not whole after \(Int(timeout)) s (\(FileLines.percent(view))%, \(view.sources) members serving it); the node goes on fetching",
                    kind: .unavailable, exitCode: APIFailure.Kind.unavailable.exitCode)
            }
            try await Task.sleep(for: .milliseconds(100))
            view = try await client.call(.file(chat: chat, file: file), as: FileView.self)
        }
        if drawing { FileHandle.standardError.write(Data("\r\u{1B}[2K\(FileLines.progressBar(view))\n".utf8)) }
    }
}
