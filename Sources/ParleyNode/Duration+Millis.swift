extension Duration {
    /// Whole milliseconds: wall-clock deadlines are Unix milliseconds.
    var millis: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

extension Int64 {
    /// These milliseconds plus `duration`, saturating: a peer's closing time near `Int64.max` cannot trap.
    func adding(_ duration: Duration) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(duration.millis)
        return overflow ? .max : sum
    }
}
