//! The `lockstep` binary's simulator subcommands, end to end: output, JSON, exit codes,
//! one-line errors for bad input.

mod cli_common;
use cli_common::lockstep;

use std::process::Command;

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

/// A Lua memory bomb: 4 GB of string by doubling, were nothing to stop it.
const BOMB: &str = "local s=string.rep('x',1000000) for i=1,12 do s=s..s end return #s";

/// Runs the binary under a 2 GB address-space limit, so that a regression fails the test
/// (the allocator aborts) instead of taking the machine down. Returns (exit code, out, err).
fn lockstep_capped(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2000000; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_lockstep"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run lockstep: {e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bomb_scenario(name: &str, init_bomb: bool) -> String {
    let init = if init_bomb {
        format!("init = [[\"EVAL\", \"{BOMB}\", \"0\"]]\n")
    } else {
        String::new()
    };
    let scripts = if init_bomb {
        String::new()
    } else {
        format!("\n[scripts]\nrelease = \"{BOMB}\"\n")
    };
    format!(
        "name = \"{name}\"\nend_ms = 2000\n\n[[nodes]]\nname = \"redis\"\n{init}\n\
         [[clients]]\nname = \"A\"\nalgorithm = \"set-nx\"\nnodes = [\"redis\"]\nttl_ms = 500\n\
         release = \"lua\"\nwork = [\"sleep 100\", \"write report A\"]\n{scripts}"
    )
}

#[test]
fn a_memory_bomb_in_a_nodes_init_is_a_clear_error_not_a_crash() {
    let dir = std::env::temp_dir().join(format!("lockstep-bomb-init-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("init-bomb.toml");
    let _ = std::fs::write(&file, bomb_scenario("init-bomb", true));
    let (code, out, err) = lockstep_capped(&["run", &file.to_string_lossy(), "--seed", "1"]);
    // Exit 1 is the CLI's own failure; an abort (allocation failure) has no code.
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("init-bomb.toml:6: nodes[0].init[0]: the node refused it: ERR Script killed"),
        "{err}"
    );
    assert!(err.contains("bytes of Lua memory"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_memory_bomb_as_the_release_script_is_the_nodes_error_reply() {
    let dir = std::env::temp_dir().join(format!("lockstep-bomb-rel-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("release-bomb.toml");
    let _ = std::fs::write(&file, bomb_scenario("release-bomb", false));
    let (code, out, err) = lockstep_capped(&["run", &file.to_string_lossy(), "--seed", "1"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!err.contains("panicked"), "{err}");
    // The node answers the release with the memory error, and the run goes on to its end.
    let reply = out
        .lines()
        .find(|l| l.contains("→ A") && l.contains("(error) ERR Script killed"))
        .unwrap_or_default();
    assert!(reply.contains("bytes of Lua memory"), "{out}");
    assert!(out.contains("end of run"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
