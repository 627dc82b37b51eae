//! Fuzzes the redis-cli line parser and the store: every input line is split as redis-cli
//! would and executed on one of three connections; rendering must not panic either. Scripts
//! run under a small budget so a slow input does not stall the fuzzer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockstep::store::{parse_line, render, ScriptLimits, Store};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut store = Store::new(1);
    store.set_now_ms(1_700_000_000_000);
    store.set_script_limits(ScriptLimits {
        fuel: 200_000,
        memory_bytes: 16 * 1024 * 1024,
    });
    for (i, line) in text.lines().take(64).enumerate() {
        if let Ok(argv) = parse_line(line) {
            let reply = store.execute_conn(i as u64 % 3, &argv);
            let _ = render(&reply);
        }
    }
    let _ = store.take_effects();
    let _ = store.live_keys();
    let _ = store.clone();
});
