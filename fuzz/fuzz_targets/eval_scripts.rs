//! Fuzzes the Lua scripting path: the input (after one framing byte) is a Lua script run
//! with EVAL, then loaded with SCRIPT LOAD and run again with EVALSHA, also inside a
//! MULTI/EXEC. The first byte chooses how many KEYS (0–3) the script gets; ARGV is fixed.
//! Scripts run under a small budget so a slow input does not stall the fuzzer; every
//! reply is rendered, and the store must still answer afterwards.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockstep::store::{render, Reply, ScriptLimits, Store};

fn cmd(parts: &[&[u8]]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.to_vec()).collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&frame, script)) = data.split_first() else {
        return;
    };
    let mut store = Store::new(u64::from(frame));
    store.set_now_ms(1_700_000_000_000);
    store.set_script_limits(ScriptLimits {
        fuel: 200_000,
        memory_bytes: 16 * 1024 * 1024,
    });
    // A lock held with a token, a counter and a persistent key for scripts to find.
    for c in [
        cmd(&[b"SET", b"lock", b"tok-1", b"PX", b"30000"]),
        cmd(&[b"SET", b"fence", b"41"]),
        cmd(&[b"SET", b"plain", b"hello"]),
    ] {
        let _ = store.execute(&c);
    }
    let keys: [&[u8]; 3] = [b"lock", b"fence", b"plain"];
    let argv: [&[u8]; 3] = [b"tok-1", b"30000", b"\xff\x00bytes"];
    let nkeys = usize::from(frame % 4);
    let with_args = |head: &[&[u8]]| {
        let mut v = cmd(head);
        v.push(nkeys.to_string().into_bytes());
        v.extend(keys.iter().cycle().take(nkeys).map(|k| k.to_vec()));
        v.extend(argv.iter().map(|a| a.to_vec()));
        v
    };

    let _ = render(&store.execute(&with_args(&[b"EVAL", script])));
    let loaded = store.execute(&cmd(&[b"SCRIPT", b"LOAD", script]));
    let _ = render(&loaded);
    if let Reply::Bulk(sha) = &loaded {
        let _ = render(&store.execute(&with_args(&[b"EVALSHA", sha])));
        let _ = render(&store.execute(&cmd(&[b"SCRIPT", b"EXISTS", sha, b"0000"])));
        // The same script queued in a transaction on another connection.
        let _ = store.execute_conn(1, &cmd(&[b"MULTI"]));
        let _ = store.execute_conn(1, &with_args(&[b"EVALSHA", sha]));
        let _ = store.execute_conn(1, &cmd(&[b"INCR", b"fence"]));
        let _ = render(&store.execute_conn(1, &cmd(&[b"EXEC"])));
    }
    // Whatever the script did, the store still works.
    let _ = render(&store.execute(&cmd(&[b"GET", b"lock"])));
    let _ = render(&store.execute(&cmd(&[b"SCRIPT", b"FLUSH"])));
    let _ = store.take_effects();
    let _ = store.live_keys();
});
