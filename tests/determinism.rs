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

fn eval(script: &str) -> String {
    let mut store = lockstep::store::Store::new(0);
    let argv = lockstep::store::parse_line(&format!("EVAL \"{script}\" 0")).expect("a command line");
    lockstep::store::render(&store.execute(&argv))
}

/// Ten nested loops over ten tables (more than the snapshots kept at once), each table's
/// keys visited once and in order; fields cleared during a traversal; a key that is not in
/// the table is refused as Lua 5.1 refuses it.
#[test]
fn pairs_keeps_its_order_through_nesting_and_removal() {
    let nested = "local ts = {} for i = 1, 10 do ts[i] = {a = i} end \
        ts[1] = {c = 1, b = 1, a = 1} ts[10] = {c = 1, b = 1, a = 1} local o = {} \
        local function walk(d) if d > 10 then return end \
          for k in pairs(ts[d]) do if d == 1 or d == 10 then o[#o + 1] = d .. k end walk(d + 1) end end \
        walk(1) return table.concat(o, ',')";
    assert_eq!(eval(nested), "\"1a,10a,10b,10c,1b,10a,10b,10c,1c,10a,10b,10c\"");
    let cleared = "local t = {x = 1, y = 2, z = 3} local o = {} \
        for k in pairs(t) do o[#o + 1] = k t.y = nil t.z = nil end return table.concat(o)";
    assert_eq!(eval(cleared), "\"x\"");
    assert!(eval("return next({a = 1}, 'b')").contains("invalid key to 'next'"));
    assert!(eval("return pairs(nil)").contains("bad argument #1 to 'pairs' (table expected, got nil)"));
}
