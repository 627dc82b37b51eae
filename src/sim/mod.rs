//! The deterministic simulator: Redis nodes (each a real [`crate::store::Store`]),
//! clients running lock algorithms, a protected resource, a network and faults.
//!
//! Code map:
//! - [`world`]: true time, the event queue, processes, network, replication, faults.
//! - [`clock`]: true → local time per process (offset, drift, jumps).
//! - [`client`]: the lock algorithms and the work, as state machines.
//! - [`scripts`]: the Lua scripts clients send (data a learner may replace).
//! - [`trace`]: what a run recorded; [`checker`]: what went wrong, in true time.
//! - [`fact`]: the typed facts the trace and the checker carry (reasons, messages, hold
//!   ends, violation kinds, roles); `timeline::words` makes their words.
//! - [`scenario`]: the TOML format and the built-in scenarios.
//! - [`timeline`]: a run stepped forward event by event (for the UI's picture).
//! - [`caption`]: a scenario's captions for its key moments, placed on a run.
//! - [`explore`]: random faults around a scenario, shrinking counterexamples.
//! - [`sweep`]: one scenario at several TTLs, for §4's trade-off table.
//! - [`lab`]: labs, the learner's JavaScript as a scenario's workers: the definition, the
//!   harness's messages, one run, the grade, the trials (`lab::seq` beside the harness in
//!   the engine's worker) and live runs on real redis-servers (`lab::live`).
//! - [`cli`]: `lockstep scenarios | run | explore`.
//!
//! Invariants: nothing here reads the wall clock or OS entropy (one seed drives every
//! choice, with a sub-seed per subsystem, see [`rng`]); no outcome depends on `HashMap`
//! order (only `BTreeMap`/`Vec`); no browser imports, so it builds for wasm32 too.

// No panics reachable from input: no unwrap/expect, no unchecked indexing or slicing,
// no panic!/unreachable! (tests may). Checked by clippy in `make test`; the one file
// with a documented exception is sim/world.rs. See ARCHITECTURE.md, "Invariants".
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod caption;
pub mod checker;
pub mod cli;
pub mod client;
pub mod clock;
pub mod explore;
/// Typed facts (reasons, hold ends, violation kinds) carried to where they are shown.
pub mod fact;
pub mod lab;
/// Lock arithmetic shared by the Redlock client and the quizzes (lead-owned).
pub mod lockmath;
/// How a node's data survives a restart (re-exported as `scenario::Persistence`).
mod persistence;
pub mod rng;
pub mod scenario;
pub mod scripts;
pub mod sweep;
pub mod timeline;
pub mod trace;
pub mod world;

pub use checker::{check, check_with, Outcome, Property, Rules, Violation};
pub use fact::{HoldEnd, Reason, ViolationKind};
pub use lockmath::{drift_ms, quorum, validity_ms};
pub use scenario::{Scenario, ScenarioError};
pub use trace::{trace_hash, SourceLine, TraceEvent, TraceKind, TraceLevel, Weight};
pub use world::{Fault, Pid, World};

/// Everything one run produced.
#[derive(Clone, Debug)]
pub struct Run {
    pub scenario: String,
    pub seed: u64,
    pub names: Vec<String>,
    pub trace: Vec<TraceEvent>,
    pub outcome: Outcome,
    /// Queue events processed.
    pub events: u64,
}

impl Run {
    pub fn hash(&self) -> u64 {
        trace_hash(&self.trace)
    }
}

/// Run `scenario` under `seed` to the end and check it.
pub fn run(scenario: &Scenario, seed: u64, level: TraceLevel) -> Result<Run, String> {
    run_with(scenario, seed, level, &[])
}

/// Like [`run`], with extra faults `(true time µs, fault)` injected (the explorer).
pub fn run_with(
    scenario: &Scenario,
    seed: u64,
    level: TraceLevel,
    extra: &[(u64, Fault)],
) -> Result<Run, String> {
    let mut world = World::build(scenario, seed, level).map_err(|(f, m)| format!("{f}: {m}"))?;
    for (at, f) in extra {
        world.inject_at(*at, f.clone());
    }
    let mut trace = Vec::new();
    world.run(&mut trace);
    let names = world.process_names();
    let outcome = check_with(&trace, &names, &scenario.resource.rules());
    Ok(Run {
        scenario: scenario.name.clone(),
        seed,
        names,
        trace,
        outcome,
        events: world.events(),
    })
}

/// Compare a run with its scenario's `[expect]` table. Returns every mismatch, each
/// a sentence naming the client, the figure, what was expected and what happened.
pub fn verify(expect: &scenario::Expect, run: &Run) -> Vec<String> {
    let tol = expect.tolerance_ms;
    let near = |a: f64, b: f64| (a - b).abs() <= tol;
    let mut bad = Vec::new();
    let o = &run.outcome;
    let got: Vec<String> = o
        .violations
        .iter()
        .map(|v| format!("{} {:?} {}–{}", v.kind, v.clients, v.from_ms, v.to_ms))
        .collect();
    if let Some([lo, hi]) = expect.violations_between {
        let n = o.violations.len();
        if n < lo as usize || n > hi as usize {
            bad.push(format!("expected {lo} to {hi} violations, got {n}: {got:?}"));
        }
    } else if o.violations.len() != expect.violations.len() {
        bad.push(format!(
            "expected {} violations, got {}: {got:?}",
            expect.violations.len(),
            o.violations.len()
        ));
    } else {
        for (v, e) in o.violations.iter().zip(&expect.violations) {
            let to_ok = e.to_ms.is_none_or(|t| near(v.to_ms, t));
            if v.kind.as_str() != e.kind || v.clients != e.clients || !near(v.from_ms, e.from_ms) || !to_ok {
                bad.push(format!(
                    "expected {} {:?} {}–{:?}, got {} {:?} {}–{}",
                    e.kind, e.clients, e.from_ms, e.to_ms, v.kind, v.clients, v.from_ms, v.to_ms
                ));
            }
        }
    }
    if o.rejected_writes.len() != expect.rejected.len() {
        bad.push(format!(
            "expected {} rejected writes, got {:?}",
            expect.rejected.len(),
            o.rejected_writes
        ));
    } else {
        for (w, e) in o.rejected_writes.iter().zip(&expect.rejected) {
            let token_ok = e.token.is_none() || e.token == w.token;
            let highest_ok = e.highest_seen.is_none() || e.highest_seen == w.highest_seen;
            if w.client != e.client || !token_ok || !highest_ok || !near(w.at_ms, e.at_ms) {
                bad.push(format!("expected rejected write {e:?}, got {w:?}"));
            }
        }
    }
    for (key, n) in &expect.accepted_per_key {
        let got = o.accepted_writes.iter().filter(|w| &w.key == key).count() as u32;
        if got != *n {
            bad.push(format!("expected {n} accepted writes to {key}, got {got}"));
        }
    }
    let first_held = |c: &str| {
        o.holds
            .iter()
            .filter(|h| h.client == c)
            .map(|h| h.from_ms)
            .reduce(f64::min)
    };
    for (c, t) in &expect.first_held_ms {
        match first_held(c) {
            Some(h) if near(h, *t) => {}
            other => bad.push(format!(
                "expected {c} to first hold the lock at {t} ms, got {other:?}"
            )),
        }
    }
    for (c, [lo, hi]) in &expect.first_held_range {
        match first_held(c) {
            Some(h) if h >= *lo && h <= *hi => {}
            other => bad.push(format!(
                "expected {c} to first hold the lock within {lo}–{hi} ms, got {other:?}"
            )),
        }
    }
    for c in &expect.eventually_held {
        if first_held(c).is_none() {
            bad.push(format!("expected {c} to hold the lock at some point"));
        }
    }
    for c in &expect.never_held {
        if let Some(h) = first_held(c) {
            bad.push(format!(
                "expected {c} never to hold the lock, but it did from {h} ms"
            ));
        }
    }
    for (c, t) in &expect.lost_ms {
        let lost = o
            .holds
            .iter()
            .find(|h| &h.client == c && matches!(h.ended, HoldEnd::Lost(_)))
            .map(|h| h.to_ms);
        match lost {
            Some(l) if near(l, *t) => {}
            other => bad.push(format!("expected {c} to lose the lock at {t} ms, got {other:?}")),
        }
    }
    if let Some(max) = expect.max_unavailable_ms {
        let gaps = &o.figures.unavailable_after_crash;
        if gaps.is_empty() {
            bad.push("expected a holder crash, but none happened".to_string());
        }
        for g in gaps {
            if g.unavailable_ms > max || g.next_holder.is_none() {
                bad.push(format!(
                    "after {} crashed the lock was unavailable {} ms (next holder {:?}), expected at most {max}",
                    g.crashed, g.unavailable_ms, g.next_holder
                ));
            }
        }
    }
    for (c, t) in &expect.valid_until_ms {
        let pid = run.names.iter().position(|n| n == c);
        let v = run.trace.iter().find_map(|e| match &e.kind {
            TraceKind::LockHeld { valid_until_us, .. } if Some(e.pid as usize) == pid => {
                Some(*valid_until_us)
            }
            _ => None,
        });
        match v.flatten() {
            Some(us) if near(us as f64 / 1000.0, *t) => {}
            other => bad.push(format!(
                "expected {c}'s validity to end at {t} ms, got {other:?} µs"
            )),
        }
    }
    bad
}
