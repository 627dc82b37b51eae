//! One program and seed, one outcome: in two processes, and natively as in a browser
//! (`tests/web_determinism.rs` compares the browser with what this file records).

mod determinism_common;

use std::io::Write;
use std::process::{Command, Stdio};

use determinism_common::{
    pairs_order_in_process, trace_hashes, PAIRS_EVAL, PAIRS_ORDER, RECORDED, RECORDED_PATH,
};

/// `lockstep repl` in a fresh process, `input` on its stdin; its stdout.
fn repl(input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .arg("repl")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("lockstep repl starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("stdin takes the script");
    let out = child.wait_with_output().expect("lockstep repl ends");
    assert!(out.status.success(), "lockstep repl failed: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8 replies")
}

/// piccolo hashes table keys with a per-process random key; `pairs` must not show it.
#[test]
fn pairs_visits_keys_in_the_same_order_in_two_processes() {
    let input = format!("{PAIRS_EVAL}\n");
    let first = repl(&input);
    let second = repl(&input);
    assert_eq!(first, second, "two processes disagree on the pairs order");
    assert_eq!(first.trim_end(), PAIRS_ORDER);
    assert_eq!(pairs_order_in_process(), PAIRS_ORDER);
}

/// The recorded trace hashes the browser test compares with are the native ones. After a
/// change that moves them on purpose: `LOCKSTEP_BLESS=1 cargo test --test determinism`.
#[test]
fn the_recorded_trace_hashes_are_the_native_ones() {
    let now = trace_hashes();
    if std::env::var_os("LOCKSTEP_BLESS").is_some() {
        std::fs::write(RECORDED_PATH, &now).expect("write the recorded hashes");
        return;
    }
    assert_eq!(
        RECORDED, now,
        "{RECORDED_PATH} is out of date: if the traces changed on purpose, run \
         LOCKSTEP_BLESS=1 cargo test --test determinism"
    );
}
