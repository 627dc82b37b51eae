//! Simulator benchmarks (harness = false): `cargo bench --bench sim`.
//! 1. Simulated events per second: a Redlock retry storm (5 nodes, 8 clients), full
//!    trace and checker-only trace.
//! 2. `explore` trials per second on `redlock-contention` (5 nodes, 2 clients).
//!
//! Figures go to BENCHMARKS.md (sim section).

use lockstep::sim::explore::{explore, ExploreConfig};
use lockstep::sim::scenario::{builtin, parse, Scenario};
use lockstep::sim::{run, TraceLevel};
use std::fmt::Write as _;
use std::time::Instant;

fn storm() -> Scenario {
    let mut s = String::from("name = \"bench-storm\"\nend_ms = 60000\n[network]\nlatency_ms = [0.5, 2.0]\n");
    for n in ["A", "B", "C", "D", "E"] {
        let _ = write!(s, "[[nodes]]\nname = \"{n}\"\nservice_ms = 0.1\n");
    }
    for c in 0..8 {
        let _ = write!(
            s,
            "[[clients]]\nname = \"c{c}\"\nalgorithm = \"redlock\"\nnodes = [\"A\", \"B\", \"C\", \"D\", \"E\"]\nttl_ms = 1000\nstart_ms = {}\nretry_delay_ms = [1, 20]\nmax_attempts = 100000\nrepeat = 300\nwork = [\"sleep 5\"]\n",
            c * 3
        );
    }
    match parse("bench-storm", &s) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bench scenario does not parse: {e}");
            std::process::exit(1);
        }
    }
}

/// The same storm with single-node SET NX PX + plain DEL: no Lua, so it measures the
/// simulator (queue, network, clients, trace) plus the store's plain commands.
fn storm_no_scripts() -> Scenario {
    let mut s = String::from(
        "name = \"bench-storm-nolua\"\nend_ms = 60000\n[network]\nlatency_ms = [0.5, 2.0]\n[[nodes]]\nname = \"A\"\nservice_ms = 0.1\n",
    );
    for c in 0..8 {
        let _ = write!(
            s,
            "[[clients]]\nname = \"c{c}\"\nalgorithm = \"set-nx\"\nnodes = [\"A\"]\nrelease = \"del\"\nttl_ms = 1000\nstart_ms = {}\nretry_delay_ms = [1, 20]\nmax_attempts = 100000\nrepeat = 2000\nwork = [\"sleep 5\"]\n",
            c * 3
        );
    }
    match parse("bench-storm-nolua", &s) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bench scenario does not parse: {e}");
            std::process::exit(1);
        }
    }
}

fn events_per_second(s: &Scenario, level: TraceLevel, label: &str) {
    let start = Instant::now();
    let mut events = 0u64;
    let mut runs = 0u64;
    while start.elapsed().as_secs_f64() < 3.0 {
        match run(s, runs, level) {
            Ok(r) => events += r.events,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        runs += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{label:<52} {:>12.0} events/s  ({events} events in {runs} runs, {secs:.2} s)",
        events as f64 / secs
    );
}

fn main() {
    let s = storm();
    events_per_second(
        &s,
        TraceLevel::Semantic,
        "redlock storm, 5 nodes × 8 clients × 300 locks, checker trace",
    );
    events_per_second(
        &s,
        TraceLevel::Full,
        "redlock storm, 5 nodes × 8 clients × 300 locks, full trace",
    );
    let plain = storm_no_scripts();
    events_per_second(
        &plain,
        TraceLevel::Semantic,
        "SET NX/DEL storm, 1 node × 8 clients, checker trace",
    );
    let baseline = match builtin("redlock-baseline") {
        Some(Ok(s)) => s,
        _ => std::process::exit(1),
    };
    events_per_second(
        &baseline,
        TraceLevel::Full,
        "redlock-baseline (build + run), full trace",
    );

    let contention = match builtin("redlock-contention") {
        Some(Ok(s)) => s,
        _ => std::process::exit(1),
    };
    let trials = 2_000;
    let start = Instant::now();
    match explore(&contention, &ExploreConfig { trials, seed: 1 }) {
        Ok(r) => {
            let secs = start.elapsed().as_secs_f64();
            println!(
                "{:<52} {:>12.0} trials/s  ({trials} trials incl. shrinking, {} violating, {secs:.2} s)",
                "explore redlock-contention (5 nodes)",
                trials as f64 / secs,
                r.violating
            );
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
