//! The simulator's side of the labs, without Node.js: a small harness written in Rust
//! plays the driver and the learner's code over the real messages (docs/labs.md), so
//! the world's lab workers, the attacks and the grade are tested on their own.
//! `tests/labs_node.rs` runs the real JavaScript harness.

use lockstep::sim::lab::{self, Check, CodeError, Host, Lab, LabAttack, LabAttackOp, LabSources, StallPoint};
use lockstep::sim::ViolationKind;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const RELEASE_LUA: &str =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

#[derive(Clone, Copy, PartialEq)]
enum Release {
    Lua,
    Del,
    /// The Lua release sent twice at once (as a client releasing on several nodes does):
    /// the second reply is ignored.
    LuaTwice,
}

#[derive(Clone, Copy, PartialEq)]
enum Acquire {
    SetNxPx,
    /// SETNX, then PEXPIRE: a crash between them leaves a key without a TTL.
    SetNxThenExpire,
    ConstantToken,
}

#[derive(Default)]
struct Proc {
    job: u32,
    token: String,
    t0: f64,
    next_id: u64,
    /// What the pending command or timer is for.
    waiting: BTreeMap<u64, &'static str>,
}

struct FakeHarness {
    acquire: Acquire,
    release: Release,
    procs: BTreeMap<u64, Proc>,
    jobs: u32,
    /// Write to the resource at the end of the work, then extend the lock (one answer).
    write: bool,
}

impl FakeHarness {
    fn new(acquire: Acquire, release: Release) -> FakeHarness {
        FakeHarness {
            acquire,
            release,
            procs: BTreeMap::new(),
            jobs: 3,
            write: false,
        }
    }

    fn cmd(p: &mut Proc, out: &mut Vec<Value>, why: &'static str, args: &[&str]) {
        p.next_id += 1;
        p.waiting.insert(p.next_id, why);
        out.push(json!({"a": "cmd", "id": p.next_id, "node": 0, "args": args, "timeout_ms": null}));
    }

    fn timer(p: &mut Proc, out: &mut Vec<Value>, why: &'static str, ms: f64) {
        p.next_id += 1;
        p.waiting.insert(p.next_id, why);
        out.push(json!({"a": "timer", "id": p.next_id, "ms": ms}));
    }

    fn try_acquire(&self, p: &mut Proc, out: &mut Vec<Value>, now: f64, pid: u64) {
        p.t0 = now;
        p.token = match self.acquire {
            Acquire::ConstantToken => "locked".to_string(),
            _ => format!("tok-{pid}-{}-{}", p.job, p.next_id),
        };
        let token = p.token.clone();
        match self.acquire {
            Acquire::SetNxThenExpire => Self::cmd(p, out, "setnx", &["SETNX", "lock:report", &token]),
            _ => Self::cmd(p, out, "set", &["SET", "lock:report", &token, "NX", "PX", "500"]),
        }
    }

    fn input(&mut self, m: &Value) -> Vec<Value> {
        let pid = m["pid"].as_u64().unwrap_or(0);
        let now = m["now_ms"].as_f64().unwrap_or(0.0);
        let ev = &m["ev"];
        let mut out = Vec::new();
        let kind = ev["kind"].as_str().unwrap_or("");
        if kind == "crash" {
            self.procs.remove(&pid);
            return out;
        }
        if kind == "start" {
            let mut p = Proc::default();
            self.try_acquire(&mut p, &mut out, now, pid);
            self.procs.insert(pid, p);
            return out;
        }
        let id = ev["id"].as_u64().unwrap_or(0);
        let mut p = self.procs.remove(&pid).unwrap_or_default();
        let why = p.waiting.remove(&id).unwrap_or("");
        let ok = ev["value"] == json!("OK") || ev["value"] == json!(1);
        match why {
            "set" | "setnx" if ok => {
                if why == "setnx" {
                    Self::cmd(&mut p, &mut out, "pexpire", &["PEXPIRE", "lock:report", "500"]);
                } else {
                    out.push(json!({"a": "held", "token": p.token, "until_ms": p.t0 + 500.0}));
                    Self::timer(&mut p, &mut out, "work", 40.0);
                }
            }
            "pexpire" => {
                out.push(json!({"a": "held", "token": p.token, "until_ms": p.t0 + 500.0}));
                Self::timer(&mut p, &mut out, "work", 40.0);
            }
            "set" | "setnx" => {
                out.push(json!({"a": "failed", "reason": "the lock was taken"}));
                Self::timer(&mut p, &mut out, "retry", 25.0);
            }
            "retry" => self.try_acquire(&mut p, &mut out, now, pid),
            "work" if self.write => {
                // A write, then (like a watchdog's) an extension in the same answer.
                p.next_id += 1;
                out.push(json!({"a": "resource", "id": p.next_id, "op": "write",
                                "key": "report", "value": format!("job {}", p.job), "token": null}));
                Self::cmd(&mut p, &mut out, "extend", &["PEXPIRE", "lock:report", "500"]);
            }
            "work" | "extend" => {
                out.push(json!({"a": "released"}));
                let token = p.token.clone();
                match self.release {
                    Release::Lua => Self::cmd(
                        &mut p,
                        &mut out,
                        "release",
                        &["EVAL", RELEASE_LUA, "1", "lock:report", &token],
                    ),
                    Release::Del => Self::cmd(&mut p, &mut out, "release", &["DEL", "lock:report"]),
                    Release::LuaTwice => {
                        let args = ["EVAL", RELEASE_LUA, "1", "lock:report", &token];
                        Self::cmd(&mut p, &mut out, "release", &args);
                        Self::cmd(&mut p, &mut out, "extra", &args);
                    }
                }
            }
            "release" => {
                p.job += 1;
                if p.job >= self.jobs {
                    out.push(json!({"a": "done"}));
                } else {
                    self.try_acquire(&mut p, &mut out, now, pid);
                }
            }
            _ => {}
        }
        self.procs.insert(pid, p);
        out
    }
}

impl Host for FakeHarness {
    fn exchange(&mut self, message: &str) -> Result<String, CodeError> {
        let m: Value = serde_json::from_str(message).map_err(|e| CodeError::new(e.to_string()))?;
        let answer = match m["type"].as_str() {
            Some("init") | Some("run") => {
                self.procs.clear();
                json!({"type": "ready"})
            }
            _ => json!({"type": "actions", "actions": self.input(&m)}),
        };
        Ok(answer.to_string())
    }
}

fn lab_named(id: &str) -> Lab {
    let dir = format!("{}/labs/{id}", env!("CARGO_MANIFEST_DIR"));
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).unwrap_or_default();
    let (lab_toml, scenario_toml) = (read("lab.toml"), read("scenario.toml"));
    let sources = LabSources {
        dir: &dir,
        lab_toml: &lab_toml,
        scenario_toml: &scenario_toml,
        driver: "",
        starter: "",
        starters: &[],
        solution: "",
    };
    match Lab::parse(&sources) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    }
}

fn broken(r: &lab::LabReport) -> Vec<String> {
    r.checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| c.name.clone())
        .collect()
}

#[test]
fn a_correct_lock_passes_the_run_and_two_hundred_attacked_trials() {
    for id in ["set-nx", "safe-release"] {
        let lab = lab_named(id);
        let mut h = FakeHarness::new(Acquire::SetNxPx, Release::Lua);
        let run = lab::run_trials(&lab, &mut h, 7, 1, |_| {}).unwrap_or_else(|e| panic!("{e}"));
        assert!(run.passed(), "{id}: {}", run.json());
        let many = lab::run_trials(&lab, &mut h, 7, 200, |_| {}).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(many.trials, 200, "{id}: {}", many.json());
        assert!(many.passed(), "{id}: {}", many.json());
    }
}

#[test]
fn every_worker_finishes_all_its_jobs_in_a_clean_run() {
    let lab = lab_named("set-nx");
    let mut h = FakeHarness::new(Acquire::SetNxPx, Release::Lua);
    let t = lab::run_once(&lab, &mut h, 3, Vec::new()).unwrap_or_else(|e| panic!("{e}"));
    let done = t
        .trace
        .iter()
        .filter(|e| matches!(e.kind, lockstep::sim::TraceKind::WorkDone))
        .count();
    assert_eq!(done, 3);
    assert_eq!(
        t.outcome.holds.len(),
        9,
        "3 workers × 3 jobs: {:?}",
        t.outcome.holds
    );
    assert!(t.passed());
}

#[test]
fn a_plain_del_release_is_caught_deleting_another_workers_key_in_the_run() {
    let lab = lab_named("safe-release");
    let mut h = FakeHarness::new(Acquire::SetNxPx, Release::Del);
    let r = lab::run_trials(&lab, &mut h, 7, 1, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.exit_code(), 1, "{}", r.json());
    assert!(
        broken(&r).contains(&"no_foreign_delete".to_string()),
        "{}",
        r.json()
    );
    let t = r
        .counterexample
        .as_ref()
        .unwrap_or_else(|| panic!("no counterexample"));
    let v = t.violations();
    let fd = v
        .iter()
        .find(|v| v.kind == ViolationKind::ForeignDelete)
        .unwrap_or_else(|| panic!("{v:?}"));
    // A paused 700 ms before its release: its DEL lands after its 500 ms lease.
    assert_eq!(fd.clients.first().map(String::as_str), Some("A"), "{fd:?}");
    assert!(fd.from_ms > 500.0, "{fd:?}");
}

#[test]
fn a_lock_without_ttl_after_a_crash_between_setnx_and_pexpire_never_frees() {
    let lab = lab_named("set-nx");
    let mut h = FakeHarness::new(Acquire::SetNxThenExpire, Release::Lua);
    let r = lab::run_trials(&lab, &mut h, 7, 1, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let b = broken(&r);
    assert!(b.contains(&"all_done".to_string()), "{}", r.json());
    assert!(b.contains(&"freed_after_crash".to_string()), "{}", r.json());
    // The crash struck before A's 2nd command (PEXPIRE), so A's key has no TTL.
    let t = r
        .counterexample
        .as_ref()
        .unwrap_or_else(|| panic!("no counterexample"));
    let holders: Vec<u32> = t
        .trace
        .iter()
        .filter(|e| matches!(e.kind, lockstep::sim::TraceKind::LockHeld { .. }))
        .map(|e| e.pid)
        .collect();
    assert!(
        holders.is_empty(),
        "A died before it knew, and nobody else got it: {holders:?}"
    );
}

#[test]
fn a_constant_token_breaks_unique_tokens() {
    let lab = lab_named("set-nx");
    let mut h = FakeHarness::new(Acquire::ConstantToken, Release::Lua);
    let r = lab::run_trials(&lab, &mut h, 7, 1, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert!(broken(&r).contains(&"unique_tokens".to_string()), "{}", r.json());
}

#[test]
fn a_pause_before_a_command_holds_the_command_until_the_resume() {
    let lab = lab_named("set-nx");
    let mut h = FakeHarness::new(Acquire::SetNxPx, Release::Lua);
    let attack = LabAttack {
        worker: 0,
        command: 2,
        op: LabAttackOp::Pause { for_us: 700_000 },
        at: StallPoint::Command,
    };
    let t = lab::run_once(&lab, &mut h, 3, vec![attack]).unwrap_or_else(|e| panic!("{e}"));
    let pause = t
        .trace
        .iter()
        .find(|e| matches!(e.kind, lockstep::sim::TraceKind::Pause));
    let resume = t
        .trace
        .iter()
        .find(|e| matches!(e.kind, lockstep::sim::TraceKind::Resume));
    let (Some(p), Some(r)) = (pause, resume) else {
        panic!("no pause/resume")
    };
    assert_eq!(r.t_us - p.t_us, 700_000);
    // A's release (its 2nd command) leaves A only after the resume.
    let a = t.names.iter().position(|n| n == "A").unwrap_or(usize::MAX) as u32;
    let sends: Vec<u64> = t
        .trace
        .iter()
        .filter(|e| e.pid == a && matches!(e.kind, lockstep::sim::TraceKind::Send { .. }))
        .map(|e| e.t_us)
        .collect();
    assert!(sends.len() >= 2, "{sends:?}");
    assert!(
        sends[0] < p.t_us && sends[1] >= r.t_us,
        "{sends:?} pause {} resume {}",
        p.t_us,
        r.t_us
    );
    // Its lease ended during the pause: the grade clips its hold there, so B taking the
    // expired lock is no overlap.
    assert!(t.passed(), "{:?}", t.violations());
}

/// Worker `name`'s pid in `t`, and when it crashed.
fn crash_of(t: &lab::TrialResult, name: &str) -> (u32, u64) {
    let pid = t.names.iter().position(|n| n == name).unwrap_or(usize::MAX) as u32;
    let at = t
        .trace
        .iter()
        .find(|e| e.pid == pid && matches!(e.kind, lockstep::sim::TraceKind::Crash))
        .map(|e| e.t_us)
        .unwrap_or_else(|| panic!("{name} never crashed"));
    (pid, at)
}

/// A host that keeps every message it was sent.
struct Recording<H: Host> {
    inner: H,
    sent: Vec<Value>,
}

impl<H: Host> Host for Recording<H> {
    fn exchange(&mut self, message: &str) -> Result<String, CodeError> {
        self.sent
            .push(serde_json::from_str(message).unwrap_or(Value::Null));
        self.inner.exchange(message)
    }
}

#[test]
fn a_pause_as_a_timer_fires_runs_its_callback_after_the_resume_by_the_later_clock() {
    let lab = lab_named("set-nx");
    let mut h = Recording {
        inner: FakeHarness::new(Acquire::SetNxPx, Release::Lua),
        sent: Vec::new(),
    };
    let attack = LabAttack {
        worker: 0,
        command: 1,
        op: LabAttackOp::Pause { for_us: 700_000 },
        at: StallPoint::Timer,
    };
    let t = lab::run_once(&lab, &mut h, 3, vec![attack]).unwrap_or_else(|e| panic!("{e}"));
    let a = t.names.iter().position(|n| n == "A").unwrap_or(usize::MAX) as u64;
    let at = |kind: fn(&lockstep::sim::TraceKind) -> bool| {
        t.trace
            .iter()
            .find(|e| u64::from(e.pid) == a && kind(&e.kind))
            .map(|e| e.t_us)
            .unwrap_or_else(|| panic!("no such event for A"))
    };
    let paused = at(|k| matches!(k, lockstep::sim::TraceKind::Pause));
    let resumed = at(|k| matches!(k, lockstep::sim::TraceKind::Resume));
    assert_eq!(resumed - paused, 700_000);
    // A's first timer (its work, 40 ms after the lock) reaches its code only after the
    // resume, and its clock then reads the resume's time, not the time the timer was due.
    let first_timer = h
        .sent
        .iter()
        .find(|m| m["pid"] == a && m["ev"]["kind"] == "timer")
        .unwrap_or_else(|| panic!("A's timer never fired"));
    let now_ms = first_timer["now_ms"].as_f64().unwrap_or(0.0);
    assert!(
        now_ms * 1000.0 >= resumed as f64,
        "the callback ran at {now_ms} ms, the resume was at {resumed} µs"
    );
    assert_eq!(t.attacks.len(), 1);
    assert!(t.attacks[0].label(&t.names).contains("as its 1st timer fires"));
}

#[test]
fn a_crash_as_a_reply_arrives_loses_the_reply_with_the_process() {
    // A's SET succeeds on the node, but A dies as the reply arrives: its code never
    // learns it holds the lock, and says nothing; the key frees itself at its TTL.
    let lab = lab_named("set-nx");
    let mut h = FakeHarness::new(Acquire::SetNxPx, Release::Lua);
    let attack = LabAttack {
        worker: 0,
        command: 1,
        op: LabAttackOp::Crash {
            restart_after_us: None,
        },
        at: StallPoint::Reply,
    };
    let t = lab::run_once(&lab, &mut h, 3, vec![attack]).unwrap_or_else(|e| panic!("{e}"));
    let (a, crash) = crash_of(&t, "A");
    let a_held = t
        .trace
        .iter()
        .any(|e| e.pid == a && matches!(e.kind, lockstep::sim::TraceKind::LockHeld { .. }));
    assert!(
        !a_held,
        "A's code never saw the SET's reply, so it never said it held the lock"
    );
    let b_held_after = t
        .trace
        .iter()
        .any(|e| e.pid != a && e.t_us > crash && matches!(e.kind, lockstep::sim::TraceKind::LockHeld { .. }));
    assert!(b_held_after, "A's key expired and another worker got the lock");
}

#[test]
fn a_write_in_flight_when_its_writer_crashes_is_judged_by_the_key_not_by_the_crash() {
    // A writes, then crashes before its extension (its 2nd command), its lock still valid
    // on the node: the write lands a few ms after the crash, under A's live key. That is
    // no stale write (the lab's watchdog trials reported one, from the crash alone).
    let lab = lab_named("watchdog");
    let mut h = FakeHarness::new(Acquire::SetNxPx, Release::Lua);
    h.write = true;
    let attack = LabAttack {
        worker: 0,
        command: 2,
        op: LabAttackOp::Crash {
            restart_after_us: None,
        },
        at: StallPoint::Command,
    };
    let t = lab::run_once(&lab, &mut h, 3, vec![attack]).unwrap_or_else(|e| panic!("{e}"));
    let (a, crash) = crash_of(&t, "A");
    let landed = t
        .trace
        .iter()
        .find_map(|e| match &e.kind {
            lockstep::sim::TraceKind::WriteAccepted {
                from, lock_lapsed, ..
            } if *from == a => Some((e.t_us, *lock_lapsed)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("A's write never landed"));
    assert!(
        landed.0 > crash,
        "the write landed at {} µs, the crash at {crash} µs",
        landed.0
    );
    assert!(!landed.1, "A's key still held its token when the write landed");
    assert!(
        !t.violations().iter().any(|v| v.kind == ViolationKind::StaleWrite),
        "{:?}",
        t.violations()
    );
}

fn ev(t_ms: u64, pid: u32, kind: lockstep::sim::TraceKind) -> lockstep::sim::TraceEvent {
    lockstep::sim::TraceEvent {
        t_us: t_ms * 1000,
        local_us: (t_ms * 1000) as i64,
        pid,
        kind,
    }
}

fn held(t_ms: u64, pid: u32) -> lockstep::sim::TraceEvent {
    let kind = lockstep::sim::TraceKind::LockHeld {
        lock: "lock:report".into(),
        token: format!("t{pid}-{t_ms}"),
        fence: None,
        valid_until_us: Some((t_ms + 500) * 1000),
    };
    ev(t_ms, pid, kind)
}

fn wrote(t_ms: u64, from: u32, token: i64, lock_lapsed: bool) -> lockstep::sim::TraceEvent {
    let kind = lockstep::sim::TraceKind::WriteAccepted {
        from,
        key: "report".into(),
        value: format!("from {from}"),
        token: Some(token),
        lost_update: false,
        lock_lapsed,
    };
    ev(t_ms, 3, kind)
}

fn stale_writes(lab: &Lab, trace: &[lockstep::sim::TraceEvent]) -> Vec<String> {
    let names: Vec<String> = ["A", "B", "C", "storage"].iter().map(|s| s.to_string()).collect();
    let (_, verdicts) = lab::grade(lab, trace, &names);
    verdicts
        .iter()
        .filter(|v| v.check == Check::NoStaleWrite)
        .flat_map(|v| v.violations.iter().map(|x| x.detail.clone()))
        .collect()
}

#[test]
fn behind_a_fencing_resource_only_a_lapsed_write_over_a_newer_holders_write_is_stale() {
    let fencing = lab_named("fencing");
    // A (pid 0) took the lock at 0 with fence 1, stalled past its TTL, and wrote at 600:
    // nobody wrote in between, so its fence was still the highest granted with a write.
    // The resource rightly took it; nothing newer was overwritten.
    let harmless = vec![held(0, 0), wrote(600, 0, 1, true)];
    assert_eq!(stale_writes(&fencing, &harmless), Vec::<String>::new());
    // Without fencing the same lapsed write is stale (the checker's own rule).
    let watchdog = lab_named("watchdog");
    assert_eq!(stale_writes(&watchdog, &harmless).len(), 1);
    // B (pid 1) took the lock after A's expired and wrote under it; A's lapsed write after
    // that, accepted (a clock as its fence, say), overwrites newer data.
    let overtaking = vec![
        held(0, 0),
        held(520, 1),
        wrote(560, 1, 600, false),
        wrote(745, 0, 3004, true),
    ];
    let found = stale_writes(&fencing, &overtaking);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("A wrote report=from 0 (token 3004)") && found[0].contains("over B's write at 560"),
        "{found:?}"
    );
    // B's write before A even took the lock is older data, not newer.
    let older = vec![
        held(0, 1),
        wrote(40, 1, 1, false),
        held(100, 0),
        wrote(700, 0, 2, true),
    ];
    assert_eq!(stale_writes(&fencing, &older), Vec::<String>::new());
}

fn charged(t_ms: u64, from: u32) -> lockstep::sim::TraceEvent {
    let kind = lockstep::sim::TraceKind::WriteAccepted {
        from,
        key: "charge".into(),
        value: "invoice-42".into(),
        token: None,
        lost_update: false,
        lock_lapsed: false,
    };
    ev(t_ms, 3, kind)
}

fn broken_checks(lab: &Lab, trace: &[lockstep::sim::TraceEvent]) -> Vec<(Check, String)> {
    let names: Vec<String> = ["A", "B", "C", "storage"].iter().map(|s| s.to_string()).collect();
    let (_, verdicts) = lab::grade(lab, trace, &names);
    verdicts
        .iter()
        .flat_map(|v| v.violations.iter().map(move |x| (v.check, x.detail.clone())))
        .filter(|(c, _)| *c != Check::AllDone)
        .collect()
}

#[test]
fn the_idempotency_lab_wants_the_charge_exactly_once() {
    let lab = lab_named("idempotency");
    // Once: both checks hold.
    assert_eq!(
        broken_checks(
            &lab,
            &[charged(10, 0), ev(9000, 3, lockstep::sim::TraceKind::Start)]
        ),
        vec![]
    );
    // Twice: a double charge, naming both workers.
    let twice = broken_checks(&lab, &[charged(10, 0), charged(25, 1)]);
    assert_eq!(twice.len(), 1, "{twice:?}");
    assert_eq!(twice[0].0, Check::NoDoubleEffect);
    // Never (everyone answered "done" but nobody charged): the work was lost.
    let never = broken_checks(&lab, &[ev(9000, 0, lockstep::sim::TraceKind::Start)]);
    assert_eq!(never.len(), 1, "{never:?}");
    assert_eq!(never[0].0, Check::EffectDone);
    assert!(never[0].1.contains("never accepted a charge"), "{never:?}");
}

#[test]
fn the_same_trial_seed_gives_the_same_json_twice() {
    let lab = lab_named("safe-release");
    let run = || {
        let mut h = FakeHarness::new(Acquire::SetNxPx, Release::Del);
        lab::run_trials(&lab, &mut h, 99, 50, |_| {})
            .unwrap_or_else(|e| panic!("{e}"))
            .json()
    };
    assert_eq!(run(), run());
}

#[test]
fn every_check_named_in_a_lab_exists() {
    for id in ["set-nx", "safe-release"] {
        let lab = lab_named(id);
        assert!(!lab.checks.is_empty());
        assert!(lab.checks.iter().all(|c| Check::from_name(c.name()) == Some(*c)));
    }
}

#[test]
fn a_lab_file_with_a_mistake_names_file_line_and_field() {
    let dir = format!("{}/labs/set-nx", env!("CARGO_MANIFEST_DIR"));
    let good = std::fs::read_to_string(format!("{dir}/lab.toml")).unwrap_or_default();
    let scen = std::fs::read_to_string(format!("{dir}/scenario.toml")).unwrap_or_default();
    let bad = good.replace("\"all_done\"", "\"all_finished\"");
    let e = Lab::parse(&LabSources {
        dir: "labs/set-nx",
        lab_toml: &bad,
        scenario_toml: &scen,
        driver: "",
        starter: "",
        starters: &[],
        solution: "",
    })
    .err()
    .unwrap_or_else(|| panic!("accepted a wrong check"));
    assert_eq!(e.file, "labs/set-nx/lab.toml");
    assert_eq!(e.field, "checks");
    let line = bad.lines().position(|l| l.starts_with("checks")).map(|i| i + 1);
    assert_eq!(e.line, line);
    assert!(e.message.contains("all_finished"), "{e}");
}

#[test]
fn a_replayed_run_draws_exactly_the_trace_the_live_run_recorded() {
    let lab = lab_named("safe-release");
    let mut h = FakeHarness::new(Acquire::SetNxPx, Release::Del);
    let live = lab::run_once(&lab, &mut h, 11, lab.run_attacks.clone()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!live.passed());
    let model = lockstep::timeline::build_lab(&lab, 11, &live.attacks, live.tape.clone())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(model.trace, live.trace);
    assert_eq!(model.outcome.violations, live.outcome.violations);
    // The picture shows the foreign delete's victim holding when A's DEL lands.
    assert!(model
        .trace
        .iter()
        .any(|e| matches!(e.kind, lockstep::sim::TraceKind::ForeignDelete { .. })));
}

#[test]
fn a_second_pause_while_catching_up_keeps_what_arrived_during_the_first() {
    // Two pauses back to back: the second strikes while the worker replays what it was
    // about to send when the first struck. Replies that arrived during the first pause
    // must still reach it (they were once dropped here, and the worker never finished).
    let lab = lab_named("set-nx");
    let mut h = FakeHarness::new(Acquire::SetNxPx, Release::LuaTwice);
    // A's 2nd and 3rd commands leave together (its release, twice). The first pause
    // strikes before the 3rd, after the 2nd left; the 2nd's reply arrives during it.
    // The second pause strikes before the same 3rd command, as it is replayed.
    let attacks = vec![
        LabAttack {
            worker: 0,
            command: 3,
            op: LabAttackOp::Pause { for_us: 100_000 },
            at: StallPoint::Command,
        },
        LabAttack {
            worker: 0,
            command: 3,
            op: LabAttackOp::Pause { for_us: 200_000 },
            at: StallPoint::Command,
        },
    ];
    let t = lab::run_once(&lab, &mut h, 5, attacks).unwrap_or_else(|e| panic!("{e}"));
    let pauses = t
        .trace
        .iter()
        .filter(|e| matches!(e.kind, lockstep::sim::TraceKind::Pause))
        .count();
    assert_eq!(pauses, 2);
    assert!(t.passed(), "{:?}", t.violations());
}
