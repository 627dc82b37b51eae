//! No panic is reachable from a scenario file: mutate every built-in many ways (seeded),
//! parse, and run whatever still parses. Errors are fine; panics fail the test.
//! More mutations: `LOCKSTEP_FUZZ=20000 cargo test --release --test sim_fuzz`.

use lockstep::sim::rng::SimRng;
use lockstep::sim::scenario::{parse, BUILTINS};
use lockstep::sim::{run, TraceLevel};

const NASTY: &[&str] = &[
    "-1",
    "0",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "18446744073709551615",
    "\"\"",
    "\"*\"",
    "[]",
    "[1]",
    "[1, 2, 3]",
    "{}",
    "0.0000001",
    "86400001",
    "true",
    "\"A\"",
    "\"redis\"",
];

fn mutate(src: &str, rng: &mut SimRng) -> String {
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return String::new();
    }
    for _ in 0..rng.range_u64(1, 4) {
        let i = rng.range_u64(0, lines.len() as u64) as usize;
        match rng.range_u64(0, 5) {
            // Replace a value with something nasty.
            0 | 1 => {
                if let Some((k, _)) = lines[i].split_once('=') {
                    let v = NASTY[rng.range_u64(0, NASTY.len() as u64) as usize];
                    lines[i] = format!("{k}= {v}");
                }
            }
            // Drop a line.
            2 => {
                lines.remove(i);
                if lines.is_empty() {
                    break;
                }
            }
            // Duplicate a line elsewhere.
            3 => {
                let l = lines[i].clone();
                let j = rng.range_u64(0, lines.len() as u64) as usize;
                lines.insert(j, l);
            }
            // Truncate a line at a random byte (char boundary).
            _ => {
                let l = &lines[i];
                let cut = rng.range_u64(0, l.len() as u64 + 1) as usize;
                let cut = (0..=cut).rev().find(|c| l.is_char_boundary(*c)).unwrap_or(0);
                lines[i] = l[..cut].to_string();
            }
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_scenarios_never_panic() {
    let n: u64 = std::env::var("LOCKSTEP_FUZZ")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600);
    let mut parsed = 0;
    let mut rejected = 0;
    for i in 0..n {
        let mut rng = SimRng::new(i);
        let b = &BUILTINS[(i as usize) % BUILTINS.len()];
        let src = mutate(b.source, &mut rng);
        match parse("mutant.toml", &src) {
            Ok(mut s) => {
                parsed += 1;
                // Keep runs short: the point is that nothing panics.
                s.end_ms = s.end_ms.min(30_000.0);
                let _ = run(&s, i, TraceLevel::Semantic);
            }
            Err(e) => {
                rejected += 1;
                let msg = e.to_string();
                assert!(msg.starts_with("mutant.toml"), "{msg}");
                assert!(!msg.contains('\n'), "multi-line error: {msg}");
            }
        }
    }
    assert!(parsed > 0 && rejected > 0, "parsed {parsed}, rejected {rejected}");
}

/// Random faults (negative clock jumps, drift, crashes of nodes and clients, latency
/// spikes) around every built-in: the explorer never panics and its report is coherent.
#[test]
fn explore_every_builtin_briefly() {
    use lockstep::sim::explore::{explore, ExploreConfig};
    for b in BUILTINS {
        let Ok(s) = parse(b.name, b.source) else {
            panic!("{}", b.name)
        };
        let r =
            explore(&s, &ExploreConfig { trials: 12, seed: 7 }).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        assert_eq!(r.trials, 12);
        assert!(r.violating <= 12);
        assert_eq!(r.smallest.is_some(), r.violating > 0, "{}", b.name);
        if let Some(c) = r.smallest {
            assert!(!c.outcome.is_safe(), "{}: the counterexample is safe", b.name);
        }
    }
}
