//! The arithmetic of the lock algorithms, in one place: the Redlock client uses it and
//! the quizzes ask about it, so a question's answer is what the engine computes.

/// The clock-drift allowance `D = round(driftFactor × TTL) + 2` ms (the 2 ms cover
/// the granularity of the nodes' expiry checks).
pub fn drift_ms(ttl_ms: u64, drift_factor: f64) -> u64 {
    let d = (drift_factor * ttl_ms as f64).round();
    (if d.is_finite() && d > 0.0 { d as u64 } else { 0 }).saturating_add(2)
}

/// Validity left after acquiring: `TTL − elapsed − D`, in ms (negative: already lost).
pub fn validity_ms(ttl_ms: u64, elapsed_ms: u64, drift_factor: f64) -> i64 {
    ttl_ms as i64 - elapsed_ms as i64 - drift_ms(ttl_ms, drift_factor) as i64
}

/// The majority of `n` nodes: `⌊n/2⌋ + 1`.
pub fn quorum(n: usize) -> usize {
    n / 2 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syllabus_figures() {
        assert_eq!(drift_ms(10_000, 0.01), 102);
        assert_eq!(validity_ms(10_000, 120, 0.01), 9_778);
        assert_eq!(validity_ms(10_000, 3, 0.01), 9_895);
        assert_eq!(drift_ms(5_000, 0.01), 52);
        assert_eq!(quorum(5), 3);
        assert_eq!(quorum(4), 3);
        assert_eq!(quorum(1), 1);
        assert!(validity_ms(100, 200, 0.01) < 0);
        assert_eq!(drift_ms(10_000, f64::NAN), 2);
    }
}
