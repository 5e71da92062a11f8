import ParleyCore
import ParleyTransport

/// What a transport received within a bounded wait.
struct Received {
    var batchSizes: [Int] = []
    var datagrams: [Datagram] = []
}

/// Reads `transport.inbound` until `count` datagrams arrived, the stream ended, or `timeout` passed,
/// so a test can never hang on a lost datagram.
func receive(
    _ count: Int,
    from transport: UDPTransport,
    timeout: Duration = .seconds(10)
) async -> Received {
    await withTaskGroup(of: Received?.self) { group in
        group.addTask {
            var received = Received()
            for await batch in transport.inbound {
                received.batchSizes.append(batch.count)
                received.datagrams += batch
                if received.datagrams.count >= count { break }
            }
            return received
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        // Either the reader finished or time ran out; cancelling the reader also ends its stream.
        var result = Received()
        for await outcome in group {
            if let outcome { result = outcome }
            group.cancelAll()
            if outcome != nil { break }
        }
        return result
    }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

func text(_ datagram: Datagram) -> String { String(decoding: datagram.bytes, as: UTF8.self) }
