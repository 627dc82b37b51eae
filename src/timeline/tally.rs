//! Each acquisition attempt of a quorum lock (Redlock, or the library) as the picture
//! says it: how many masters said yes out of how many, how long the attempt took, the
//! validity left, and the verdict (`3/5 OK · elapsed 3 ms · validity 9 895 ms → held`,
//! `2/5 OK → failed`). Read from the trace's typed facts: the client's own verdicts
//! (`LockHeld`, `AcquireFailed` with its `Reason`), the masters' replies to commands
//! carrying the attempt's token, and the timers that start an attempt.

use crate::sim::fact::{Reason, TimerName};
use crate::sim::trace::{TraceEvent, TraceKind};
use crate::vecmap::VecMap;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    /// The client.
    pub pid: u32,
    /// The trace event of the verdict, and its true time.
    pub index: usize,
    pub t_us: u64,
    /// Masters that said yes, when the picture can tell.
    pub ok: Option<usize>,
    /// Masters asked.
    pub of: usize,
    /// From the attempt's start to its verdict, ms.
    pub elapsed_ms: Option<f64>,
    /// Validity left at the verdict (ms): TTL − elapsed − drift allowance.
    pub validity_ms: Option<i64>,
    pub held: bool,
    /// The lock's TTL (ms), counted from the attempt's start: what is left after the
    /// elapsed time and the validity is the drift allowance.
    pub ttl_ms: Option<f64>,
    /// The attempt's start (true µs).
    pub start_us: u64,
    /// When the lock it took was released or lost (true µs), if it was.
    pub held_until_us: Option<u64>,
}

/// Every attempt's tally, in trace order, for the clients in `masters` (client pid →
/// how many masters it asks).
pub fn tallies(trace: &[TraceEvent], masters: &VecMap<u32, usize>) -> Vec<Tally> {
    // Where each client's current attempt started: (trace index, true µs).
    let mut start: VecMap<u32, (usize, u64)> = VecMap::new();
    let mut out = Vec::new();
    for (i, e) in trace.iter().enumerate() {
        let Some(&of) = masters.get(&e.pid) else {
            continue;
        };
        match &e.kind {
            TraceKind::Start
            | TraceKind::Timer {
                name: TimerName::Start | TimerName::Retry | TimerName::LibraryRetry,
                ..
            } => {
                start.insert(e.pid, (i, e.t_us));
            }
            TraceKind::LockHeld {
                token,
                valid_until_us,
                ..
            } => {
                let (from, t0) = start.get(&e.pid).copied().unwrap_or((0, 0));
                let ok = trace
                    .get(from..=i)
                    .unwrap_or_default()
                    .iter()
                    .filter(|c| said_yes(c, e.pid, token))
                    .count();
                out.push(Tally {
                    pid: e.pid,
                    index: i,
                    t_us: e.t_us,
                    ok: Some(ok),
                    of,
                    elapsed_ms: Some(e.t_us.saturating_sub(t0) as f64 / 1000.0),
                    validity_ms: valid_until_us.map(|v| (v as i64 - e.t_us as i64) / 1000),
                    held: true,
                    ttl_ms: None,
                    start_us: t0,
                    held_until_us: None,
                });
            }
            TraceKind::AcquireFailed { reason, .. } => {
                let (ok, elapsed_ms, validity_ms) = match reason {
                    Reason::Nodes { ok, .. } => (Some(*ok), None, None),
                    Reason::NoValidity {
                        validity_ms,
                        elapsed_ms,
                    } => (None, Some(*elapsed_ms as f64), Some(*validity_ms)),
                    _ => continue,
                };
                out.push(Tally {
                    pid: e.pid,
                    index: i,
                    t_us: e.t_us,
                    ok,
                    of,
                    elapsed_ms,
                    validity_ms,
                    held: false,
                    ttl_ms: None,
                    start_us: start.get(&e.pid).map_or(0, |s| s.1),
                    held_until_us: None,
                });
            }
            _ => {}
        }
    }
    out
}

/// A master's yes to `client`'s command carrying `token`: `OK` to `SET … NX`, `1` from
/// the library's script.
fn said_yes(e: &TraceEvent, client: u32, token: &str) -> bool {
    matches!(&e.kind, TraceKind::Command { from, args, reply, .. }
        if *from == client && args.iter().any(|a| a == token) && (reply == "OK" || reply == "(integer) 1"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::builtin;

    fn tallies_of(name: &str) -> (Vec<Tally>, Vec<String>) {
        let Some(Ok(s)) = builtin(name) else {
            panic!("{name}")
        };
        let m = crate::timeline::build(&s, 1).unwrap_or_else(|e| panic!("{e}"));
        (m.tallies.clone(), m.names.clone())
    }

    #[test]
    fn a_contended_redlock_round_reads_3_of_5_held_and_2_of_5_failed() {
        let (t, names) = tallies_of("redlock-contention");
        let who = |t: &Tally| names[t.pid as usize].clone();
        let first: Vec<(String, Option<usize>, usize, bool)> =
            t.iter().take(2).map(|t| (who(t), t.ok, t.of, t.held)).collect();
        assert_eq!(
            first,
            vec![("C1".into(), Some(3), 5, true), ("C2".into(), Some(2), 5, false)]
        );
        // C1: elapsed 5 ms, valid until 9 898 ms: 9 893 ms left, as the client computed.
        assert_eq!((t[0].elapsed_ms, t[0].validity_ms), (Some(5.0), Some(9_893)));
        // C2 tries again until it holds the lock.
        assert!(t.iter().any(|x| who(x) == "C2" && x.held && x.ok >= Some(3)));
    }

    #[test]
    fn a_late_acquire_reads_its_validity_below_zero() {
        let (t, names) = tallies_of("redlock-pause-acquire");
        let c1 = t
            .iter()
            .find(|t| names[t.pid as usize] == "C1")
            .unwrap_or_else(|| panic!("{t:?}"));
        assert!(!c1.held);
        assert!(c1.validity_ms.is_some_and(|v| v <= 0), "{c1:?}");
        assert_eq!(c1.elapsed_ms, Some(15_000.0));
    }

    #[test]
    fn a_single_node_lock_has_no_tally() {
        assert!(tallies_of("unsafe-del").0.is_empty());
    }

    #[test]
    fn a_tally_is_said_in_both_languages() {
        use crate::lesson::content::Lang;
        use crate::timeline::words;
        let (t, _) = tallies_of("redlock-contention");
        assert_eq!(
            words::tally(&t[0], Lang::En),
            (
                "3/5 OK · elapsed 5 ms · validity 9893 ms → held".to_string(),
                "3/5 ✓".to_string()
            )
        );
        assert_eq!(
            words::tally(&t[1], Lang::En).0,
            "2/5 OK: no majority → failed, unlock all"
        );
        assert!(words::tally(&t[0], Lang::Nb).0.ends_with("→ har låsen"));
        assert!(words::tally(&t[1], Lang::Nb).0.contains("ikke flertall"));
    }
}
