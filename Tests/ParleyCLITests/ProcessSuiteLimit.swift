import Testing

extension Trait where Self == TimeLimitTrait {
    /// The process suites' net against a hang. Many of their tests wait on child processes with
    /// blocking calls, which hold the cooperative pool's threads (two on a 2-core machine): an
    /// async test can then wait behind them for most of the whole run (about 6 minutes), however
    /// quick it is alone. So the net is wider than the run, and a time limit never fails a test
    /// that was merely kept waiting.
    static var processSuiteLimit: Self { .timeLimit(.minutes(10)) }
}
