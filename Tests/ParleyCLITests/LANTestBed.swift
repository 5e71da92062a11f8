import Foundation

/// A LAN made for one test: a namespace holding a bridge, and one namespace per host joined to it
/// by a veth pair. Every interface and every 10.x address exists only inside these namespaces, so
/// nothing (multicast included) touches the machine's own interfaces. nftables rules inside each
/// host make the network lossy or split it.
struct LANTestBed {
    struct Host {
        let name: String
        let namespace: String
        let address: String
    }

    static let nftTool = ["/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft"].first(
        where: FileManager.default.isExecutableFile)
    /// Namespaces need root and iproute2; loss and partitions also need nftables.
    static let canCreate = NetworkNamespaces.canCreate && nftTool != nil

    let bridgeNamespace: String
    let hosts: [Host]

    /// Creates `pl-<random>-br` with bridge `br0`, and a namespace per name with `eth0` at 10.78.0.(i+1)/24.
    /// Removes whatever it made if a step fails.
    static func make(hosts names: [String]) throws -> LANTestBed {
        let prefix = "pl-\(UUID().uuidString.prefix(8).lowercased())"
        let bed = LANTestBed(
            bridgeNamespace: prefix + "-br",
            hosts: names.enumerated().map { Host(name: $1, namespace: "\(prefix)-\($0)", address: "10.78.0.\($0 + 1)") }
        )
        do {
            try bed.setUp()
        } catch {
            bed.remove()
            throw error
        }
        return bed
    }

    private func setUp() throws {
        try Self.ip(["netns", "add", bridgeNamespace])
        // No multicast snooping: without an IGMP querier the bridge would filter discovery.
        try Self.ip(["-n", bridgeNamespace, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0"])
        try Self.ip(["-n", bridgeNamespace, "link", "set", "br0", "up"])
        for (index, host) in hosts.enumerated() {
            try Self.ip(["netns", "add", host.namespace])
            try Self.ip([
                "-n", bridgeNamespace, "link", "add", "v\(index)", "type", "veth", "peer", "name", "eth0", "netns",
                host.namespace,
            ])
            try Self.ip(["-n", bridgeNamespace, "link", "set", "v\(index)", "master", "br0", "up"])
            try Self.ip(["-n", host.namespace, "addr", "add", host.address + "/24", "dev", "eth0"])
            try Self.ip(["-n", host.namespace, "link", "set", "lo", "up"])
            try Self.ip(["-n", host.namespace, "link", "set", "eth0", "up"])
            try Self.ip(["-n", host.namespace, "route", "add", "224.0.0.0/4", "dev", "eth0"])
            try Self.nft(
                host,
                """
                table inet parley {
                  chain loss { type filter hook input priority 0; policy accept; }
                  chain partition { type filter hook input priority -10; policy accept; }
                }
                """)
        }
    }

    func host(_ name: String) -> Host { hosts.first { $0.name == name }! }

    /// The command prefix that runs a program on `host`.
    func launcher(for host: Host) -> [String] { [NetworkNamespaces.ipTool ?? "ip", "netns", "exec", host.namespace] }

    /// Every host drops `percent`% of the UDP datagrams it receives, at random (0 removes the loss).
    func setLoss(percent: Int) throws {
        for host in hosts {
            try Self.nft(host, "flush chain inet parley loss")
            if percent > 0 {
                try Self.nft(
                    host, "add rule inet parley loss meta l4proto udp numgen random mod 100 < \(percent) counter drop")
            }
        }
    }

    /// Datagrams the loss rules dropped so far, over all hosts.
    func droppedByLoss() throws -> Int {
        try hosts.reduce(0) { total, host in
            let listing = try Self.nft(host, "list chain inet parley loss")
            return total + Self.packetCounts(in: listing)
        }
    }

    /// Splits the LAN: hosts in `side` and the others no longer hear each other.
    func partition(_ side: [String]) throws {
        let inside = hosts.filter { side.contains($0.name) }, outside = hosts.filter { !side.contains($0.name) }
        for (group, others) in [(inside, outside), (outside, inside)] where !others.isEmpty {
            for host in group {
                try Self.nft(
                    host,
                    "add rule inet parley partition ip saddr { \(others.map(\.address).joined(separator: ", ")) } counter drop"
                )
            }
        }
    }

    /// Cuts one host off from everyone (in both directions).
    func isolate(_ name: String) throws { try partition([name]) }

    /// Removes every partition rule.
    func heal() throws {
        for host in hosts { try Self.nft(host, "flush chain inet parley partition") }
    }

    /// Datagrams the partition rules dropped so far, over all hosts.
    func droppedByPartition() throws -> Int {
        try hosts.reduce(0) { total, host in
            total + Self.packetCounts(in: try Self.nft(host, "list chain inet parley partition"))
        }
    }

    /// Deletes every namespace (veth pairs, bridge and rules go with them). Stop the nodes first.
    func remove() {
        for host in hosts { try? Self.ip(["netns", "del", host.namespace]) }
        try? Self.ip(["netns", "del", bridgeNamespace])
    }

    private static func packetCounts(in listing: String) -> Int {
        listing.components(separatedBy: "counter packets ").dropFirst().reduce(0) {
            $0 + (Int($1.prefix { $0.isNumber }) ?? 0)
        }
    }

    @discardableResult
    private static func nft(_ host: Host, _ script: String) throws -> String {
        try run(
            NetworkNamespaces.ipTool ?? "ip", ["netns", "exec", host.namespace, nftTool ?? "nft", "-f", "-"],
            input: script)
    }

    private static func ip(_ arguments: [String]) throws { try run(NetworkNamespaces.ipTool ?? "ip", arguments) }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw IPCommandFailed(
                arguments: [executable] + arguments + [input ?? ""], stderr: String(decoding: error, as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self)
    }
}
