//! What must come out the same natively and in a browser, shared by `tests/determinism.rs`
//! (native: checks the recorded file is current, spawns the CLI twice) and
//! `tests/web_determinism.rs` (wasm32: computes the same things in Chromium and Firefox
//! and compares them with what the native run recorded).
#![allow(dead_code)]

use lockstep::sim::scenario::{builtin, BUILTINS};
use lockstep::sim::{run, trace_hash, TraceLevel};
use lockstep::store::{parse_line, render, Store};

/// Seeds 1..=SEEDS of every built-in scenario are recorded.
pub const SEEDS: u64 = 5;

/// The trace hashes a native build recorded: `name seed hash` lines, built-ins in their
/// listed order. `LOCKSTEP_BLESS=1 cargo test --test determinism` rewrites it.
pub const RECORDED: &str = include_str!("trace-hashes.txt");

/// Where `RECORDED` lives, for the native test that rewrites it.
pub const RECORDED_PATH: &str = "tests/determinism_common/trace-hashes.txt";

/// Every built-in × seeds 1..=SEEDS, as the lines of `RECORDED`.
pub fn trace_hashes() -> String {
    let mut out = String::new();
    for b in BUILTINS {
        let Some(Ok(scenario)) = builtin(b.name) else {
            panic!("built-in {} does not load", b.name)
        };
        for seed in 1..=SEEDS {
            let r = run(&scenario, seed, TraceLevel::Full).unwrap_or_else(|e| panic!("{}: {e}", b.name));
            out.push_str(&format!("{} {seed} {:#018x}\n", b.name, trace_hash(&r.trace)));
        }
    }
    out
}

/// A script that lists a table's keys in `pairs` order: strings (inserted in a scrambled
/// order), integers in and beyond the array part, floats, and a key removed again.
pub const PAIRS_EVAL: &str = "EVAL \"local t = {} \
for i = 40, 1, -1 do t['k' .. ((i * 17) % 40)] = i end \
for i = 1, 5 do t[i] = i end t[100] = 1 t[-3] = 1 t[2.5] = 1 t[1e300] = 1 t['k7'] = nil \
local o = {} for k in pairs(t) do o[#o + 1] = tostring(k) end return table.concat(o, ',')\" 0";

/// The order every process on every target gives: numbers ascending, then strings
/// bytewise.
pub const PAIRS_ORDER: &str = "\"-3,1,2,2.5,3,4,5,100,1e+300,k0,k1,k10,k11,k12,k13,k14,k15,k16,k17,k18,k19,k2,k20,k21,k22,k23,k24,k25,k26,k27,k28,k29,k3,k30,k31,k32,k33,k34,k35,k36,k37,k38,k39,k4,k5,k6,k8,k9\"";

/// `PAIRS_EVAL`'s reply from a fresh store in this process, as redis-cli prints it.
pub fn pairs_order_in_process() -> String {
    let mut store = Store::new(0);
    let argv = parse_line(PAIRS_EVAL).unwrap_or_else(|e| panic!("{e}"));
    render(&store.execute(&argv))
}
