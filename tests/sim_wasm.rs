//! The simulator compiled to wasm32, in a headless browser: it must reach exactly the
//! native results (determinism across platforms), and it reports its speed. Traces are
//! compared in full, every built-in and several seeds, by `tests/web_determinism.rs`.
//!
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test --release --target wasm32-unknown-unknown --test sim_wasm -- --nocapture`
//! Natively this file checks the same pinned results, so a change that moves them
//! shows up in both places.

use lockstep::sim::explore::{explore, ExploreConfig};
use lockstep::sim::scenario::builtin;

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
    }
}
