//! Tests of `words`.

use super::*;
use crate::sim::fact::{every_message, every_reason, Reason};
use crate::sim::scenario::{builtin, BUILTINS};
use crate::timeline::build;

/// Words that the English texts use and the Norwegian ones never should.
const ENGLISH: &[&str] = &[
    " sends ",
    " receives ",
    " believes ",
    " holds ",
    " releases ",
    " fails ",
    " gives up",
    " reads ",
    " rejects ",
    " accepts ",
    " crashes",
    " restarts",
    " the run ends",
    "partitioned",
    " replicas ",
    " nodes",
    "validity",
    " expected ",
    "highest seen",
    "already used",
    "timer:",
    "is paused",
    "resumes",
    "is promoted",
    "no longer",
    "finishes",
    "skips",
    "(nothing)",
    "lock taken",
    "receiver down",
    "fencing token ",
    " from ",
    " although ",
    "believed",
    "wrote",
    " and ",
];

/// What a placeholder left unfilled (`{name}`) starts with.
const UNFILLED: char = '{';

#[test]
fn every_built_in_event_mark_and_band_reads_in_norwegian() {
    let mut events = 0;
    for name in BUILTINS.iter().map(|b| b.name) {
        let s = builtin(name).expect("built-in").expect("valid");
        let m = build(&s, 1).expect("runs");
        let mut lines: Vec<String> = m.trace.iter().map(|e| describe(&m, e, Lang::Nb)).collect();
        events += lines.len();
        lines.extend(m.marks.iter().map(|k| mark_text(&m, k, Lang::Nb)));
        lines.extend(m.bars.iter().map(|b| bar_label(b, Lang::Nb)));
        lines.extend(m.bands.iter().map(|b| band_sentence(b, Lang::Nb)));
        lines.extend(story(&m, m.trace.len() - 1, usize::MAX, Lang::Nb));
        for line in &lines {
            for w in ENGLISH {
                assert!(!line.contains(w), "{name}: {line:?} has English {w:?}");
            }
        }
    }
    assert!(events > 1000, "{events}");
}

#[test]
fn english_marks_are_the_models_own_labels() {
    let s = builtin("redlock-clock-jump").expect("built-in").expect("valid");
    let m = build(&s, 1).expect("runs");
    assert!(!m.marks.is_empty());
    for k in &m.marks {
        let e = &m.trace[k.index];
        assert_eq!(
            mark_label(&m.names, e, Lang::En).as_deref(),
            Some(k.label.as_str())
        );
    }
}

#[test]
fn reasons_in_norwegian() {
    let nb = |r: Reason| reason(&r, Lang::Nb);
    assert_eq!(nb(Reason::Nodes { ok: 2, all: 5 }), "2 av 5 noder");
    assert_eq!(
        nb(Reason::StaleToken {
            token: 33,
            highest: 34,
            equal_allowed: false
        }),
        "token 33 ≤ høyeste hittil 34"
    );
    assert_eq!(
        nb(Reason::WaitAcked { acked: 0, want: 1 }),
        "WAIT: 0 av 1 replikaer bekreftet"
    );
    assert_eq!(
        nb(Reason::NoValidity {
            validity_ms: -3,
            elapsed_ms: 12
        }),
        "gyldighet -3 ms ≤ 0 (brukt 12 ms)"
    );
    assert_eq!(
        nb(Reason::IdempotencyInProgress {
            key: "invoice-42".into(),
            until_ms: 306
        }),
        "idempotensnøkkelen invoice-42 er under arbeid (en annen klient har den) til 306 ms"
    );
    assert_eq!(
        nb(Reason::Expected {
            key: "balance".into(),
            seen: None,
            want: "100".into()
        }),
        "balance er (ingenting), ventet 100"
    );
    // Words someone else wrote (a lab driver's) stay as they are, in every language.
    assert_eq!(nb(Reason::Said("something new".into())), "something new");
    assert_eq!(reason(&Reason::Nodes { ok: 2, all: 5 }, Lang::En), "2 of 5 nodes");
    assert_eq!(nb(Reason::Said("x of y nodes".into())), "x of y nodes");
}

#[test]
fn every_reason_has_words_in_english_and_norwegian() {
    for r in every_reason() {
        let (en, nb) = (reason(&r, Lang::En), reason(&r, Lang::Nb));
        assert!(!en.is_empty() && !en.contains(UNFILLED), "{r:?}: {en:?}");
        assert!(!nb.is_empty() && !nb.contains(UNFILLED), "{r:?}: {nb:?}");
        match &r {
            // Redis's reply and a driver's words are not ours to translate.
            Reason::WaitReply { .. } | Reason::Said(_) => assert_eq!(nb, en),
            // The timeline says who holds the key; the CLI's words are shorter.
            Reason::IdempotencyInProgress { .. } => {
                assert_eq!(
                    en,
                    "idempotency key k-1 in progress (claimed by another client) until 201 ms"
                );
                assert_ne!(nb, en);
            }
            _ => {
                // The timeline's English is the CLI's.
                assert_eq!(en, r.to_string(), "{r:?}");
                assert_ne!(nb, en, "{r:?} has no Norwegian words");
                for w in ENGLISH {
                    assert!(!nb.contains(w), "{r:?}: {nb:?} has English {w:?}");
                }
            }
        }
    }
    // A value never seen says so in the reader's words (the CLI writes redis-cli's `(nil)`).
    let nil = Reason::Expected {
        key: "balance".into(),
        seen: None,
        want: "100".into(),
    };
    assert_eq!(nil.to_string(), "balance is (nil), expected 100");
    assert_eq!(reason(&nil, Lang::En), "balance is (nothing), expected 100");
}

#[test]
fn every_message_has_words_in_english_and_norwegian() {
    for m in &every_message() {
        let (en, nb) = (payload(m, Lang::En), payload(m, Lang::Nb));
        // The timeline's English is the CLI's.
        assert_eq!(en, m.to_string(), "{m:?}");
        match m {
            // Redis's words and the data read are the same in every language.
            Message::Redis(_) | Message::ReadReply { .. } => assert_eq!(nb, en),
            _ => assert_ne!(nb, en, "{m:?} has no Norwegian words"),
        }
    }
    let rejected = Message::Rejected(Reason::NoFencingToken);
    assert_eq!(payload(&rejected, Lang::Nb), "avvist: mangler fencing-token");
    let write = Message::Write {
        key: "balance".into(),
        value: "90".into(),
        token: Some(34),
    };
    assert_eq!(payload(&write, Lang::Nb), "skriv balance=90 token 34");
}

#[test]
fn every_timer_and_restart_has_words_in_english_and_norwegian() {
    for t in TimerName::ALL {
        let (en, nb) = (timer(t, Lang::En), timer(t, Lang::Nb));
        // The timeline's English is the CLI's.
        assert_eq!(en, t.to_string());
        assert!(!nb.is_empty() && !nb.starts_with("timer_"), "{t:?}: {nb}");
    }
    assert_eq!(timer(TimerName::ValidityEnds, Lang::Nb), "gyldigheten går ut");
    for c in Comeback::ALL {
        let (en, nb) = (comeback(c, Lang::En), comeback(c, Lang::Nb));
        assert_eq!(en, c.to_string(), "{c:?}");
        match c {
            // Redis's names for its AOF modes, and nothing, are the same in both.
            Comeback::Disk(Persistence::Everysec | Persistence::Always) | Comeback::AsItWas => {
                assert_eq!(nb, en)
            }
            _ => assert_ne!(nb, en, "{c:?} has no Norwegian words"),
        }
    }
}

#[test]
fn every_violation_kind_has_a_sentence_in_both_languages() {
    for kind in ViolationKind::ALL {
        let b = Band {
            lock: Some("lock:x".into()),
            from_us: 1_000,
            to_us: 2_000,
            kind,
            clients: vec!["C1".into(), "C2".into()],
            detail: "the detail".into(),
            fenced_off: None,
            effect: Some(crate::sim::checker::Effect {
                key: "charge".into(),
                value: "42".into(),
            }),
        };
        let (en, nb) = (band_sentence(&b, Lang::En), band_sentence(&b, Lang::Nb));
        assert!(en.contains("1–2 ms") && nb.contains("1–2 ms"), "{en} / {nb}");
        if crate::sim::Property::of_kind(kind).is_some() {
            // The checker's five have sentences of their own, in each language.
            assert_ne!(en, nb, "{kind:?}");
            for w in ENGLISH {
                assert!(!nb.contains(w), "{kind:?}: {nb:?} has English {w:?}");
            }
        } else {
            // A lab's kind: its name and the checker's detail (its lab page says it).
            assert!(
                en.starts_with(kind.as_str()) && en.ends_with("the detail"),
                "{en}"
            );
        }
    }
}

#[test]
fn every_kind_of_explored_fault_reads_in_norwegian() {
    let names: Vec<String> = ["C1", "C2", "A", "B"].map(String::from).to_vec();
    let units: Vec<Vec<(u64, Fault)>> = vec![
        vec![(100_000, Fault::Pause(0)), (2_100_000, Fault::Resume(0))],
        vec![(1_000_000, Fault::ClockJump(2, -3_500_000))],
        vec![(0, Fault::Drift(3, 20_000))],
        vec![(2_000_000, Fault::Crash(2)), (2_500_000, Fault::Restart(2))],
        vec![(50_000, Fault::Crash(1))],
        vec![
            (
                10_000,
                Fault::Latency {
                    a: 0,
                    b: vec![2],
                    latency: Latency::Fixed(40_000),
                },
            ),
            (
                90_000,
                Fault::Latency {
                    a: 0,
                    b: vec![2],
                    latency: Latency::Fixed(1_000),
                },
            ),
        ],
    ];
    for ops in &units {
        let nb = fault_unit(&names, ops, Lang::Nb).unwrap_or_else(|| panic!("no words for {ops:?}"));
        for w in ENGLISH
            .iter()
            .chain(&[" at ", " for ", "crash ", "pause C", "clock of", "latency "])
        {
            assert!(!nb.contains(w), "{nb:?} has English {w:?}");
        }
    }
    // The English words are the explorer's own.
    assert_eq!(
        fault_unit(&names, &units[0], Lang::En).as_deref(),
        Some("pause C1 at 100.000 ms for 2000.000 ms")
    );
    assert_eq!(
        fault_unit(&names, &units[1], Lang::Nb).as_deref(),
        Some("klokken til A hopper -3500 ms ved 1000.000 ms")
    );
    assert_eq!(fault_unit(&names, &[(0, Fault::Resume(0))], Lang::Nb), None);
}

#[test]
fn fencing_says_the_overlap_was_made_harmless() {
    let s = builtin("fencing").expect("built-in").expect("valid");
    let m = build(&s, 1).expect("runs");
    let overlap = m
        .bands
        .iter()
        .find(|b| b.kind == ViolationKind::Overlap)
        .expect("the two clients overlap");
    let en = band_sentence(overlap, Lang::En);
    assert!(en.contains("rejected"), "{en}");
    // The resource's view at the end lists the stale write as rejected, with why.
    let snap = crate::timeline::snapshot(&m, m.trace.len() - 1);
    let res = snap.resource.expect("a resource");
    let stale = res
        .last_writes
        .iter()
        .find(|w| w.client == "C1")
        .expect("C1's write");
    let why = stale.rejected.as_ref().expect("rejected");
    let en = reason(why, Lang::En);
    assert!(en.contains("33") && en.contains("34"), "{en}");
    assert!(reason(why, Lang::Nb).contains("høyeste hittil"));
    let s = builtin("unsafe-del").expect("built-in").expect("valid");
    let m = build(&s, 1).expect("runs");
    let b = &m.bands[0];
    let en = band_sentence(b, Lang::En);
    assert!(en.contains("both believed") && !en.contains("rejected"), "{en}");
    assert!(band_sentence(b, Lang::Nb).contains("trodde begge"));
}

/// The lock's key is a name (`lock`, `lock:jobs`): a Norwegian sentence says *låsen
/// lock*, so the key never stands where the word for a lock (lås) should be. Checked on
/// every built-in run's lock events, overlaps and release marks (#40 item 7).
#[test]
fn a_norwegian_sentence_names_the_lock_key_after_the_word_for_it() {
    let mut bad = Vec::new();
    let mut seen = 0;
    for name in BUILTINS.iter().map(|b| b.name) {
        let s = builtin(name).expect("built-in").expect("valid");
        let m = build(&s, 1).expect("runs");
        let mut lines: Vec<(String, String)> = Vec::new();
        for e in &m.trace {
            let lock = match &e.kind {
                TraceKind::LockHeld { lock, .. }
                | TraceKind::LockLost { lock, .. }
                | TraceKind::LockReleased { lock }
                | TraceKind::AcquireFailed { lock, .. }
                | TraceKind::GaveUp { lock }
                | TraceKind::Stalled { lock, .. }
                | TraceKind::LockKept { lock, .. }
                | TraceKind::HeldUnbacked { lock, .. } => lock.clone(),
                TraceKind::ForeignDelete { key, .. } => key.clone(),
                _ => continue,
            };
            lines.push((lock.clone(), describe(&m, e, Lang::Nb)));
            if let Some(l) =
                mark_label(&m.names, e, Lang::Nb).filter(|_| matches!(e.kind, TraceKind::LockReleased { .. }))
            {
                lines.push((lock, l));
            }
        }
        for b in &m.bands {
            if let Some(lock) = &b.lock {
                lines.push((lock.clone(), band_sentence(b, Lang::Nb)));
            }
        }
        for (lock, line) in lines {
            seen += 1;
            let named = |at: usize| ["låsen ", "nøkkelen "].iter().any(|w| line[..at].ends_with(w));
            if line.match_indices(lock.as_str()).any(|(at, _)| !named(at)) {
                bad.push(format!("{name}: {line:?} uses the key {lock:?} as a word"));
            }
        }
    }
    assert!(seen > 100, "{seen}");
    assert!(bad.is_empty(), "{} line(s):\n{}", bad.len(), bad.join("\n"));
}

/// A timer's event is a sentence with a verb, and the timer's name is Norwegian (not the
/// English `start` beside a Norwegian noun: "A tidsur: start", #40 item 7).
#[test]
fn a_timer_event_reads_as_a_norwegian_sentence() {
    for t in TimerName::ALL {
        let nb = timer(t, Lang::Nb);
        assert_ne!(nb, t.as_str(), "{t:?}: the Norwegian name is the English one");
    }
    let s = builtin("unsafe-del").expect("built-in").expect("valid");
    let m = build(&s, 1).expect("runs");
    let start = m
        .trace
        .iter()
        .find(|e| {
            matches!(
                e.kind,
                TraceKind::Timer {
                    name: TimerName::Start,
                    ..
                }
            )
        })
        .expect("a start timer");
    let who = m.name(start.pid).to_string();
    let at = format!("{:.1} ms", start.t_us as f64 / 1000.0);
    assert_eq!(
        describe(&m, start, Lang::Nb),
        format!("{at} · {who} vekkes av et tidsur: oppstart")
    );
    assert_eq!(
        describe(&m, start, Lang::En),
        format!("{at} · {who} timer: start")
    );
}
