public import ParleyNode
import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore

/// Answers control requests for one node: resolves what the user typed, calls the node API,
/// and renders one JSON response line. Errors become `{"ok":false,"error":…}`, never a crash.
public struct APIService: Sendable {
    public let node: Node
    /// How this node's own user is shown (the key file's name).
    public let selfName: String
    /// The web front end, when the node serves it: `webLogin` and `webRevoke` go to it.
    public var web: (any WebFrontEndOwner)?

    public init(node: Node, selfName: String) {
        self.node = node
        self.selfName = selfName
    }

    /// Parses one request line; a line that is not a request gets a failure response to send back.
    /// The failure names what does not fit: `bad request: missing field "chat" in send`.
    public static func parse(_ line: String) -> Result<APIRequest, BadRequest> {
        do { return .success(try APIJSON.decode(APIRequest.self, from: line)) } catch {
            let reason =
                (error as? DecodingError).map { APIRequest.describe($0, line: line) } ?? error.localizedDescription
            return .failure(BadRequest(line: failure(APIFailure(kind: .invalid, message: "bad request: \(reason)"))))
        }
    }

    /// Handles one request and returns the response line.
    public func respond(to request: APIRequest) async -> String {
        do { return Self.envelope(try await handle(request).value) } catch {
            return Self.failure(APIFailure(error))
        }
    }

    /// Handles one request: its typed result, or a thrown failure.
    func handle(_ request: APIRequest) async throws -> APIResult {
        switch request {
        case .status:
            return Self.ok(StatusView(await node.status(), name: selfName))
        case let .contactsAdd(peer, name, address):
            let key = try PeerID(rawRepresentation: Hex.decode(peer))
            guard key != node.me else { throw NodeError.invalid("that is your own key") }
            let parsed = try address.map { try PeerAddress(parsing: $0) }
            return Self.ok(ContactAddedView(try await node.addContact(Contact(peer: key, name: name, address: parsed))))
        case .contactsList:
            return Self.ok(
                try node.contacts().map {
                    ContactView(id: $0.peer.hex, name: $0.name, address: $0.address?.description)
                })
        case let .chatCreate(title, members, kind):
            return Self.ok(try await createChat(title: title, members: members, kind: kind))
        case .chatList:
            return Self.ok(try await chatList())
        case let .send(chat, text, tag, refs):
            let tag = try Tag(tag ?? "Text")
            if let command = tag.reservedFor {
                throw NodeError.invalid("'\(tag)' messages are Parley's own; use 'parley \(command)'")
            }
            let chatID = try resolveChat(chat)
            let references = try (refs ?? []).map { try resolveReference($0, chat: chatID) }
            let stored =
                tag == .text
                ? try await node.sendText(chat: chatID, text, references: references)
                : try await node.send(chat: chatID, tag: tag, content: Array(text.utf8), references: references)
            let names = try names()
            var sent = view(stored, names: names)
            let noRoute = try await node.membersWithoutRoute(chats: [chatID])[chatID] ?? []
            sent.noRoute = noRoute.map { MemberView(id: $0.hex, name: names[$0]) }.sorted(by: MemberView.byName)
            return Self.ok(sent)
        case let .messages(chat, tag, ref, refTag, limit, before, after, shown):
            return try messages(
                chat: chat, tag: tag, ref: ref, refTag: refTag, limit: limit, before: before, after: after,
                shown: shown ?? false)
        case let .pollCreate(
            chat, question, options, description, maxVotes, unique, anonymous, allowAnswers, allowSuggestions, closesAt,
            secret):
            let chatID = try resolveChat(chat)
            if secret == true {
                guard allowAnswers != true, allowSuggestions != true else {
                    throw NodeError.invalid(
                        "a secret poll takes no answers or suggestions: they would be signed by their authors")
                }
                let spec = options.flatMap { $0.isEmpty ? nil : $0 }.map {
                    PollSpec(
                        question: question, description: description ?? "", options: $0, maxVotes: maxVotes,
                        unique: unique ?? false,
                        anonymous: true, closesAtMillis: closesAt)
                }
                return Self.ok(
                    try await createSecretPoll(chat: chatID, question: question, spec: spec, closesAtMillis: closesAt))
            }
            guard let options, !options.isEmpty else {
                guard description == nil, maxVotes == nil, unique != true, anonymous != true, allowAnswers != true,
                    allowSuggestions != true, closesAt == nil
                else {
                    throw NodeError.invalid("poll settings need options: add --option TEXT (at least two)")
                }
                return Self.ok(
                    try pollView(chat: chatID, poll: try await node.createPoll(chat: chatID, question: question).id))
            }
            let spec = PollSpec(
                question: question, description: description ?? "", options: options, maxVotes: maxVotes,
                unique: unique ?? false,
                anonymous: anonymous ?? false, allowAnswers: allowAnswers ?? false,
                allowSuggestions: allowSuggestions ?? false,
                closesAtMillis: closesAt)
            return Self.ok(try pollView(chat: chatID, poll: try await node.createPoll(chat: chatID, spec: spec).id))
        case let .pollVote(chat, poll, choices, keepChoice):
            let (chatID, pollID) = try resolveMessage(chat, poll)
            let cast = try await node.vote(
                chat: chatID, poll: pollID, choices: choices, keepChoice: keepChoice ?? false)
            let names = try names()
            return Self.ok(
                VoteView(
                    poll: try pollView(chat: chatID, poll: pollID, names: names),
                    message: cast.message.map { view($0, names: names) },
                    secretBallot: cast.secretBallot.map { SecretBallotView($0, names: names) }))
        case let .pollUnvote(chat, poll, option):
            let (chatID, pollID) = try resolveMessage(chat, poll)
            return Self.ok(
                view(try await node.removeVote(chat: chatID, poll: pollID, option: option), names: try names()))
        case let .pollAnswer(chat, poll, text):
            let (chatID, pollID) = try resolveMessage(chat, poll)
            return Self.ok(view(try await node.answerPoll(chat: chatID, poll: pollID, text: text), names: try names()))
        case let .pollSuggest(chat, poll, text):
            let (chatID, pollID) = try resolveMessage(chat, poll)
            return Self.ok(
                view(try await node.suggestOption(chat: chatID, poll: pollID, text: text), names: try names()))
        case let .pollClose(chat, poll):
            let (chatID, pollID) = try resolveMessage(chat, poll)
            return Self.ok(view(try await node.closePoll(chat: chatID, poll: pollID), names: try names()))
        case let .pollResults(chat, poll):
            let (chatID, pollID) = try resolveMessage(chat, poll)
            return Self.ok(try pollView(chat: chatID, poll: pollID))
        case let .pollVotes(chat, poll, option, answers, limit, before):
            let (chatID, pollID) = try resolveMessage(chat, poll)
            let page = try node.pollVotes(
                chat: chatID, poll: pollID, option: option, answers: answers ?? false, limit: limit ?? 25,
                before: before)
            return Self.ok(PollVotesView(page, names: try names()))
        case .localGet, .localSet, .localList, .localDelete: return try await handleLocalData(request)
        case .watch, .watchMessages:
            throw NodeError.invalid("watch is a streaming request; use the watch connection")
        case let .chatAddMembers(chat, members):
            return Self.ok(try await changeMembers(chat: chat, add: members))
        case let .chatRemoveMembers(chat, members):
            return Self.ok(try await changeMembers(chat: chat, remove: members))
        case .react, .unreact, .reactions: return try await handleReactions(request)
        case .edit, .delete, .deleteForMe, .pin, .pins, .thread, .edits: return try await handleAmendments(request)
        case let .read(chat, upTo, message): return try await markRead(chat: chat, upTo: upTo, message: message)
        case let .receipts(chat, message): return try receipts(chat: chat, message: message)
        case let .members(chat): return Self.ok(try members(chat: chat))
        case .invites: return Self.ok(try invites())
        case let .inviteAccept(invite, name): return Self.ok(try await acceptInvite(invite, name: name))
        case let .inviteDecline(invite): return Self.ok(try await declineInvite(invite))
        case let .typing(chat, active): return Self.ok(try await typing(chat: chat, active: active))
        case .webLogin: return try answerWeb { try $0.loginLink() }
        case .webRevoke: return try answerWeb { try $0.revokeAll() }
        case let .search(text, chat, from, tag, limit, before):
            return Self.ok(try await search(text: text, chat: chat, from: from, tag: tag, limit: limit, before: before))
        case let .chatMute(chat, muted): return Self.ok(try await muteChat(chat, muted: muted))
        case .fileSend, .files, .file, .fileFetch, .fileSave: return try await handleFiles(request)
        }
    }

    /// A message as every front end shows it, with the poll it changes looked up so a ballot reads "voted Lake".
    func view(_ stored: StoredMessage, names: [PeerID: String], amendments: MessageAmendments = .none) -> MessageView {
        let poll = PollRules.pollTargets(of: stored.message).lazy.compactMap { target -> Poll? in
            guard let held = try? node.message(target), held.message.chat == stored.message.chat else { return nil }
            return try? Poll(held.message)
        }.first
        var view = MessageView(stored, names: names, poll: poll, amendments: amendments, me: node.me)
        if stored.message.tag == .file, amendments.deletion == nil {
            view.file = (try? node.file(stored.id)).map { FileView($0, names: names) }
        }
        return view
    }

    /// Views of messages of one chat, each with what amends it (one query for the lot).
    func views(_ stored: [StoredMessage], chat: ChatID, names: [PeerID: String]) throws -> [MessageView] {
        let amendments = try node.amendments(of: stored, chat: chat)
        // A query by tag or reference may list edits: an edit of a deleted message shows no text.
        let editTargets = Set(stored.compactMap { AmendmentTarget.of($0.message, tag: .edit) })
        let targets = try editTargets.compactMap { try node.message($0) }.filter { $0.message.chat == chat }
        let deleted = Set(try node.amendments(of: targets, chat: chat).filter { $0.value.deletion != nil }.keys)
        return stored.map { message in
            let erased =
                message.message.tag == .edit
                && AmendmentTarget.of(message.message, tag: .edit).map(deleted.contains) == true
            guard !erased else { return MessageView(message, names: names, me: node.me, erased: true) }
            return view(message, names: names, amendments: amendments[message.message.id] ?? .none)
        }
    }

    func pollView(chat: ChatID, poll: MessageID, names: [PeerID: String]? = nil) throws -> PollResultsView {
        let myVote = try node.localData(message: poll, key: LocalDataKey.pollVote)
        return PollResultsView(
            try node.pollSnapshot(chat: chat, poll: poll), names: try names ?? self.names(), myVote: myVote)
    }

    /// A chat as `resolveChat` accepts it, and a unique id prefix of one of its messages.
    func resolveMessage(_ chat: String, _ message: String) throws -> (ChatID, MessageID) {
        let chatID = try resolveChat(chat)
        return (chatID, try node.resolveMessage(prefix: message, in: chatID))
    }

    // MARK: Resolution of what the user typed

    func names() throws -> [PeerID: String] {
        var names = try node.contacts().reduce(into: [PeerID: String]()) { $0[$1.peer] = $1.name }
        names[node.me] = selfName
        return names
    }

    /// A contact name, a full 64-digit id, or a unique id prefix among contacts.
    func resolvePeer(_ text: String) throws -> PeerID {
        let contacts = try node.contacts()
        if let contact = contacts.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) {
            return contact.peer
        }
        if text.count == 64, let key = try? PeerID(rawRepresentation: Hex.decode(text)) { return key }
        let matches = Hex.isHexPrefix(text) ? contacts.filter { $0.peer.hex.hasPrefix(text.lowercased()) } : []
        guard matches.count == 1 else {
            throw NodeError.notFound(
                matches.isEmpty
                    ? "unknown peer '\(text)': add it first with 'parley contacts add FILE.pub --name NAME'"
                    : "peer prefix '\(text)' is ambiguous: matches \(matches.map(\.name).joined(separator: ", "))")
        }
        return matches[0].peer
    }

    /// A chat id prefix, or an exact (case-insensitive) title.
    func resolveChat(_ text: String) throws -> ChatID {
        if Hex.isHexPrefix(text), let id = try? node.resolveChat(prefix: text) { return id }
        let titled = try node.chats().filter { $0.invite.title.caseInsensitiveCompare(text) == .orderedSame }
        if titled.count == 1 { return titled[0].invite.id }
        if titled.count > 1 {
            let candidates = titled.map { "\($0.invite.id.hex.prefix(12)) (\($0.members.count) members)" }.joined(
                separator: ", ")
            throw NodeError.invalid("several chats are titled '\(text)': \(candidates); use the chat id")
        }
        guard Hex.isHexPrefix(text) else {
            throw NodeError.notFound("no chat titled '\(text)' (see 'parley chat list')")
        }
        return try node.resolveChat(prefix: text) // rethrows the store's precise error
    }

    /// "MESSAGE[:TAG]"; without a tag the reference carries the referenced message's tag.
    func resolveReference(_ text: String, chat: ChatID) throws -> MessageReference {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        let id = try node.resolveMessage(prefix: parts.first ?? "", in: chat) // "" splits into no parts
        if parts.count == 2 { return MessageReference(id: id, tag: try Tag(parts[1])) }
        guard let referenced = try node.message(id) else { throw NodeError.notFound("no message \(id.shortHex)") }
        return MessageReference(id: id, tag: referenced.message.tag)
    }

    static func ok(_ value: some Codable & Sendable) -> APIResult { APIResult(value: value) }
    /// The response line carrying a result.
    private static func envelope<Result: Codable & Sendable>(_ value: Result) -> String {
        encode(APIResponse.success(value))
    }
    /// The response line reporting a failure.
    public static func failure(_ failure: APIFailure) -> String { encode(APIResponse<String>.failure(failure)) }

    static func encode(_ value: some Encodable) -> String {
        (try? APIJSON.encode(value)) ?? #"{"ok":false,"error":"response could not be encoded"}"#
    }
}

/// One request's result as its view type, before any front end encodes it: the control socket in
/// its envelope line, the HTTP front end as the body.
struct APIResult: Sendable {
    let value: any Codable & Sendable
}

/// A response line reporting a request that could not be parsed.
public struct BadRequest: Error {
    public let line: String
}
