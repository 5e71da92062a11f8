extension Duration {
    /// Whole milliseconds, as wall-clock times are Unix milliseconds; saturates at the ends of `Int64`
    /// rather than trapping, whatever duration a configuration or a peer's field makes.
    package var millis: Int64 {
        let (seconds, attoseconds) = components
        let (wholeMillis, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = wholeMillis.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return sumOverflow ? (attoseconds < 0 ? .min : .max) : sum
    }
}
