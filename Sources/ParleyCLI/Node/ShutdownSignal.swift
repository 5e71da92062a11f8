import Dispatch
#if canImport(Glibc)
    import Glibc
#endif

/// Waits for SIGINT or SIGTERM, so the node can close its socket and store cleanly.
enum ShutdownSignal {
    static func wait() async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        await withTaskCancellationHandler {
            for await _ in stream { break }
        } onCancel: {
            continuation.finish()
        }
        sources.forEach { $0.cancel() }
    }
}
