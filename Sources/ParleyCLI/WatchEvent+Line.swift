import ParleyAPI

extension WatchEvent {
    /// One line of a watch stream: an event, or the node's failure line (`{"ok":false,"error":…}`),
    /// thrown as a `CLIError`. Shared by line mode and the full screen.
    static func decodeLine(_ line: String) throws -> WatchEvent {
        let event = try APIJSON.decode(WatchEvent.self, from: line)
        guard event.message == nil, event.poll == nil, event.reactions == nil, event.typing == nil,
            let failure = try? APIJSON.decode(APIResponse<String>.self, from: line), let error = failure.error
        else { return event }
        throw CLIError(node: error, kind: failure.kind ?? .internal)
    }
}
