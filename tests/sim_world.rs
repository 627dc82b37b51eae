//! The world's mechanics, one behaviour per test: persistence on crash, partitions,
//! loss, replication and WAIT, stepping/seeking/forking the timeline, the explorer,
//! and scenario errors that name the line and field.

use lockstep::sim::explore::{explore, ExploreConfig};
use lockstep::sim::scenario::{builtin, parse, Scenario};
use lockstep::sim::timeline::Timeline;
use lockstep::sim::{run, trace_hash, Fault, Reason, TraceKind, TraceLevel, ViolationKind};

fn scenario(src: &str) -> Scenario {
    parse("test.toml", src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn builtin_ok(name: &str) -> Scenario {
    match builtin(name) {
        Some(Ok(s)) => s,
        _ => panic!("{name}"),
    }
}

/// A holds a 10 s lock from ~3 ms; the node crashes at `crash_ms` and restarts 1 ms
/// later; B tries at 3 000 ms once. Returns whether B got the lock.
fn b_gets_lock_after_crash(persistence: &str, crash_ms: u64) -> bool {
    let src = format!(
        r#"
name = "crash"
end_ms = 5000
[[nodes]]
name = "redis"
persistence = "{persistence}"
[[clients]]
name = "A"
algorithm = "set-nx"
nodes = ["redis"]
work = ["sleep 20000"]
[[clients]]
name = "B"
algorithm = "set-nx"
nodes = ["redis"]
start_ms = 3000
max_attempts = 1
[[faults]]
at_ms = {crash_ms}
op = "crash"
target = "redis"
until_ms = {}
"#,
        crash_ms + 1
    );
    let r = run(&scenario(&src), 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
    r.outcome.holds.iter().any(|h| h.client == "B")
}

#[test]
fn crash_without_persistence_forgets_the_lock() {
    assert!(b_gets_lock_after_crash("none", 2000));
}

#[test]
fn aof_always_keeps_the_lock() {
    assert!(!b_gets_lock_after_crash("always", 2000));
    assert!(!b_gets_lock_after_crash("always", 500));
}

#[test]
fn aof_everysec_loses_the_last_second() {
    // Fsynced at 1 000 ms: a crash at 2 000 keeps the key, a crash at 500 loses it.
    assert!(!b_gets_lock_after_crash("everysec", 2000));
    assert!(b_gets_lock_after_crash("everysec", 500));
}

#[test]
fn one_way_partition_drops_requests_only_that_way() {
    let src = r#"
name = "oneway"
end_ms = 3000
[[nodes]]
name = "redis"
[[clients]]
name = "A"
algorithm = "set-nx"
nodes = ["redis"]
timeout_ms = 100
max_attempts = 1
[[faults]]
at_ms = 0
op = "partition"
target = "A"
peer = "redis"
oneway = true
"#;
    let r = run(&scenario(src), 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
    let drops: Vec<_> = r
        .trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Drop { from, to, reason, .. } => Some((*from, *to, reason.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(drops.len(), 1, "{drops:?}");
    assert_eq!(drops[0].2, Reason::Partitioned);
    assert!(r.outcome.holds.is_empty());
    assert!(r
        .trace
        .iter()
        .any(|e| matches!(&e.kind, TraceKind::GaveUp { .. })));
}

#[test]
fn total_loss_drops_everything() {
    let src = r#"
name = "loss"
end_ms = 2000
[network]
loss = 1.0
[[nodes]]
name = "redis"
[[clients]]
name = "A"
algorithm = "set-nx"
nodes = ["redis"]
retry_delay_ms = 300
"#;
    let r = run(&scenario(src), 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
    let lost = r
        .trace
        .iter()
        .filter(|e| {
            matches!(
                &e.kind,
                TraceKind::Drop {
                    reason: Reason::Lost,
                    ..
                }
            )
        })
        .count();
    assert!(lost >= 2, "{lost}");
    assert!(r.outcome.holds.is_empty());
}

#[test]
fn replication_lag_and_wait() {
    // Healthy replication with lag 50 ms: WAIT 1 returns 1 once the replica acks.
    let src = r#"
name = "wait-ok"
end_ms = 1000
[[nodes]]
name = "m"
[[nodes]]
name = "r"
[[groups]]
name = "g"
master = "m"
replicas = ["r"]
lag_ms = 50
[[clients]]
name = "A"
algorithm = "set-nx"
nodes = ["g"]
wait = { replicas = 1, timeout_ms = 500 }
work = ["sleep 10"]
"#;
    let r = run(&scenario(src), 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
    let wait_reply = r.trace.iter().find_map(|e| match &e.kind {
        TraceKind::Command { args, reply, .. } if args.first().map(String::as_str) == Some("WAIT") => {
            Some((e.t_us, reply.clone()))
        }
        _ => None,
    });
    // SET runs at 1 ms, replicated at 51, applied at 52, acked at 53.
    assert_eq!(wait_reply, Some((53_000, "(integer) 1".to_string())));
    let applied = r
        .trace
        .iter()
        .find(|e| matches!(e.kind, TraceKind::Replicate { .. }))
        .map(|e| e.t_us);
    assert_eq!(applied, Some(52_000));
    assert_eq!(r.outcome.holds.len(), 1);
}

#[test]
fn a_fault_injected_into_a_timeline_recomputes_the_future() {
    // The 1 % drift scenario is safe; inject node C 2 % fast at the start of the run,
    // as a learner's fork does.
    let s = builtin_ok("redlock-drift-1pct");
    let mut t = Timeline::new(&s, 1).unwrap_or_else(|e| panic!("{e}"));
    let mut forked = Timeline::new(&s, 1).unwrap_or_else(|e| panic!("{e}"));
    let c = forked.world().pid("C").unwrap_or(usize::MAX);
    forked.world_mut().inject_at(0, Fault::Drift(c, 20_000));
    forked.run_to_end();
    t.run_to_end();
    assert!(t.outcome().is_safe());
    let v = forked.outcome().violations;
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].kind, ViolationKind::Overlap);
    // The same injection into a fresh run gives the same run.
    let mut again = Timeline::new(&s, 1).unwrap_or_else(|e| panic!("{e}"));
    again.world_mut().inject_at(0, Fault::Drift(c, 20_000));
    again.run_to_end();
    assert_eq!(trace_hash(again.trace()), trace_hash(forked.trace()));
}

#[test]
fn explore_finds_and_shrinks_a_counterexample() {
    let s = builtin_ok("redlock-contention");
    let r = explore(&s, &ExploreConfig { trials: 300, seed: 5 }).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.trials, 300);
    assert!(r.violating > 0, "no violation in 300 faulty trials");
    assert!(r.interval.0 <= r.rate() && r.rate() <= r.interval.1);
    let c = r.smallest.unwrap_or_else(|| panic!("no counterexample"));
    assert!(!c.faults.is_empty() && c.faults.len() <= 4);
    assert!(!c.outcome.is_safe());
    // The counterexample reproduces from its seed and faults alone.
    let ops: Vec<_> = c.faults.iter().flat_map(|u| u.ops.clone()).collect();
    let again =
        lockstep::sim::run_with(&s, c.seed, TraceLevel::Semantic, &ops).unwrap_or_else(|e| panic!("{e}"));
    assert!(!again.outcome.is_safe());
    // Same seed, same report.
    let r2 = explore(&s, &ExploreConfig { trials: 300, seed: 5 }).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r2.violating, r.violating);
}

#[test]
fn scenario_errors_name_line_and_field() {
    let cases = [
        ("name = \"x\"\n[[nodes]]\nname = \"n\"\n[[faults]]\nat_ms = 10\nop = \"crash\"\ntarget = \"zz\"\n", "test.toml:7: faults[0].target"),
        ("name = \"x\"\n[[nodes]]\nname = \"n\"\n[[faults]]\nat_ms = 10\nop = \"pause\"\ntarget = \"n\"\nuntil_ms = 5\n", "test.toml:8: faults[0].until_ms"),
        ("name = \"x\"\nend_ms = -3\n", "test.toml:2: end_ms"),
        ("name = \"x\"\n[[nodes]]\nname = \"n\"\ndrift_pct = 400\n", "test.toml:4: nodes[0].drift_pct"),
        ("name = \"x\"\n[[clients]]\nname = \"A\"\nalgorithm = \"set-nx\"\nnodes = []\n", "test.toml:5: clients[0].nodes"),
        ("name = \"x\"\n[[clients]]\nname = \"A\"\nalgorithm = \"none\"\nwork = [\"dance\"]\n", "test.toml:5: clients[0].work[0]"),
        ("name = \"x\"\n[[clients]]\nname = \"A\"\nalgorithm = \"quantum\"\n", "test.toml:4"),
        ("name = \"x\"\n[network]\nloss = 2\n", "test.toml:3: network.loss"),
        ("name = \"x\"\n[[nodes]]\nname = \"n\"\n[[nodes]]\nname = \"n\"\n", "test.toml:5: nodes[1].name"),
        ("[[nodes]]\nname = \"n\"\n", "missing field `name`"),
        (
            "name = \"x\"\n[[nodes]]\nname = \"n\"\n[[clients]]\nname = \"A\"\nalgorithm = \"redlock\"\nnodes = [\"n\"]\nwatchdog = true\n",
            "test.toml:8: clients[0].watchdog",
        ),
    ];
    for (src, want) in cases {
        let err = parse("test.toml", src)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains(want), "want `{want}`, got `{err}`\n{src}");
    }
}

#[test]
fn repeat_runs_many_cycles_safely() {
    let src = r#"
name = "workers"
end_ms = 20000
[[nodes]]
name = "redis"
[[clients]]
name = "w1"
algorithm = "set-nx"
nodes = ["redis"]
ttl_ms = 1000
retry_delay_ms = [5, 20]
repeat = 5
work = ["sleep 10..30"]
[[clients]]
name = "w2"
algorithm = "set-nx"
nodes = ["redis"]
ttl_ms = 1000
retry_delay_ms = [5, 20]
repeat = 5
work = ["sleep 10..30"]
"#;
    let r = run(&scenario(src), 9, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
    for w in ["w1", "w2"] {
        assert_eq!(r.outcome.holds.iter().filter(|h| h.client == w).count(), 5, "{w}");
    }
    assert!(r.outcome.is_safe(), "{:?}", r.outcome.violations);
}

#[test]
fn get_then_del_releases_on_every_redlock_node() {
    let src = r#"
name = "gtd"
end_ms = 2000
[[nodes]]
name = "n1"
[[nodes]]
name = "n2"
[[nodes]]
name = "n3"
[[clients]]
name = "A"
algorithm = "redlock"
nodes = ["n1", "n2", "n3"]
release = "get-then-del"
work = ["sleep 10"]
"#;
    let r = run(&scenario(src), 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
    let mut deleted: Vec<u32> = r
        .trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Command { args, reply, .. } if args.first().map(String::as_str) == Some("DEL") => {
                assert_eq!(reply, "(integer) 1");
                Some(e.pid)
            }
            _ => None,
        })
        .collect();
    deleted.sort();
    assert_eq!(deleted, vec![0, 1, 2]);
}

#[test]
fn a_fault_naming_an_unknown_process_is_refused_not_a_panic() {
    let s = builtin_ok("unsafe-del");
    let mut world = lockstep::sim::World::build(&s, 1, TraceLevel::Full).expect("builds");
    let n = world.process_names().len();
    assert!(!world.inject(Fault::Crash(n)), "pid {n} is past the last process");
    assert!(!world.inject(Fault::Partition {
        a: 0,
        b: vec![n + 5],
        oneway: false
    }));
    assert!(world.inject(Fault::Pause(0)), "pid 0 exists");
    let mut out = Vec::new();
    world.run(&mut out);
    assert!(!out.is_empty());
}

/// "Can this break?" names the property each broken trial breaks; where the resource
/// checks fencing tokens or idempotency keys, two holders at once is what it is built
/// to absorb, and only a property of its data counts (issue #20).
#[test]
fn explore_names_what_broke_and_a_protected_resource_absorbs_overlaps() {
    use lockstep::sim::Property;
    let go = |name: &str, trials: u64| {
        explore(&builtin_ok(name), &ExploreConfig { trials, seed: 1 }).unwrap_or_else(|e| panic!("{e}"))
    };
    // The fencing run itself (no fault) has an overlap whose late write the resource
    // rejects: absorbed, not broken.
    let r = go("fencing", 200);
    assert!(r.absorbed > 0, "{:?}", r.by_property);
    assert!(r.violating + r.absorbed <= r.trials);
    assert!(
        !r.by_property.contains_key(&Property::MutualExclusion),
        "{:?}",
        r.by_property
    );
    assert!(r.by_property.values().all(|n| *n > 0 && *n <= r.violating));
    if let Some(c) = &r.smallest {
        assert!(
            !c.faults.is_empty(),
            "the fencing run breaks with no fault at all"
        );
        assert!(!c.broken.is_empty() && !c.broken.contains(&Property::MutualExclusion));
    }
    // Without fencing the same run breaks with no fault, and says how.
    let r = go("no-fencing", 20);
    let c = r.smallest.unwrap_or_else(|| panic!("no-fencing never broke"));
    assert!(c.faults.is_empty(), "{:?}", c.fault_labels);
    assert_eq!(
        c.broken,
        vec![
            Property::MutualExclusion,
            Property::StaleWrite,
            Property::LostUpdate
        ]
    );
    // The idempotency key absorbs the too-short lock: never two charges.
    let r = go("idempotency-key", 50);
    assert_eq!(r.violating, 0, "{:?}", r.by_property);
    assert!(r.absorbed > 0);
    // Without a lock, §1's race charges twice.
    let r = go("double-charge-no-lock", 20);
    assert!(
        r.by_property.get(&Property::DoubleEffect).is_some_and(|n| *n > 0),
        "{:?}",
        r.by_property
    );
    let c = r.smallest.unwrap_or_else(|| panic!("no double charge"));
    assert!(c.broken.contains(&Property::DoubleEffect), "{:?}", c.broken);
}

/// §7: a majority whose replies arrive after TTL − D (here elapsed ≈ 9 950 ms of a
/// 10 000 ms TTL, D = 102) is not held: validity = TTL − elapsed − D ≤ 0, although
/// elapsed < TTL. The rule "majority and elapsed < TTL" would hold it.
#[test]
fn redlock_needs_positive_validity_not_only_elapsed_below_ttl() {
    let src = r#"
name = "late-majority"
end_ms = 12000
[network]
latency_ms = 4975
[[nodes]]
name = "A"
service_ms = 0
[[nodes]]
name = "B"
service_ms = 0
[[nodes]]
name = "C"
service_ms = 0
[[clients]]
name = "C1"
algorithm = "redlock"
nodes = ["A", "B", "C"]
ttl_ms = 10000
timeout_ms = 10000
max_attempts = 1
work = ["sleep 10"]
"#;
    let r = run(&scenario(src), 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
    let reasons: Vec<(u64, Reason)> = r
        .trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::AcquireFailed { reason, .. } => Some((e.t_us, reason.clone())),
            _ => None,
        })
        .collect();
    // Three OKs, elapsed 9 950 < TTL, yet the attempt fails on its validity.
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    let (at, why) = &reasons[0];
    assert_eq!(*at, 9_950_000);
    assert_eq!(
        *why,
        Reason::NoValidity {
            validity_ms: -52,
            elapsed_ms: 9950
        }
    );
    assert!(r.outcome.holds.is_empty(), "{:?}", r.outcome.holds);
    assert!(!r
        .trace
        .iter()
        .any(|e| matches!(e.kind, TraceKind::LockHeld { .. })));
}

/// §8: node-redlock settles an attempt only on a quorum for or against. With four
/// nodes split 2–2 neither comes: each client's attempt stays pending for ever; it
/// neither retries nor releases its two keys (they expire after the duration).
#[test]
fn library_even_split_never_settles_never_retries_never_releases() {
    let r = run(&builtin_ok("redlock-even-split"), 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
    for (pid, name) in r.names.iter().enumerate() {
        if name != "C1" && name != "C2" {
            continue;
        }
        let mine: Vec<&TraceKind> = r
            .trace
            .iter()
            .filter(|e| e.pid as usize == pid)
            .map(|e| &e.kind)
            .collect();
        let stalls: Vec<(u32, u32)> = mine
            .iter()
            .filter_map(|k| match k {
                TraceKind::Stalled {
                    votes_for,
                    votes_against,
                    ..
                } => Some((*votes_for, *votes_against)),
                _ => None,
            })
            .collect();
        assert_eq!(stalls, vec![(2, 2)], "{name}");
        // One attempt of four scripts: no retry, and no release script after it.
        let sent = mine
            .iter()
            .filter(|k| matches!(k, TraceKind::Send { .. }))
            .count();
        assert_eq!(sent, 4, "{name} sent {sent} commands");
        assert!(
            !mine.iter().any(|k| matches!(
                k,
                TraceKind::LockHeld { .. } | TraceKind::AcquireFailed { .. } | TraceKind::GaveUp { .. }
            )),
            "{name}"
        );
    }
    assert!(r.outcome.holds.is_empty());
}

/// §10: a crash between the claim and the charge. The in-progress claim expires, so
/// the job's retry takes it over and charges once; a claim that never expires (the
/// permanent `SET … NX` record) leaves the invoice uncharged for good.
#[test]
fn an_expiring_claim_lets_the_retry_charge_after_a_crash_a_permanent_one_does_not() {
    let charges = |claim: &str| {
        let mut s = builtin_ok("idempotency-crash");
        for c in &mut s.clients {
            for w in &mut c.work {
                if w.starts_with("claim ") {
                    *w = claim.to_string();
                }
            }
        }
        let r = run(&s, 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
        let charged: Vec<String> = r
            .outcome
            .accepted_writes
            .iter()
            .filter(|w| w.key == "charge")
            .map(|w| w.client.clone())
            .collect();
        let refused: Vec<Reason> = r
            .outcome
            .rejected_writes
            .iter()
            .filter_map(|w| w.reason.clone())
            .collect();
        (charged, refused)
    };
    let (charged, refused) = charges("claim 300");
    assert_eq!(charged, vec!["C".to_string()]);
    assert!(
        matches!(refused[0], Reason::IdempotencyInProgress { .. }),
        "{refused:?}"
    );
    assert!(
        matches!(refused[1], Reason::IdempotencyUsed { .. }),
        "{refused:?}"
    );
    // A claim for a whole day: A's crash blocks every retry; nobody charges.
    let (charged, refused) = charges("claim 86400000");
    assert!(charged.is_empty(), "{charged:?}");
    assert_eq!(refused.len(), 3, "{refused:?}");
}
