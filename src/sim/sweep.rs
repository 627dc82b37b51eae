//! The TTL trade-off (§4): rerun one scenario at several TTLs and compare what each
//! costs: overlaps and stale writes against the time the lock stayed stuck after a
//! holder crashed.

use super::checker::Property;
use super::scenario::Scenario;
use super::{run, TraceLevel};

/// One row of the trade-off table. Serialized: the page's engine worker sends each row
/// as JSON (`static/engine-worker.js`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TtlPoint {
    pub ttl_ms: f64,
    /// Violations the checker found (overlaps, stale writes).
    pub violations: usize,
    /// Of those, two holders at once ([`Property::MutualExclusion`]).
    pub overlaps: usize,
    /// Of those, writes the resource accepted from a client whose lock had lapsed
    /// ([`Property::StaleWrite`]).
    pub stale_writes: usize,
    /// Times a client got the lock.
    pub jobs: usize,
    /// From the first crash of a holder to the next client getting the lock (ms).
    pub stuck_ms: Option<f64>,
    /// Nobody got the lock again before the run ended: `stuck_ms` is a lower bound.
    pub stuck_to_end: bool,
}

/// Run `scenario` under `seed` once per TTL (every client's `ttl_ms` replaced).
pub fn ttl_tradeoff(scenario: &Scenario, seed: u64, ttls: &[f64]) -> Result<Vec<TtlPoint>, String> {
    ttls.iter().map(|&ttl| ttl_point(scenario, seed, ttl)).collect()
}

/// One row: `scenario` under `seed` with every client's `ttl_ms` set to `ttl`. The page
/// runs one row per task (or its engine worker does), so no task holds it for the
/// whole table.
pub fn ttl_point(scenario: &Scenario, seed: u64, ttl: f64) -> Result<TtlPoint, String> {
    let mut s = scenario.clone();
    for c in &mut s.clients {
        c.ttl_ms = ttl;
    }
    let r = run(&s, seed, TraceLevel::Semantic)?;
    let gap = r.outcome.figures.unavailable_after_crash.first();
    let count = |p: Property| r.outcome.violations.iter().filter(|v| v.kind == p.kind()).count();
    Ok(TtlPoint {
        ttl_ms: ttl,
        violations: r.outcome.violations.len(),
        overlaps: count(Property::MutualExclusion),
        stale_writes: count(Property::StaleWrite),
        jobs: r.outcome.holds.len(),
        stuck_ms: gap.map(|g| g.unavailable_ms),
        stuck_to_end: gap.is_some_and(|g| g.next_holder.is_none()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_crosses_the_worker_unchanged() {
        // §4's scenario, as the page sends it (JSON) and as the worker answers (JSON):
        // every row equals the page's own, and the rows are the table's.
        let sc = crate::sim::scenario::builtin("ttl-workers").unwrap().unwrap();
        assert!(sc.sweep_ttl_ms.len() >= 5);
        let back: Scenario = serde_json::from_str(&serde_json::to_string(&sc).unwrap()).unwrap();
        let table = ttl_tradeoff(&sc, 1, &sc.sweep_ttl_ms).unwrap();
        for (ttl, row) in sc.sweep_ttl_ms.iter().zip(&table) {
            let json = serde_json::to_string(&ttl_point(&back, 1, *ttl).unwrap()).unwrap();
            let there: TtlPoint = serde_json::from_str(&json).unwrap();
            assert_eq!(&there, row, "TTL {ttl}");
        }
        // The table is not flat: short TTLs overlap, long ones stay stuck longer.
        assert!(table.first().unwrap().overlaps > table.last().unwrap().overlaps);
    }
}
