import Foundation

/// Two network namespaces made for one test and joined by a veth pair whose ends are created inside
/// them, so nothing (multicast included) ever touches the machine's own interfaces.
struct NetworkNamespaces {
    struct Member {
        let namespace: String
        let address: String
    }

    static let ipTool = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first(
        where: FileManager.default.isExecutableFile)
    /// Making namespaces needs root and iproute2.
    static let canCreate = getuid() == 0 && ipTool != nil

    let members: [Member]

    /// Creates `pl-<random>-a` (10.77.0.1/24) and `pl-<random>-b` (10.77.0.2/24), links up, and a
    /// multicast route over the veth in each. Removes whatever it made if a step fails.
    static func makePair() throws -> NetworkNamespaces {
        let prefix = "pl-\(UUID().uuidString.prefix(8).lowercased())"
        let namespaces = NetworkNamespaces(members: [
            Member(namespace: prefix + "-a", address: "10.77.0.1"),
            Member(namespace: prefix + "-b", address: "10.77.0.2"),
        ])
        do {
            try namespaces.setUp()
        } catch {
            namespaces.remove()
            throw error
        }
        return namespaces
    }

    private func setUp() throws {
        for member in members { try Self.ip(["netns", "add", member.namespace]) }
        let (a, b) = (members[0].namespace, members[1].namespace)
        try Self.ip(["-n", a, "link", "add", "pl0", "type", "veth", "peer", "name", "pl0", "netns", b])
        for member in members {
            try Self.ip(["-n", member.namespace, "addr", "add", member.address + "/24", "dev", "pl0"])
            try Self.ip(["-n", member.namespace, "link", "set", "lo", "up"])
            try Self.ip(["-n", member.namespace, "link", "set", "pl0", "up"])
            try Self.ip(["-n", member.namespace, "route", "add", "224.0.0.0/4", "dev", "pl0"])
        }
    }

    /// The command prefix that runs a program inside `member`'s namespace.
    func launcher(for member: Member) -> [String] {
        [Self.ipTool ?? "ip", "netns", "exec", member.namespace]
    }

    /// Deletes both namespaces (the veth pair goes with them). Stop the processes inside first.
    func remove() {
        for member in members { try? Self.ip(["netns", "del", member.namespace]) }
    }

    private static func ip(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ipTool ?? "ip")
        process.arguments = arguments
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw IPCommandFailed(arguments: arguments, stderr: String(decoding: error, as: UTF8.self))
        }
    }
}

struct IPCommandFailed: Error, CustomStringConvertible {
    let arguments: [String], stderr: String
    var description: String { "ip \(arguments.joined(separator: " ")) failed: \(stderr)" }
}
