import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A umask of 077 while a socket is bound, so the file never exists with looser permissions.
///
/// The umask is per process: nested or concurrent binds share one tightening, and the saved value is
/// restored when the last one ends. Files other threads create meanwhile only come out more private.
enum RestrictiveUmask {
    private static let state = Mutex<(depth: Int, saved: mode_t)>((0, 0))

    static func enter() {
        state.withLock { state in
            if state.depth == 0 { state.saved = umask(0o077) }
            state.depth += 1
        }
    }

    static func leave() {
        state.withLock { state in
            state.depth -= 1
            if state.depth == 0 { umask(state.saved) }
        }
    }
}
