import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain blocking client of a node's control socket (JSON lines), for load the CLI would be too
/// slow to drive one process per message: requests can be pipelined, answers come back in order.
final class ControlConnection {
    private let descriptor: CInt
    private var buffer: [UInt8] = []

    /// Connects to `DATA/control.sock`; reads give up after `timeout` seconds.
    init(dataDirectory: String, timeout: Int = 30) throws {
        let path = dataDirectory + "/control.sock"
        descriptor = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ControlFailure(message: "socket() failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw ControlFailure(message: "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw ControlFailure(message: "cannot connect to \(path): \(String(cString: strerror(errno)))")
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// Sends one request and returns its `result`; throws the node's error.
    func call(_ request: [String: Any]) throws -> Any {
        try pipeline([request])[0].get()
    }

    /// Sends requests `window` at a time and returns each answer's `result` or error, in order.
    func pipeline(_ requests: [[String: Any]], window: Int = 32) throws -> [Result<Any, ControlFailure>] {
        var answers: [Result<Any, ControlFailure>] = []
        for start in stride(from: 0, to: requests.count, by: window) {
            let chunk = requests[start..<min(start + window, requests.count)]
            var bytes: [UInt8] = []
            for request in chunk { bytes += Array(try JSONSerialization.data(withJSONObject: request)) + [0x0A] }
            try write(bytes)
            for _ in chunk { answers.append(try Self.decode(readLine())) }
        }
        return answers
    }

    private static func decode(_ line: [UInt8]) throws -> Result<Any, ControlFailure> {
        guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            throw ControlFailure(message: "not a response: \(String(decoding: line, as: UTF8.self))")
        }
        if object["ok"] as? Bool == true { return .success(object["result"] ?? NSNull()) }
        return .failure(ControlFailure(message: object["error"] as? String ?? "no error text"))
    }

    private func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL))
            }
            guard written > 0 else {
                throw ControlFailure(message: "the node went away (write: \(String(cString: strerror(errno))))")
            }
            offset += written
        }
    }

    private func readLine() throws -> [UInt8] {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                throw ControlFailure(
                    message: "the node went away (read: \(count == 0 ? "closed" : String(cString: strerror(errno))))")
            }
            buffer += chunk[..<count]
        }
    }
}

struct ControlFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The control requests the reliability tests use, as JSON objects (see docs/PROTOCOL.md §14).
enum Control {
    static func send(chat: String, text: String) -> [String: Any] {
        ["send": ["chat": chat, "text": text, "refs": [String]()]]
    }
    static func pollCreate(chat: String, question: String) -> [String: Any] {
        ["pollCreate": ["chat": chat, "question": question]]
    }
    static func pollVote(chat: String, poll: String, choice: String) -> [String: Any] {
        ["pollVote": ["chat": chat, "poll": poll, "choices": [choice]]]
    }
    static func pollResults(chat: String, poll: String) -> [String: Any] {
        ["pollResults": ["chat": chat, "poll": poll]]
    }
    static func messages(chat: String) -> [String: Any] { ["messages": ["chat": chat]] }
    static var status: [String: Any] { ["status": [String: Any]()] }
    static var chatList: [String: Any] { ["chatList": [String: Any]()] }
}
