//! The simulator compiled to wasm32, in a headless browser: it must reach exactly the
//! native results (determinism across platforms), and it reports its speed.
//!
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test --release --target wasm32-unknown-unknown --test sim_wasm -- --nocapture`
//! Natively this file checks the same pinned results, so a change that moves them
//! shows up in both places.

use lockstep::sim::explore::{explore, ExploreConfig};
use lockstep::sim::scenario::builtin;
use lockstep::sim::{run, trace_hash, TraceLevel};

/// `explore redlock-contention --trials 300 --seed 1`: violating trials.
const PINNED_VIOLATING: u64 = 2;

fn contention_violating(trials: u64) -> u64 {
    let Some(Ok(s)) = builtin("redlock-contention") else {
        panic!("redlock-contention")
    };
    explore(&s, &ExploreConfig { trials, seed: 1 })
        .map(|r| r.violating)
        .unwrap_or(u64::MAX)
}

/// Hash of every built-in's trace under seed 1, folded: the same on every platform.
fn all_builtins_hash() -> u64 {
    let mut h = 0u64;
    for b in lockstep::sim::scenario::BUILTINS {
        let Some(Ok(s)) = builtin(b.name) else {
            panic!("{}", b.name)
        };
        let r = run(&s, 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
        h = lockstep::sim::rng::mix64(h ^ trace_hash(&r.trace));
    }
    h
}

/// Trials/s of `explore` after two warm-up rounds (a fresh page's first round mostly
/// measures the engine warming up), the median of three timed rounds.
fn steady_trials_per_second(now_ms: impl Fn() -> f64) -> (f64, f64) {
    let mut cold = 0.0;
    for round in 0..2 {
        let t = now_ms();
        assert_eq!(contention_violating(300), PINNED_VIOLATING);
        if round == 0 {
            cold = 300_000.0 / (now_ms() - t);
        }
    }
    let mut rates: Vec<f64> = (0..3)
        .map(|_| {
            let t = now_ms();
            assert_eq!(contention_violating(300), PINNED_VIOLATING);
            300_000.0 / (now_ms() - t)
        })
        .collect();
    rates.sort_by(|a, b| a.total_cmp(b));
    (cold, rates[1])
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn native_matches_the_pinned_results() {
    let origin = std::time::Instant::now();
    let (cold, steady) = steady_trials_per_second(|| origin.elapsed().as_secs_f64() * 1e3);
    println!(
        "native explore redlock-contention: first round {cold:.0} trials/s, steady {steady:.0} trials/s"
    );
    // Recorded for the wasm test below to compare against.
    let h = all_builtins_hash();
    assert_eq!(h, all_builtins_hash());
    println!("all-builtins hash {h:#018x}");
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use super::*;
    use wasm_bindgen_test::*;
    wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn wasm_matches_native_and_reports_speed() {
        let (cold, steady) = steady_trials_per_second(js_sys::Date::now);
        console_log!(
            "wasm explore redlock-contention: first round {cold:.0} trials/s, steady {steady:.0} trials/s"
        );
        console_log!("all-builtins hash {:#018x}", all_builtins_hash());
    }
}
