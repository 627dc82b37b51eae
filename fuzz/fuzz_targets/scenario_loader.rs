//! Fuzzes the scenario loader and the simulator: the input, read as UTF-8 (lossily), is a
//! scenario file. Its error, if any, is rendered; a scenario that parses is built and run
//! for a bounded number of events, then checked (and compared with its `[expect]` table),
//! as the app and `lockstep run` would.
#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use lockstep::sim::scenario::parse;
use lockstep::sim::{check, trace_hash, verify, Run, TraceLevel, World};

/// Queue events per input: enough to finish every built-in scenario's interesting part.
const MAX_STEPS: u64 = 20_000;
/// A scenario may replace the clients' Lua scripts, and each call then runs with the
/// store's full budget (about 50 ms natively): stop stepping after this much wall time so
/// one input stays well under libFuzzer's timeout. Only such slow inputs are affected.
const MAX_WALL: Duration = Duration::from_millis(1_000);

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let scenario = match parse("fuzz.toml", &text) {
        Ok(s) => s,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let Ok(mut world) = World::build(&scenario, 7, TraceLevel::Full) else {
        return;
    };
    let started = Instant::now();
    let mut trace = Vec::new();
    while world.events() < MAX_STEPS && world.step(&mut trace) {
        if started.elapsed() > MAX_WALL {
            break;
        }
    }
    let names = world.process_names();
    let outcome = check(&trace, &names);
    let _ = outcome.is_safe();
    let run = Run {
        scenario: scenario.name.clone(),
        seed: world.seed(),
        names,
        trace,
        outcome,
        events: world.events(),
    };
    let _ = trace_hash(&run.trace);
    if let Some(expect) = &scenario.expect {
        let _ = verify(expect, &run);
    }
});
