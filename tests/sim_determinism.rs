//! Determinism: the same scenario and seed give a byte-identical trace (madsim's
//! `check_determinism`). Every built-in, many seeds, each run twice, compared by trace
//! hash. Default: 20 seeds per built-in. The full proof (1 000 seeds):
//! `LOCKSTEP_SEEDS=1000 cargo test --release --test sim_determinism`

use lockstep::sim::scenario::{builtin, BUILTINS};
use lockstep::sim::{run, TraceLevel};
use std::collections::BTreeSet;

fn seeds() -> u64 {
    std::env::var("LOCKSTEP_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20)
}

#[test]
fn every_builtin_is_deterministic() {
    let n = seeds();
    for b in BUILTINS {
        let Some(Ok(s)) = builtin(b.name) else {
            panic!("{} does not parse", b.name)
        };
        let mut distinct = BTreeSet::new();
        for seed in 0..n {
            let a = run(&s, seed, TraceLevel::Full).unwrap_or_else(|e| panic!("{}: {e}", b.name));
            let c = run(&s, seed, TraceLevel::Full).unwrap_or_else(|e| panic!("{}: {e}", b.name));
            assert_eq!(
                a.hash(),
                c.hash(),
                "{}: two runs differ; reproduce with: lockstep run {} --seed {seed}",
                b.name,
                b.name
            );
            assert_eq!(a.trace, c.trace);
            distinct.insert(a.hash());
        }
        // The seed really is used (tokens at least are drawn from it).
        if n > 1
            && !s.clients.is_empty()
            && s.clients
                .iter()
                .any(|c| c.algorithm != lockstep::sim::scenario::Algorithm::None)
        {
            assert!(distinct.len() > 1, "{}: the seed changes nothing", b.name);
        }
    }
}

#[test]
fn json_trace_round_trips() {
    let Some(Ok(s)) = builtin("redlock-clock-jump") else {
        panic!()
    };
    let r = run(&s, 7, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
    let json = serde_json::to_string(&r.trace).unwrap_or_default();
    let back: Vec<lockstep::sim::TraceEvent> = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(back, r.trace);
    assert!(!back.is_empty());
}
