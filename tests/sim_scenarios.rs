//! Every built-in scenario, run under a fixed seed, must show the outcome its
//! `[expect]` table states (the numbers of the syllabus, within `tolerance_ms`).
//! Data-driven: the expectations live in `scenarios/*.toml`.

use lockstep::sim::scenario::{builtin, BUILTINS};
use lockstep::sim::{run, verify, TraceLevel};

const SEED: u64 = 1;

fn check(name: &str) {
    let scenario = match builtin(name) {
        Some(Ok(s)) => s,
        other => panic!("{name}: {:?}", other.map(|r| r.map(|_| ()))),
    };
    let expect = scenario.expect.clone().unwrap_or_default();
    let run = run(&scenario, SEED, TraceLevel::Full).unwrap_or_else(|e| panic!("{name}: {e}"));
    let bad = verify(&expect, &run);
    assert!(
        bad.is_empty(),
        "{name} (reproduce with: lockstep run {name} --seed {SEED}):\n  {}\nholds: {:#?}",
        bad.join("\n  "),
        run.outcome.holds
    );
}

macro_rules! scenario_tests {
    ($($test:ident => $name:literal),* $(,)?) => {
        $( #[test] fn $test() { check($name); } )*

        #[test]
        fn every_builtin_has_a_test() {
            let tested = [$($name),*];
            for b in BUILTINS {
                assert!(tested.contains(&b.name), "no test for {}", b.name);
            }
            assert_eq!(tested.len(), BUILTINS.len());
        }
    };
}

scenario_tests! {
    double_charge_no_lock => "double-charge-no-lock",
    double_charge_redis_lock => "double-charge-redis-lock",
    unsafe_del => "unsafe-del",
    safe_release => "safe-release",
    get_then_del => "get-then-del",
    ttl_too_short => "ttl-too-short",
    ttl_workers => "ttl-workers",
    watchdog_pause => "watchdog-pause",
    watchdog_crash => "watchdog-crash",
    failover => "failover",
    failover_wait => "failover-wait",
    failover_replica_clock => "failover-replica-clock",
    redlock_baseline => "redlock-baseline",
    redlock_contention => "redlock-contention",
    redlock_clock_jump => "redlock-clock-jump",
    redlock_crash_restart => "redlock-crash-restart",
    redlock_delayed_restart => "redlock-delayed-restart",
    redlock_drift_2pct => "redlock-drift-2pct",
    redlock_drift_1pct => "redlock-drift-1pct",
    redlock_pause_acquire => "redlock-pause-acquire",
    redlock_pause_acquire_unchecked => "redlock-pause-acquire-unchecked",
    using_abort_latency => "using-abort-latency",
    redlock_even_split => "redlock-even-split",
    fencing => "fencing",
    no_fencing => "no-fencing",
    fencing_counter_failover => "fencing-counter-failover",
    idempotency_key => "idempotency-key",
    idempotency_crash => "idempotency-crash",
}

#[test]
fn every_scenario_expects_something() {
    for b in BUILTINS {
        let s = match builtin(b.name) {
            Some(Ok(s)) => s,
            _ => panic!("{} does not parse", b.name),
        };
        let e = s.expect.unwrap_or_default();
        let says_something = !e.violations.is_empty()
            || !e.rejected.is_empty()
            || !e.accepted_per_key.is_empty()
            || !e.first_held_ms.is_empty()
            || !e.never_held.is_empty()
            || e.violations_between.is_some();
        assert!(says_something, "{} has no expectations", b.name);
    }
}

/// The outcome is not an accident of seed 1: the syllabus outcome holds under other
/// seeds too (only retry delays and tokens change with the seed).
#[test]
fn outcomes_hold_under_other_seeds() {
    for b in BUILTINS {
        let Some(Ok(s)) = builtin(b.name) else {
            panic!("{}", b.name)
        };
        let expect = s.expect.clone().unwrap_or_default();
        for seed in [2, 3, 42] {
            let r = run(&s, seed, TraceLevel::Semantic).unwrap_or_else(|e| panic!("{}: {e}", b.name));
            let bad = verify(&expect, &r);
            assert!(bad.is_empty(), "{} seed {seed}: {}", b.name, bad.join("; "));
        }
    }
}

/// The data-driven checks can fail: shifted numbers or wrong clients are caught.
#[test]
fn verify_catches_wrong_expectations() {
    let Some(Ok(s)) = builtin("unsafe-del") else {
        panic!()
    };
    let r = run(&s, SEED, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
    let good = s.expect.clone().unwrap_or_default();
    assert!(verify(&good, &r).is_empty());

    let mut shifted = good.clone();
    shifted.violations[1].from_ms += 50.0;
    assert_eq!(verify(&shifted, &r).len(), 1);

    let mut swapped = good.clone();
    swapped.violations[0].clients.reverse();
    assert_eq!(verify(&swapped, &r).len(), 1);

    let mut fewer = good.clone();
    fewer.violations.pop();
    assert!(verify(&fewer, &r)[0].contains("expected 1 violations, got 2"));

    let mut between = good.clone();
    between.violations_between = Some([5, 9]);
    assert_eq!(
        verify(&between, &r),
        vec![format!("expected 5 to 9 violations, got 2: {:?}", {
            r.outcome
                .violations
                .iter()
                .map(|v| format!("{} {:?} {}–{}", v.kind, v.clients, v.from_ms, v.to_ms))
                .collect::<Vec<_>>()
        })]
    );
    between.violations_between = Some([2, 2]);
    assert!(verify(&between, &r).is_empty());

    let mut never = good.clone();
    never.never_held.push("C".into());
    assert_eq!(verify(&never, &r).len(), 1);

    let mut accepted = good;
    accepted.accepted_per_key.insert("charge".into(), 1);
    assert_eq!(verify(&accepted, &r).len(), 1);
}
