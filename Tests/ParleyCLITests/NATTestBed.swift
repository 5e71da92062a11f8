import Foundation

/// Members on other networks, made for one test out of network namespaces: a "public" segment (a
/// bridge in its own namespace, 10.79.0.0/24) with hosts on it, and per other member a router
/// namespace in front of its own network (192.168.(i+1).0/24) where the member's namespace sits. A
/// routed router sits on the segment (10.79.0.(i+1)); a NAT sits behind an ISP router of its own (on
/// the segment at 10.79.0.(i+1), the NAT at 10.80.(i+1).2), so that, as on the internet, no two NATs
/// are one hop apart.
struct NATTestBed {
    enum Routers {
        /// Each masquerades its network (one public port per private endpoint, whatever the
        /// destination) and drops unsolicited inbound datagrams, as home routers do.
        case nat
        /// The same, but masquerading picks a random public port per destination: no hole can be punched.
        case symmetricNAT
        /// Masquerading as `nat`, but an unsolicited datagram is not dropped: the router's own stack takes
        /// it (answering "port unreachable"), which keeps its connection-tracking entry for 30 s. A punch
        /// that arrives before the router's member has sent toward its source thereby takes the port that
        /// member's own packets would leave from, and the router maps them to another (PROTOCOL §12a).
        case natKeepingUnsolicited
        /// As `natKeepingUnsolicited`, but the second router does not keep its member's port: it maps it
        /// to a port of its own (40001), the same whatever the destination, as most home routers do.
        case natKeepingUnsolicitedSecondNotPortPreserving
        /// Plain routing between the networks, no NAT.
        case routed

        var keepsUnsolicited: Bool {
            self == .natKeepingUnsolicited || self == .natKeepingUnsolicitedSecondNotPortPreserving
        }

        /// The masquerade rule of router `index`.
        func masquerade(router index: Int) -> String {
            switch self {
            case .symmetricNAT: "masquerade random"
            case .natKeepingUnsolicitedSecondNotPortPreserving where index == 1: "meta l4proto udp masquerade to :40001"
            default: "masquerade"
            }
        }
    }

    struct Host {
        let name: String
        let namespace: String
        let address: String
    }

    let hosts: [Host]
    private let namespaces: [String]

    static func make(public publicNames: [String], behindRouters nattedNames: [String], _ routers: Routers) throws
        -> NATTestBed
    {
        let prefix = "pn-\(UUID().uuidString.prefix(8).lowercased())"
        let bridge = prefix + "-br"
        let publicHosts = publicNames.enumerated().map {
            Host(name: $1, namespace: "\(prefix)-p\($0)", address: "10.79.0.\(100 + $0)")
        }
        let natted = nattedNames.enumerated().map {
            Host(name: $1, namespace: "\(prefix)-n\($0)", address: "192.168.\($0 + 1).2")
        }
        let routerNamespaces = nattedNames.indices.map { "\(prefix)-r\($0)" }
        let ispNamespaces = routers == .routed ? [] : nattedNames.indices.map { "\(prefix)-s\($0)" }
        let bed = NATTestBed(
            hosts: publicHosts + natted,
            namespaces: [bridge] + publicHosts.map(\.namespace) + ispNamespaces + routerNamespaces
                + natted.map(\.namespace))
        do {
            try ip(["netns", "add", bridge])
            try ip(["-n", bridge, "link", "add", "br0", "type", "bridge"])
            try ip(["-n", bridge, "link", "set", "br0", "up"])
            for (index, host) in publicHosts.enumerated() {
                try attach(host.namespace, address: host.address, to: bridge, port: "p\(index)")
            }
            for (index, host) in natted.enumerated() {
                let router = routerNamespaces[index], lan = "192.168.\(index + 1)"
                if routers == .routed {
                    try attach(router, address: "10.79.0.\(index + 1)", to: bridge, port: "r\(index)")
                } else {
                    try attachBehindISP(
                        router, isp: ispNamespaces[index], ispAddress: "10.79.0.\(index + 1)",
                        uplink: "10.80.\(index + 1)", to: bridge, port: "s\(index)")
                }
                try ip(["netns", "add", host.namespace])
                try ip([
                    "-n", router, "link", "add", "lan0", "type", "veth", "peer", "name", "eth0", "netns",
                    host.namespace,
                ])
                try ip(["-n", router, "addr", "add", "\(lan).1/24", "dev", "lan0"])
                try ip(["-n", router, "link", "set", "lan0", "up"])
                try ip(["-n", host.namespace, "addr", "add", "\(host.address)/24", "dev", "eth0"])
                try ip(["-n", host.namespace, "link", "set", "lo", "up"])
                try ip(["-n", host.namespace, "link", "set", "eth0", "up"])
                try ip(["-n", host.namespace, "route", "add", "default", "via", "\(lan).1"])
                try LANTestBed.run(
                    NetworkNamespaces.ipTool ?? "ip",
                    ["netns", "exec", router, "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"])
                guard routers != .routed else { continue }
                try LANTestBed.run(
                    NetworkNamespaces.ipTool ?? "ip",
                    ["netns", "exec", router, LANTestBed.nftTool ?? "nft", "-f", "-"],
                    input: """
                        table ip nat {
                          chain post { type nat hook postrouting priority 100; oifname "eth0" \(routers.masquerade(router: index)); }
                        }
                        \(routers.keepsUnsolicited ? "" : Self.dropUnsolicited)
                        """)
            }
            // Every namespace on the public segment reaches each NAT through its ISP router.
            for (index, isp) in ispNamespaces.enumerated() {
                for namespace in publicHosts.map(\.namespace) + ispNamespaces where namespace != isp {
                    try ip(["-n", namespace, "route", "add", "10.80.\(index + 1).0/24", "via", "10.79.0.\(index + 1)"])
                }
            }
            if routers == .routed {
                // Every namespace on the public segment reaches each network through its router.
                for (index, _) in natted.enumerated() {
                    for namespace in publicHosts.map(\.namespace) + routerNamespaces
                    where namespace != routerNamespaces[index] {
                        try ip([
                            "-n", namespace, "route", "add", "192.168.\(index + 1).0/24", "via", "10.79.0.\(index + 1)",
                        ])
                    }
                }
            }
        } catch {
            bed.remove()
            throw error
        }
        return bed
    }

    private static let dropUnsolicited = """
        table inet firewall {
          chain input { type filter hook input priority 0; iifname "eth0" ct state new drop; }
        }
        """

    func host(_ name: String) -> Host { hosts.first { $0.name == name }! }

    /// The command prefix that runs a program on `host`.
    func launcher(for host: Host) -> [String] { [NetworkNamespaces.ipTool ?? "ip", "netns", "exec", host.namespace] }

    /// Deletes every namespace (links and rules go with them). Stop the nodes first.
    func remove() {
        for namespace in namespaces.reversed() { try? Self.ip(["netns", "del", namespace]) }
    }

    private static func attach(_ namespace: String, address: String, to bridge: String, port: String) throws {
        try ip(["netns", "add", namespace])
        try ip(["-n", bridge, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", namespace])
        try ip(["-n", bridge, "link", "set", port, "master", "br0", "up"])
        try ip(["-n", namespace, "addr", "add", "\(address)/24", "dev", "eth0"])
        try ip(["-n", namespace, "link", "set", "lo", "up"])
        try ip(["-n", namespace, "link", "set", "eth0", "up"])
    }

    /// `router` behind `isp`: the ISP router on the bridge at `ispAddress`, the router at
    /// `uplink`.2/24 with the ISP router at `uplink`.1 as its default route.
    private static func attachBehindISP(
        _ router: String, isp: String, ispAddress: String, uplink: String, to bridge: String, port: String
    ) throws {
        try attach(isp, address: ispAddress, to: bridge, port: port)
        try LANTestBed.run(
            NetworkNamespaces.ipTool ?? "ip",
            ["netns", "exec", isp, "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"])
        try ip(["netns", "add", router])
        try ip(["-n", isp, "link", "add", "down0", "type", "veth", "peer", "name", "eth0", "netns", router])
        try ip(["-n", isp, "addr", "add", "\(uplink).1/24", "dev", "down0"])
        try ip(["-n", isp, "link", "set", "down0", "up"])
        try ip(["-n", router, "addr", "add", "\(uplink).2/24", "dev", "eth0"])
        try ip(["-n", router, "link", "set", "lo", "up"])
        try ip(["-n", router, "link", "set", "eth0", "up"])
        try ip(["-n", router, "route", "add", "default", "via", "\(uplink).1"])
    }

    private static func ip(_ arguments: [String]) throws {
        try LANTestBed.run(NetworkNamespaces.ipTool ?? "ip", arguments)
    }
}
