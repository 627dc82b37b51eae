//! `cargo bench --bench store`: ops/s of the lock-critical commands on the store, against a
//! bare `HashMap<String, String>` doing the same key operations (the floor). Plain
//! `std::time::Instant` timing; each case runs for about a second after a warm-up.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use lockstep::store::{Reply, Store};

const RELEASE: &str =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

fn argv(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

/// Runs `f` in batches for about `budget`; returns operations per second.
fn measure(mut f: impl FnMut()) -> f64 {
    const BATCH: u32 = 1_000;
    let budget = Duration::from_millis(1_000);
    for _ in 0..BATCH * 10 {
        f();
    }
    let start = Instant::now();
    let mut ops: u64 = 0;
    while start.elapsed() < budget {
        for _ in 0..BATCH {
            f();
        }
        ops += u64::from(BATCH);
    }
    ops as f64 / start.elapsed().as_secs_f64()
}

/// Runs a command, draining the effect stream now and then as a replicating caller would.
fn exec(store: &mut Store, argv: &[Vec<u8>], n: &mut u32) -> Reply {
    *n = n.wrapping_add(1);
    if n.is_multiple_of(1024) {
        black_box(store.take_effects());
    }
    store.execute(argv)
}

fn main() {
    let mut n = 0u32;
    let now = 1_700_000_000_000;
    let mut results: Vec<(&str, f64, f64)> = Vec::new();

    // SET k tok NX PX 30000 on one key, as redis-benchmark runs it: after the first call the
    // key exists, so this is the "lock is taken" path. The lock's TTL is refreshed out of band
    // so it never expires during the run.
    let mut store = Store::new(1);
    store.set_now_ms(now);
    let set_nx = argv(&["SET", "k", "tok", "NX", "PX", "30000"]);
    let store_set = measure(|| {
        black_box(exec(&mut store, black_box(&set_nx), &mut n));
    });
    let mut map: HashMap<String, String> = HashMap::new();
    let map_set = measure(|| {
        let key = black_box("k");
        if !map.contains_key(key) {
            map.insert(key.to_string(), black_box("tok").to_string());
        }
    });
    results.push(("SET k tok NX PX 30000 (key held)", store_set, map_set));

    // Acquire + release on a free key: SET NX PX succeeds, DEL frees it.
    let del = argv(&["DEL", "k"]);
    let store_cycle = measure(|| {
        black_box(exec(&mut store, black_box(&set_nx), &mut n));
        black_box(exec(&mut store, black_box(&del), &mut n));
    });
    let map_cycle = measure(|| {
        let key = black_box("k");
        if !map.contains_key(key) {
            map.insert(key.to_string(), black_box("tok").to_string());
        }
        black_box(map.remove(key));
    });
    results.push((
        "SET NX PX + DEL (acquire+release, free key)",
        store_cycle,
        map_cycle,
    ));

    store.execute(&argv(&["SET", "k", "tok"]));
    map.insert("k".into(), "tok".into());
    let get = argv(&["GET", "k"]);
    let store_get = measure(|| {
        black_box(exec(&mut store, black_box(&get), &mut n));
    });
    let map_get = measure(|| {
        black_box(map.get(black_box("k")).cloned());
    });
    results.push(("GET k", store_get, map_get));

    // The release script via EVALSHA with another client's token (the lock survives; this
    // is the path redis-benchmark measures when it repeats one EVALSHA).
    let sha = match store.execute(&argv(&["SCRIPT", "LOAD", RELEASE])) {
        Reply::Bulk(b) => String::from_utf8(b).unwrap_or_default(),
        other => panic!("SCRIPT LOAD failed: {other:?}"),
    };
    let evalsha = argv(&["EVALSHA", &sha, "1", "k", "other-token"]);
    assert_eq!(store.execute(&evalsha), Reply::Int(0));
    let store_eval = measure(|| {
        black_box(exec(&mut store, black_box(&evalsha), &mut n));
    });
    let map_release = measure(|| {
        let key = black_box("k");
        if map.get(key).map(String::as_str) == Some(black_box("other-token")) {
            map.remove(key);
        }
    });
    results.push(("EVALSHA release (wrong token)", store_eval, map_release));

    // The release script that does delete: re-acquire each time.
    let evalsha_mine = argv(&["EVALSHA", &sha, "1", "k", "tok"]);
    let acquire = argv(&["SET", "k", "tok", "NX", "PX", "30000"]);
    let store_release = measure(|| {
        black_box(exec(&mut store, black_box(&acquire), &mut n));
        black_box(exec(&mut store, black_box(&evalsha_mine), &mut n));
    });
    let map_release_mine = measure(|| {
        let key = black_box("k");
        if !map.contains_key(key) {
            map.insert(key.to_string(), "tok".to_string());
        }
        if map.get(key).map(String::as_str) == Some(black_box("tok")) {
            map.remove(key);
        }
    });
    results.push((
        "SET NX PX + EVALSHA release (deletes)",
        store_release,
        map_release_mine,
    ));

    println!(
        "{:<46} {:>14} {:>14} {:>8}",
        "operation", "store ops/s", "HashMap ops/s", "ratio"
    );
    for (name, ours, floor) in results {
        println!("{name:<46} {ours:>14.0} {floor:>14.0} {:>7.1}x", floor / ours);
    }
}
