//! The `lockstep` binary's simulator subcommands, end to end: output, JSON, exit codes,
//! one-line errors for bad input.

use std::process::Command;

fn lockstep(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run lockstep: {e}"));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn scenarios_lists_the_builtins() {
    let (ok, out, _) = lockstep(&["scenarios"]);
    assert!(ok);
    assert_eq!(out.lines().count(), lockstep::sim::scenario::BUILTINS.len());
    assert!(out.lines().any(|l| l.starts_with("redlock-clock-jump ")));
}

#[test]
fn run_without_seed_prints_the_fresh_seed() {
    let (ok, out, _) = lockstep(&["run", "redlock-baseline"]);
    assert!(ok);
    let first = out.lines().next().unwrap_or_default();
    let seed = first
        .strip_prefix("scenario redlock-baseline seed ")
        .unwrap_or_default();
    assert!(seed.parse::<u64>().is_ok(), "{first}");
    assert!(out.contains(&format!(
        "reproduce with: lockstep run redlock-baseline --seed {seed}"
    )));
}

#[test]
fn run_json_reports_violations_and_rejections() {
    let (ok, out, _) = lockstep(&["run", "unsafe-del", "--seed", "1", "--json"]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    assert_eq!(v["seed"], 1);
    let violations = v["outcome"]["violations"].as_array().cloned().unwrap_or_default();
    assert_eq!(violations.len(), 2);
    assert_eq!(violations[1]["clients"], serde_json::json!(["B", "C"]));
    assert_eq!(violations[1]["from_ms"], 12300.0);
    let (ok, out, _) = lockstep(&["run", "fencing", "--seed", "1", "--json"]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    assert_eq!(v["outcome"]["rejected_writes"][0]["token"], 33);
}

#[test]
fn bad_input_is_one_line_and_a_failure() {
    let dir = std::env::temp_dir().join(format!("lockstep-cli-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let bad = dir.join("bad.toml");
    let _ = std::fs::write(
        &bad,
        "name = \"x\"\n[[clients]]\nname = \"A\"\nalgorithm = \"set-nx\"\nttl_ms = \"ten\"\n",
    );
    let bad = bad.to_string_lossy().into_owned();
    for args in [
        vec!["run", "no-such-scenario"],
        vec!["run", "fencing", "--seed", "-1"],
        vec!["run", "/no/such/file.toml"],
        vec!["run", bad.as_str()],
        vec!["explore", "fencing", "--trials", "lots"],
        vec!["explore", "fencing", "--trials", "0"],
    ] {
        let (ok, out, err) = lockstep(&args);
        assert!(!ok, "{args:?} succeeded");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let (_, _, err) = lockstep(&["run", bad.as_str()]);
    assert!(err.contains("bad.toml:5: ttl_ms"), "{err}");
}

#[test]
fn explore_reports_rate_interval_and_counterexample() {
    let (ok, out, _) = lockstep(&["explore", "redlock-contention", "--trials", "200", "--seed", "3"]);
    assert!(ok);
    assert!(out.starts_with("scenario redlock-contention seed 3: "), "{out}");
    assert!(out.contains("95 % interval"));
    assert!(out.contains("Smallest counterexample"), "{out}");
}
