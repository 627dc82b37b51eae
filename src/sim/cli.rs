//! `lockstep scenarios | run | explore`: the logic behind the binary's subcommands.
//! The binary only parses arguments (clap) and calls these; a fresh seed, when none is
//! given, comes from the binary (getrandom), never from here.

use super::checker::{Outcome, Property};
use super::explore::{explore, ExploreConfig, ExploreReport};
use super::scenario::{builtin, parse, Scenario, BUILTINS};
use super::trace::{fmt_ms, TraceEvent, TraceKind, TraceLevel};
use super::Run;
use serde::Serialize;
use std::fmt::Write as _;

/// Load a built-in by name, or a `.toml` file by path. One error line on failure.
pub fn load(name_or_path: &str) -> Result<Scenario, String> {
    if let Some(r) = builtin(name_or_path) {
        return r.map_err(|e| e.to_string());
    }
    let looks_like_file = name_or_path.ends_with(".toml") || name_or_path.contains('/');
    if !looks_like_file {
        let names: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
        return Err(format!(
            "unknown scenario `{name_or_path}` (built-ins: {}; or give a path to a .toml file)",
            names.join(", ")
        ));
    }
    let src =
        std::fs::read_to_string(name_or_path).map_err(|e| format!("{name_or_path}: cannot read: {e}"))?;
    parse(name_or_path, &src).map_err(|e| e.to_string())
}

/// `lockstep scenarios`: names and one-line descriptions.
pub fn scenarios_text() -> String {
    let mut out = String::new();
    let width = BUILTINS.iter().map(|b| b.name.len()).max().unwrap_or(0);
    for b in BUILTINS {
        let desc = match builtin(b.name) {
            Some(Ok(s)) => s.description,
            _ => "(does not parse)".to_string(),
        };
        let _ = writeln!(out, "{:width$}  {desc}", b.name);
    }
    out
}

/// One trace event as a line of the readable timeline.
pub fn event_line(e: &TraceEvent, names: &[String]) -> String {
    let n = |pid: u32| names.get(pid as usize).map(String::as_str).unwrap_or("?");
    let what = match &e.kind {
        TraceKind::Start => "starts".to_string(),
        TraceKind::Send { msg, to, what } => format!("→ {} #{msg}: {what}", n(*to)),
        TraceKind::Deliver { msg, from } => format!("← {} #{msg}", n(*from)),
        TraceKind::Drop {
            msg,
            from,
            to,
            reason,
        } => format!("✗ #{msg} {}→{} dropped: {reason}", n(*from), n(*to)),
        TraceKind::Command {
            from,
            args,
            reply,
            script,
            ..
        } => {
            let mut a: Vec<String> = args.iter().map(|s| short(s)).collect();
            if *script {
                if let Some(body) = a.get_mut(1) {
                    *body = "<script>".to_string();
                }
            }
            format!("runs [{}] {} → {reply}", n(*from), a.join(" "))
        }
        TraceKind::Replicate {
            from,
            offset,
            effects,
        } => {
            format!(
                "applies replication #{offset} from {} ({effects} writes)",
                n(*from)
            )
        }
        TraceKind::Timer { name, .. } => format!("timer: {name}"),
        TraceKind::Pause => "PAUSED".to_string(),
        TraceKind::Resume => "resumes".to_string(),
        TraceKind::Crash => "CRASHES".to_string(),
        TraceKind::Restart { persistence, keys } => format!("restarts ({persistence}, {keys} keys)"),
        TraceKind::ClockJump { delta_us } => format!("clock jumps {:+} ms", *delta_us as f64 / 1000.0),
        TraceKind::Drift { rate_ppm } => format!("clock drift now {:+} %", *rate_ppm as f64 / 10_000.0),
        TraceKind::Partition { to, oneway } => {
            format!(
                "link to {} cut{}",
                n(*to),
                if *oneway { " (one way)" } else { "" }
            )
        }
        TraceKind::Repair { to } => format!("link to {} repaired", n(*to)),
        TraceKind::Latency { to, latency } => format!("latency to {} now {latency}", n(*to)),
        TraceKind::Failover { group } => format!("promoted: new master of {group}"),
        TraceKind::LockHeld {
            lock,
            token,
            fence,
            valid_until_us,
        } => {
            let mut s = format!("HOLDS {lock} (token {}", short(token));
            if let Some(f) = fence {
                let _ = write!(s, ", fencing token {f}");
            }
            if let Some(v) = valid_until_us {
                let _ = write!(s, ", valid until {}", fmt_ms(*v));
            }
            s + ")"
        }
        TraceKind::LockLost { lock, reason } => format!("LOSES {lock}: {reason}"),
        TraceKind::LockReleased { lock } => format!("releases {lock}"),
        TraceKind::AcquireFailed { lock, reason } => format!("fails to get {lock}: {reason}"),
        TraceKind::GaveUp { lock } => format!("gives up on {lock}"),
        TraceKind::Stalled {
            lock,
            votes_for,
            votes_against,
        } => format!("{votes_for} for, {votes_against} against {lock}: no quorum either way, waits forever"),
        TraceKind::Read { key, value, version } => {
            format!(
                "reads {key} = {} (v{version})",
                value.as_deref().unwrap_or("(nil)")
            )
        }
        TraceKind::Note { text, .. } => format!("logs: {text}"),
        TraceKind::CodeError {
            message, line, col, ..
        } => match (line, col) {
            (Some(l), Some(c)) => format!("CODE FAILED: {message} (line {l}, column {c})"),
            _ => format!("CODE FAILED: {message}"),
        },
        TraceKind::LockKept { lock, token } => {
            format!("released, but {lock} still holds its token {}", short(token))
        }
        TraceKind::HeldUnbacked { lock, token, on, of } => format!(
            "says it holds {lock} with token {}, but only {on} of its {of} nodes store it",
            short(token)
        ),
        TraceKind::ForeignDelete { key, owner, token } => {
            format!("DELETES {key}, which held {}'s token {}", n(*owner), short(token))
        }
        TraceKind::WorkSkipped { reason } => format!("skips the work: {reason}"),
        TraceKind::WorkDone => "work done".to_string(),
        TraceKind::WriteAccepted {
            from,
            key,
            value,
            token,
            lost_update,
            lock_lapsed,
        } => {
            let mut s = format!("ACCEPTS {}'s write {key}={value}", n(*from));
            if let Some(t) = token {
                let _ = write!(s, " (token {t})");
            }
            if *lost_update {
                s.push_str(" — LOST UPDATE");
            }
            if *lock_lapsed {
                s.push_str(" — writer's lock had lapsed");
            }
            s
        }
        TraceKind::WriteRejected {
            from, key, reason, ..
        } => format!("REJECTS {}'s write to {key}: {reason}", n(*from)),
        TraceKind::End => "end of run".to_string(),
    };
    format!(
        "{:>12}  {:<8} (local {:>12})  {what}",
        fmt_ms(e.t_us),
        n(e.pid),
        fmt_ms(e.local_us.max(0) as u64)
    )
}

fn short(s: &str) -> String {
    if s.chars().count() > 12 {
        format!("{}…", s.chars().take(8).collect::<String>())
    } else {
        s.to_string()
    }
}

/// The outcome as text: violations, writes, figures.
pub fn outcome_text(o: &Outcome) -> String {
    let mut out = String::new();
    if o.violations.is_empty() {
        out.push_str("No violations.\n");
    } else {
        let _ = writeln!(out, "{} violation(s):", o.violations.len());
        for v in &o.violations {
            let _ = writeln!(
                out,
                "  {:<16} {:>10}–{:<10} ms  {}",
                v.kind, v.from_ms, v.to_ms, v.detail
            );
        }
    }
    for w in &o.rejected_writes {
        let _ = writeln!(
            out,
            "Rejected write: {} to {} at {} ms: {}",
            w.client,
            w.key,
            w.at_ms,
            w.reason.as_ref().map(ToString::to_string).unwrap_or_default()
        );
    }
    let _ = writeln!(out, "Accepted writes: {}", o.accepted_writes.len());
    for h in &o.holds {
        let _ = writeln!(
            out,
            "  {} held {} {}–{} ms ({})",
            h.client, h.lock, h.from_ms, h.to_ms, h.ended
        );
    }
    for (c, w) in &o.figures.wait_ms {
        let _ = writeln!(out, "  {c} waited {w} ms to acquire");
    }
    for g in &o.figures.unavailable_after_crash {
        let _ = writeln!(
            out,
            "  after {} crashed at {} ms the lock was unavailable for {} ms (next: {})",
            g.crashed,
            g.crash_ms,
            g.unavailable_ms,
            g.next_holder.as_deref().unwrap_or("nobody")
        );
    }
    out
}

/// `lockstep run` as text.
pub fn run_text(run: &Run) -> String {
    run_text_for(run, &run.scenario)
}

/// `lockstep run` as text, its last line reproducing the run with `lockstep run <arg>`.
fn run_text_for(run: &Run, arg: &str) -> String {
    let mut out = format!("scenario {} seed {}\n", run.scenario, run.seed);
    for e in &run.trace {
        out.push_str(&event_line(e, &run.names));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&outcome_text(&run.outcome));
    let _ = writeln!(out, "reproduce with: lockstep run {arg} --seed {}", run.seed);
    out
}

#[derive(Serialize)]
struct RunJson<'a> {
    scenario: &'a str,
    seed: u64,
    processes: &'a [String],
    outcome: &'a Outcome,
    trace: &'a [TraceEvent],
}

/// `lockstep run --json`.
pub fn run_json(run: &Run) -> String {
    let j = RunJson {
        scenario: &run.scenario,
        seed: run.seed,
        processes: &run.names,
        outcome: &run.outcome,
        trace: &run.trace,
    };
    serde_json::to_string_pretty(&j).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// `lockstep run <name|file> [--seed N] [--json]`.
pub fn cmd_run(name_or_path: &str, seed: u64, json: bool) -> Result<String, String> {
    let scenario = load(name_or_path)?;
    let run = super::run(&scenario, seed, TraceLevel::Full)?;
    Ok(if json {
        run_json(&run)
    } else {
        // A file is reproduced by its path: `run` does not know its name.
        let arg = if builtin(name_or_path).is_some() {
            run.scenario.clone()
        } else {
            shell_word(name_or_path)
        };
        run_text_for(&run, &arg)
    })
}

/// `s` as one shell word: as it is when plain, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '-' | '_' | '+' | ',' | ':' | '='));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `lockstep explore <name|file> --trials N [--seed N]`.
pub fn cmd_explore(name_or_path: &str, trials: u64, seed: u64) -> Result<String, String> {
    let scenario = load(name_or_path)?;
    let report = explore(&scenario, &ExploreConfig { trials, seed })?;
    Ok(explore_text(&scenario, &report))
}

pub fn explore_text(scenario: &Scenario, r: &ExploreReport) -> String {
    let mut out = format!(
        "scenario {} seed {}: {} of {} trials broke ({:.2} %, 95 % interval {:.2}–{:.2} %)\n",
        scenario.name,
        r.seed,
        r.violating,
        r.trials,
        100.0 * r.rate(),
        100.0 * r.interval.0,
        100.0 * r.interval.1
    );
    for (p, n) in &r.by_property {
        let _ = writeln!(out, "  {n} broke {}", property_text(*p));
    }
    if r.absorbed > 0 {
        let _ = writeln!(
            out,
            "  {} more had violations the resource absorbed (e.g. an overlap whose stale write it rejected): not broken",
            r.absorbed
        );
    }
    match &r.smallest {
        None => out.push_str("No counterexample found.\n"),
        Some(c) => {
            let _ = writeln!(
                out,
                "\nSmallest counterexample (trial seed {}), {} fault(s):",
                c.seed,
                c.faults.len()
            );
            for f in &c.fault_labels {
                let _ = writeln!(out, "  {f}");
            }
            let what: Vec<&str> = c.broken.iter().map(|p| property_text(*p)).collect();
            let _ = writeln!(out, "It breaks {}.", what.join(", "));
            let _ = writeln!(out, "\nTrace up to the first violation:");
            for e in &c.trace {
                out.push_str(&event_line(e, &c.names));
                out.push('\n');
            }
            out.push('\n');
            out.push_str(&outcome_text(&c.outcome));
        }
    }
    out
}

/// A property in words, for the CLI.
pub fn property_text(p: Property) -> &'static str {
    match p {
        Property::MutualExclusion => "mutual exclusion (two clients held the lock at once)",
        Property::StaleWrite => {
            "stale write (the resource accepted a write after the writer's lock had lapsed)"
        }
        Property::LostUpdate => "lost update (a write based on a read that had since been overwritten)",
        Property::DuplicateToken => "unique tokens (one fencing token accepted from two clients)",
        Property::DoubleEffect => "at most once (the same effect, e.g. a charge, happened twice)",
    }
}

/// Parse a number given on the command line (decimal, or hex with `0x`), with one
/// clear error line naming the option.
pub fn parse_u64(option: &str, text: &str) -> Result<u64, String> {
    let t = text.trim().replace('_', "");
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|_| {
        format!(
            "{option}: `{text}` is not a whole number between 0 and {}",
            u64::MAX
        )
    })
}

/// `lockstep run`, from the raw arguments. `fresh_seed` is used when no `--seed` is
/// given; the binary draws it from getrandom (this module never touches entropy).
pub fn run_command(
    scenario: &str,
    seed: Option<&str>,
    json: bool,
    fresh_seed: u64,
) -> Result<String, String> {
    let seed = match seed {
        Some(s) => parse_u64("--seed", s)?,
        None => fresh_seed,
    };
    cmd_run(scenario, seed, json)
}

/// `lockstep explore`, from the raw arguments.
pub fn explore_command(
    scenario: &str,
    trials: &str,
    seed: Option<&str>,
    fresh_seed: u64,
) -> Result<String, String> {
    let trials = parse_u64("--trials", trials)?;
    let seed = match seed {
        Some(s) => parse_u64("--seed", s)?,
        None => fresh_seed,
    };
    cmd_explore(scenario, trials, seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_errors() {
        assert_eq!(parse_u64("--seed", "42"), Ok(42));
        assert_eq!(parse_u64("--seed", "0xff"), Ok(255));
        assert_eq!(parse_u64("--seed", "1_000"), Ok(1000));
        let e = parse_u64("--trials", "-3").err().unwrap_or_default();
        assert!(e.starts_with("--trials: `-3` is not a whole number"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn unknown_scenario_is_one_line() {
        let e = run_command("no-such-thing", None, false, 1)
            .err()
            .unwrap_or_default();
        assert!(e.starts_with("unknown scenario `no-such-thing`"), "{e}");
        assert!(!e.contains('\n'));
        let e = run_command("/nonexistent/x.toml", None, false, 1)
            .err()
            .unwrap_or_default();
        assert!(e.starts_with("/nonexistent/x.toml: cannot read"), "{e}");
        let e = explore_command("fencing", "0", Some("1"), 1)
            .err()
            .unwrap_or_default();
        assert!(e.contains("--trials"), "{e}");
    }

    #[test]
    fn run_prints_seed_and_json_has_the_contract_fields() {
        let text = run_command("fencing", Some("7"), false, 99).unwrap_or_default();
        assert!(text.starts_with("scenario fencing seed 7\n"), "{text}");
        assert!(text.contains("reproduce with: lockstep run fencing --seed 7"));
        let fresh = run_command("fencing", None, false, 99).unwrap_or_default();
        assert!(fresh.starts_with("scenario fencing seed 99\n"));
        let json = run_command("fencing", Some("7"), true, 0).unwrap_or_default();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(v["scenario"], "fencing");
        assert_eq!(v["seed"], 7);
        let rejected = &v["outcome"]["rejected_writes"][0];
        assert_eq!(rejected["client"], "C1");
        assert_eq!(rejected["token"], 33);
        assert_eq!(rejected["highest_seen"], 34);
        assert!(rejected["at_ms"]
            .as_f64()
            .is_some_and(|t| (t - 12_101.0).abs() < 5.0));
        let violation = &v["outcome"]["violations"][0];
        for field in ["kind", "clients", "from_ms", "to_ms"] {
            assert!(!violation[field].is_null(), "violation lacks {field}");
        }
        assert!(v["outcome"]["accepted_writes"]
            .as_array()
            .is_some_and(|a| a.len() == 1));
        assert!(v["trace"].as_array().is_some_and(|t| t.len() > 10));
    }

    #[test]
    fn scenarios_lists_every_builtin() {
        let text = scenarios_text();
        assert_eq!(text.lines().count(), BUILTINS.len());
        assert!(text.contains("redlock-drift-2pct"));
    }
}
