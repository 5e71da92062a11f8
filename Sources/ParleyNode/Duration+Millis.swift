import ParleyCore

extension Int64 {
    /// These milliseconds plus `duration`, saturating: a peer's closing time near `Int64.max` cannot trap.
    func adding(_ duration: Duration) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(duration.millis)
        return overflow ? .max : sum
    }
}
