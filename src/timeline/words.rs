//! The timeline in words, in the reader's language: the event log, the marks' labels,
//! the bars' labels and the violation sentences.
//!
//! The texts live in `content/ui.toml` (`ev_*`, `mk_*`, `why_*`, `timer_*`, `band_*`),
//! so every language has every one (a native test checks it). The simulator hands over
//! typed facts ([`Reason`], [`Message`], [`ViolationKind`]); this module is where they
//! become words, in each language.

use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Key, Texts};
use crate::sim::fact::{Comeback, Message, TimerName, ViolationKind};
use crate::sim::scenario::Persistence;
use crate::sim::trace::{TraceEvent, TraceKind, Weight};
use crate::sim::world::Latency;
use crate::sim::Fault;

use super::{Band, Bar, BarKind, Model, Story, StoryKind};

fn name(names: &[String], pid: u32) -> String {
    names
        .get(pid as usize)
        .cloned()
        .unwrap_or_else(|| format!("#{pid}"))
}

/// A process's name as the reader sees it: the name a scenario gives its resource when
/// it names none ("storage") in the reader's language; every other name as written.
pub fn process_name(name: &str, lang: Lang) -> String {
    // `sim::scenario`'s default for `[resource] name`.
    if name == "storage" {
        Texts::new(lang).t(k::NAME_STORAGE)
    } else {
        name.to_string()
    }
}

fn ms_signed(us: i64) -> String {
    format!("{:+}", us / 1000)
}

/// `s` cut to `max` characters, with an ellipsis if it was longer.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// One trace event in words, for the event log (screen readers read this):
/// "12.0 ms · C1 believes it holds lock:x (token c1-1)".
pub fn describe(m: &Model, e: &TraceEvent, lang: Lang) -> String {
    let what = mechanics(m, &e.kind, lang).unwrap_or_else(|| story_event(m, &e.kind, lang));
    let who = process_name(&name(&m.names, e.pid), lang);
    format!("{:.1} ms · {who} {what}", e.t_us as f64 / 1000.0)
}

/// The mechanics in words: messages, commands, timers, replication and faults (`None`
/// for the story's events).
fn mechanics(m: &Model, kind: &TraceKind, lang: Lang) -> Option<String> {
    let tx = Texts::new(lang);
    let n = |pid: u32| process_name(&name(&m.names, pid), lang);
    let f = |key: Key, args: &[(&str, String)]| tx.fmt(key, args);
    Some(match kind {
        TraceKind::Start => tx.t(k::EV_START),
        TraceKind::Send { to, what, .. } => f(k::EV_SEND, &[("what", payload(what, lang)), ("to", n(*to))]),
        TraceKind::Deliver { from, .. } => f(k::EV_DELIVER, &[("from", n(*from))]),
        TraceKind::Drop { from, to, reason, .. } => f(
            k::EV_DROP,
            &[
                ("from", n(*from)),
                ("to", n(*to)),
                ("reason", self::reason(reason, lang)),
            ],
        ),
        TraceKind::Command {
            from, args, reply, ..
        } => {
            let cmd: Vec<String> = args.iter().map(|a| clip(a, 40)).collect();
            f(
                k::EV_COMMAND,
                &[
                    ("cmd", cmd.join(" ")),
                    ("from", n(*from)),
                    ("reply", reply.clone()),
                ],
            )
        }
        TraceKind::Replicate { from, effects, .. } => {
            f(k::EV_REPLICATE, &[("n", effects.to_string()), ("from", n(*from))])
        }
        TraceKind::Timer { name, .. } => f(k::EV_TIMER, &[("name", timer(*name, lang))]),
        TraceKind::Pause => tx.t(k::EV_PAUSE),
        TraceKind::Resume => tx.t(k::EV_RESUME),
        TraceKind::Crash => tx.t(k::EV_CRASH),
        TraceKind::Restart { persistence, keys } => f(
            k::EV_RESTART,
            &[
                ("persistence", comeback(*persistence, lang)),
                ("n", keys.to_string()),
            ],
        ),
        TraceKind::ClockJump { delta_us } => f(k::EV_CLOCK_JUMP, &[("ms", ms_signed(*delta_us))]),
        TraceKind::Drift { rate_ppm } => f(
            k::EV_DRIFT,
            &[("pct", format!("{:+.2}", *rate_ppm as f64 / 10_000.0))],
        ),
        TraceKind::Partition { to, oneway } => f(
            if *oneway {
                k::EV_PARTITION_ONEWAY
            } else {
                k::EV_PARTITION
            },
            &[("to", n(*to))],
        ),
        TraceKind::Repair { to } => f(k::EV_REPAIR, &[("to", n(*to))]),
        TraceKind::Latency { to, latency } => {
            f(k::EV_LATENCY, &[("to", n(*to)), ("latency", latency.clone())])
        }
        TraceKind::Failover { group } => f(k::EV_FAILOVER, &[("group", group.clone())]),
        _ => return None,
    })
}

/// The story in words: locks taken, lost and released, reads and writes, work, code.
fn story_event(m: &Model, kind: &TraceKind, lang: Lang) -> String {
    let tx = Texts::new(lang);
    let n = |pid: u32| process_name(&name(&m.names, pid), lang);
    let f = |key: Key, args: &[(&str, String)]| tx.fmt(key, args);
    match kind {
        TraceKind::LockHeld {
            lock, token, fence, ..
        } => match fence {
            Some(fence) => f(
                k::EV_HELD_FENCE,
                &[
                    ("lock", lock.clone()),
                    ("token", token.clone()),
                    ("fence", fence.to_string()),
                ],
            ),
            None => f(k::EV_HELD, &[("lock", lock.clone()), ("token", token.clone())]),
        },
        TraceKind::LockLost { lock, reason } => f(
            k::EV_LOST,
            &[("lock", lock.clone()), ("reason", self::reason(reason, lang))],
        ),
        TraceKind::LockReleased { lock } => f(k::EV_RELEASED, &[("lock", lock.clone())]),
        TraceKind::AcquireFailed { lock, reason } => f(
            k::EV_ACQUIRE_FAILED,
            &[("lock", lock.clone()), ("reason", self::reason(reason, lang))],
        ),
        TraceKind::GaveUp { lock } => f(k::EV_GAVE_UP, &[("lock", lock.clone())]),
        TraceKind::Stalled {
            lock,
            votes_for,
            votes_against,
        } => f(
            k::EV_STALLED,
            &[
                ("lock", lock.clone()),
                ("yes", votes_for.to_string()),
                ("no", votes_against.to_string()),
            ],
        ),
        TraceKind::Read { key, value, .. } => f(
            k::EV_READ,
            &[
                ("key", key.clone()),
                ("value", value.clone().unwrap_or_else(|| tx.t(k::EV_NOTHING))),
            ],
        ),
        TraceKind::WorkSkipped { reason } => f(k::EV_WORK_SKIPPED, &[("reason", self::reason(reason, lang))]),
        TraceKind::WorkDone => tx.t(k::EV_WORK_DONE),
        TraceKind::Note { text, coded } => {
            let text = coded
                .as_ref()
                .and_then(|c| reason::coded(c, lang))
                .unwrap_or_else(|| text.clone());
            f(k::EV_NOTE, &[("text", clip(&text, 120))])
        }
        TraceKind::CodeError {
            message, line, coded, ..
        } => {
            let message = coded
                .as_ref()
                .and_then(|c| reason::coded(c, lang))
                .unwrap_or_else(|| message.clone());
            match line {
                Some(l) => f(
                    k::EV_CODE_ERROR_AT,
                    &[("message", clip(&message, 160)), ("line", l.to_string())],
                ),
                None => f(k::EV_CODE_ERROR, &[("message", clip(&message, 160))]),
            }
        }
        TraceKind::LockKept { lock, .. } => f(k::EV_LOCK_KEPT, &[("lock", lock.clone())]),
        TraceKind::HeldUnbacked { lock, on, of, .. } => f(
            k::EV_HELD_UNBACKED,
            &[
                ("lock", lock.clone()),
                ("on", on.to_string()),
                ("of", of.to_string()),
            ],
        ),
        TraceKind::ForeignDelete { key, owner, .. } => f(
            k::EV_FOREIGN_DELETE,
            &[("key", key.clone()), ("owner", n(*owner))],
        ),
        TraceKind::WriteAccepted {
            from,
            key,
            value,
            token,
            lock_lapsed,
            ..
        } => {
            let mut s = f(
                k::EV_WRITE_ACCEPTED,
                &[("key", key.clone()), ("value", value.clone()), ("from", n(*from))],
            );
            if let Some(t) = token {
                s.push_str(&f(k::EV_WITH_TOKEN, &[("token", t.to_string())]));
            }
            if *lock_lapsed {
                s.push_str(&tx.t(k::EV_ALTHOUGH_LAPSED));
            }
            s
        }
        TraceKind::WriteRejected {
            from, key, reason, ..
        } => f(
            k::EV_WRITE_REJECTED,
            &[
                ("key", key.clone()),
                ("from", n(*from)),
                ("reason", self::reason(reason, lang)),
            ],
        ),
        TraceKind::End => tx.t(k::EV_END),
        _ => String::new(),
    }
}

/// Does the "What happened" list tell this event? Locks taken, lost and released,
/// reads and writes, skipped work, crashes and faults: what a learner needs to follow
/// the story ([`crate::sim::Weight`]). Messages, commands, timers and replication are the
/// mechanics under it.
pub fn is_key_event(k: &TraceKind) -> bool {
    matches!(k.weight(), Weight::Story | Weight::Turn)
}

/// A [`Story`] in words: "10003.0 ms · A's key lock expires on redis".
pub fn story_text(m: &Model, s: &Story, lang: Lang) -> String {
    let tx = Texts::new(lang);
    let n = |pid: u32| name(&m.names, pid);
    let what = match &s.kind {
        StoryKind::Expired {
            node,
            key,
            owner: Some(owner),
            ..
        } => tx.fmt(
            k::STORY_EXPIRED,
            &[("owner", n(*owner)), ("key", key.clone()), ("node", n(*node))],
        ),
        StoryKind::Expired {
            node,
            key,
            value,
            owner: None,
        } => tx.fmt(
            k::STORY_EXPIRED_ANON,
            &[
                ("key", key.clone()),
                ("value", clip(value, 12)),
                ("node", n(*node)),
            ],
        ),
        StoryKind::Removed {
            node,
            key,
            owner,
            by,
            cmd,
        } => tx.fmt(
            k::STORY_REMOVED,
            &[
                ("by", n(*by)),
                ("cmd", cmd.clone()),
                ("owner", n(*owner)),
                ("key", key.clone()),
                ("node", n(*node)),
            ],
        ),
    };
    format!("{:.1} ms · {what}", s.t_us as f64 / 1000.0)
}

/// The story of the run up to the trace index `cursor`, newest last, at most `max`
/// lines: its key events ([`is_key_event`]) and its [`Story`]s, in words.
pub fn story(m: &Model, cursor: usize, max: usize, lang: Lang) -> Vec<String> {
    // (trace index, 0 for the event itself / 1 for a story after it, position)
    let mut picked: Vec<(usize, u8, usize)> = Vec::new();
    let upto = m.trace.get(..=cursor).unwrap_or(&m.trace);
    let mut events = upto
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, e)| is_key_event(&e.kind))
        .take(max);
    let now = upto.last().map_or(0, |e| e.t_us);
    let mut stories = m
        .stories
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, s)| s.after <= cursor && s.t_us <= now)
        .take(max);
    picked.extend(events.by_ref().map(|(i, _)| (i, 0, i)));
    picked.extend(stories.by_ref().map(|(j, s)| (s.after, 1, j)));
    crate::sorting::sort(&mut picked);
    let skip = picked.len().saturating_sub(max);
    picked
        .into_iter()
        .skip(skip)
        .filter_map(|(i, kind, j)| {
            if kind == 0 {
                m.trace.get(i).map(|e| describe(m, e, lang))
            } else {
                m.stories.get(j).map(|s| story_text(m, s, lang))
            }
        })
        .collect()
}

/// The short label of a mark on the timeline (its tooltip and accessible name), for the
/// events that make marks; `None` for the others.
pub fn mark_label(names: &[String], e: &TraceEvent, lang: Lang) -> Option<String> {
    let tx = Texts::new(lang);
    let n = |pid: u32| name(names, pid);
    let f = |key: Key, args: &[(&str, String)]| tx.fmt(key, args);
    Some(match &e.kind {
        TraceKind::LockLost { reason, .. } | TraceKind::AcquireFailed { reason, .. } => {
            self::reason(reason, lang)
        }
        TraceKind::LockReleased { lock } => f(k::MK_RELEASED, &[("lock", lock.clone())]),
        TraceKind::Crash => tx.t(k::MK_CRASH),
        TraceKind::Restart { persistence, keys } => f(
            k::MK_RESTART,
            &[
                ("persistence", comeback(*persistence, lang)),
                ("n", keys.to_string()),
            ],
        ),
        TraceKind::ClockJump { delta_us } => f(k::MK_CLOCK_JUMP, &[("ms", ms_signed(*delta_us))]),
        TraceKind::Drift { rate_ppm } => f(
            k::MK_DRIFT,
            &[("pct", format!("{:+.1}", *rate_ppm as f64 / 10_000.0))],
        ),
        TraceKind::Partition { to, oneway } => f(
            k::MK_PARTITION,
            &[
                ("arrow", if *oneway { "→" } else { "↔" }.to_string()),
                ("to", n(*to)),
            ],
        ),
        TraceKind::Repair { to } => f(k::MK_REPAIR, &[("to", n(*to))]),
        TraceKind::Failover { group } => f(k::MK_FAILOVER, &[("group", group.clone())]),
        TraceKind::WriteAccepted { from, key, token, .. } => {
            let mut s = f(k::MK_WRITE_ACCEPTED, &[("key", key.clone()), ("from", n(*from))]);
            if let Some(t) = token {
                s.push_str(&f(k::EV_WITH_TOKEN, &[("token", t.to_string())]));
            }
            s
        }
        TraceKind::WriteRejected {
            from,
            key,
            token,
            highest_seen,
            ..
        } => {
            let mut s = f(k::MK_WRITE_REJECTED, &[("key", key.clone()), ("from", n(*from))]);
            match (token, highest_seen) {
                (Some(t), Some(h)) => s.push_str(&format!(": {t} ≤ {h}")),
                (Some(t), None) => s.push_str(&f(k::EV_WITH_TOKEN, &[("token", t.to_string())])),
                _ => {}
            }
            s
        }
        _ => return None,
    })
}

/// A mark's label in `lang` (the model keeps the English one).
pub fn mark_text(m: &Model, k: &super::Mark, lang: Lang) -> String {
    if lang == Lang::En {
        return k.label.clone();
    }
    m.trace
        .get(k.index)
        .and_then(|e| mark_label(&m.names, e, lang))
        .unwrap_or_else(|| k.label.clone())
}

/// A bar's label in `lang`: tokens and values as they are, "paused" and "down" in words.
pub fn bar_label(b: &Bar, lang: Lang) -> String {
    match b.kind {
        BarKind::Paused => Texts::new(lang).t(k::MK_PAUSED),
        BarKind::Down => Texts::new(lang).t(k::MK_DOWN),
        BarKind::Holding | BarKind::Key => b.label.clone(),
    }
}

/// What a message carries (a command, a reply, a replication batch, a resource request),
/// in `lang`: Redis's own words (commands, replies) and the data written as they are.
pub fn payload(what: &Message, lang: Lang) -> String {
    let tx = Texts::new(lang);
    match what {
        Message::Redis(s) => s.clone(),
        Message::Replicate { offset, writes } => tx.fmt(
            k::MSG_REPLICATE,
            &[("offset", offset.to_string()), ("n", writes.to_string())],
        ),
        Message::Ack { offset } => tx.fmt(k::MSG_ACK, &[("offset", offset.to_string())]),
        Message::Read { key } => tx.fmt(k::MSG_READ, &[("key", key.clone())]),
        Message::Write { .. } | Message::Claim { .. } => {
            tx.fmt(k::MSG_WRITE, &[("what", what.write_data().unwrap_or_default())])
        }
        Message::ReadReply { value, version } => {
            format!("{} (v{version})", value.as_deref().unwrap_or("(nil)"))
        }
        Message::Accepted => tx.t(k::MSG_ACCEPTED),
        Message::Rejected(r) => tx.fmt(k::MSG_REJECTED, &[("reason", reason(r, lang))]),
    }
}

/// A client timer's name ("retry", "validity ends"), in `lang`.
pub fn timer(name: TimerName, lang: Lang) -> String {
    Texts::new(lang).t(match name {
        TimerName::Start => k::TIMER_START,
        TimerName::Retry => k::TIMER_RETRY,
        TimerName::RequestTimeout => k::TIMER_REQUEST_TIMEOUT,
        TimerName::ValidityEnds => k::TIMER_VALIDITY_ENDS,
        TimerName::Renew => k::TIMER_RENEW,
        TimerName::WorkStepDone => k::TIMER_WORK_STEP_DONE,
        TimerName::LibraryRetry => k::TIMER_LIBRARY_RETRY,
        TimerName::LibraryExtension => k::TIMER_LIBRARY_EXTENSION,
    })
}

/// What a restarted process came back with, in `lang`: the AOF modes by their Redis
/// names.
pub fn comeback(c: Comeback, lang: Lang) -> String {
    let tx = Texts::new(lang);
    match c {
        Comeback::Disk(Persistence::None) => tx.t(k::WHY_NO_PERSISTENCE),
        Comeback::Disk(p @ (Persistence::Everysec | Persistence::Always)) => p.label().to_string(),
        Comeback::Resync => tx.t(k::RESTART_RESYNC),
        Comeback::FreshProgram => tx.t(k::RESTART_FRESH),
        Comeback::AsItWas => String::new(),
    }
}

/// One random fault of "Can this break?" (`sim::explore`'s units: a pause and its end,
/// a clock jump, a drift, a node's crash and restart, a client's crash, a slow link and
/// its end), in `lang`; `None` for a shape it does not know (the caller keeps the
/// explorer's English label).
pub fn fault_unit(names: &[String], ops: &[(u64, Fault)], lang: Lang) -> Option<String> {
    let tx = Texts::new(lang);
    let n = |pid: usize| name(names, pid as u32);
    let ms = |us: u64| crate::sim::trace::fmt_ms(us);
    Some(match ops {
        [(at, Fault::Pause(c)), (end, Fault::Resume(_))] => tx.fmt(
            k::FU_PAUSE,
            &[
                ("who", n(*c)),
                ("at", ms(*at)),
                ("ms", ms(end.saturating_sub(*at))),
            ],
        ),
        [(at, Fault::ClockJump(p, d))] => tx.fmt(
            k::FU_JUMP,
            &[
                ("who", n(*p)),
                ("at", ms(*at)),
                ("ms", format!("{:+}", *d as f64 / 1000.0)),
            ],
        ),
        [(at, Fault::Drift(p, ppm))] => tx.fmt(
            k::FU_DRIFT,
            &[
                ("who", n(*p)),
                ("at", ms(*at)),
                ("pct", format!("{:+}", *ppm as f64 / 10_000.0)),
            ],
        ),
        [(at, Fault::Crash(p)), (end, Fault::Restart(_))] => tx.fmt(
            k::FU_CRASH_RESTART,
            &[
                ("who", n(*p)),
                ("at", ms(*at)),
                ("ms", ms(end.saturating_sub(*at))),
            ],
        ),
        [(at, Fault::Crash(p))] => tx.fmt(k::FU_CRASH, &[("who", n(*p)), ("at", ms(*at))]),
        [(
            at,
            Fault::Latency {
                a,
                b,
                latency: Latency::Fixed(lat),
            },
        ), (end, Fault::Latency { .. })] => tx.fmt(
            k::FU_LATENCY,
            &[
                ("a", n(*a)),
                ("b", b.iter().map(|p| n(*p)).collect::<Vec<_>>().join(", ")),
                ("lat", ms(*lat)),
                ("at", ms(*at)),
                ("ms", ms(end.saturating_sub(*at))),
            ],
        ),
        _ => return None,
    })
}

/// A violation in words: "C1 and C2 both believed they held lock:invoice:42
/// (12300–20500 ms)." When the resource turned the late client's write away, the
/// sentence says so: the overlap happened, and fencing made it harmless.
pub fn band_sentence(b: &Band, lang: Lang) -> String {
    let tx = Texts::new(lang);
    let who = match b.clients.as_slice() {
        [] => tx.t(k::BAND_CLIENTS),
        [one] => one.clone(),
        [init @ .., last] => tx.fmt(k::BAND_AND, &[("a", init.join(", ")), ("b", last.clone())]),
    };
    let span = format!(
        "{:.0}–{:.0} ms",
        b.from_us as f64 / 1000.0,
        b.to_us as f64 / 1000.0
    );
    let lock = match &b.lock {
        Some(lock) => tx.fmt(k::BAND_LOCK_NAMED, &[("lock", lock.clone())]),
        None => tx.t(k::BAND_THE_LOCK),
    };
    let args = [("who", who), ("span", span), ("lock", lock)];
    match b.kind {
        ViolationKind::Overlap => {
            let key = if b.clients.len() > 2 {
                k::BAND_OVERLAP_ALL
            } else {
                k::BAND_OVERLAP
            };
            let mut s = tx.fmt(key, &args);
            if let Some(rejected) = &b.fenced_off {
                s.push(' ');
                s.push_str(&tx.fmt(k::BAND_FENCED, &[("who", rejected.clone())]));
            }
            s
        }
        ViolationKind::StaleWrite => tx.fmt(k::BAND_STALE_WRITE, &args),
        ViolationKind::LostUpdate => tx.fmt(k::BAND_LOST_UPDATE, &args),
        ViolationKind::DuplicateToken => tx.fmt(k::BAND_DUPLICATE_TOKEN, &args),
        ViolationKind::DoubleEffect => match &b.effect {
            Some(e) => {
                let [who, span, _] = args;
                tx.fmt(
                    k::BAND_DOUBLE_EFFECT,
                    &[who, span, ("key", e.key.clone()), ("value", e.value.clone())],
                )
            }
            None => format!("double_effect: {} ({}). {}", args[0].1, args[1].1, b.detail),
        },
        // The labs' own kinds: their lab page says them (`lab_v_*`); here the checker's
        // detail.
        ViolationKind::DuplicateLockToken
        | ViolationKind::NotDone
        | ViolationKind::LockStuck
        | ViolationKind::ForeignDelete
        | ViolationKind::LockKept
        | ViolationKind::EffectMissing => {
            format!("{}: {} ({}). {}", b.kind, args[0].1, args[1].1, b.detail)
        }
    }
}

/// The client of an overlap whose write the resource rejected, if every write of the
/// band's clients from the band's start on was rejected and at least one was. Worked
/// out once, when the model is built ([`Band::fenced_off`]).
pub(super) fn fenced_off(trace: &[TraceEvent], names: &[String], b: &Band) -> Option<String> {
    let mut rejected = None;
    for e in trace.iter().filter(|e| e.t_us >= b.from_us) {
        match &e.kind {
            TraceKind::WriteRejected { from, .. } if b.clients.contains(&name(names, *from)) => {
                rejected.get_or_insert_with(|| name(names, *from));
            }
            TraceKind::WriteAccepted {
                from,
                lock_lapsed: true,
                ..
            } if b.clients.contains(&name(names, *from)) => return None,
            _ => {}
        }
    }
    rejected
}

/// A quorum lock attempt's tally in words (`3/5 OK · elapsed 5 ms · validity 9 893 ms →
/// held`), and its short form for the picture (`3/5 ✓`).
pub fn tally(t: &super::tally::Tally, lang: Lang) -> (String, String) {
    let tx = Texts::new(lang);
    let ok = t.ok.map_or_else(|| "?".to_string(), |n| n.to_string());
    let of = t.of.to_string();
    let ms = |v: f64| format!("{v:.0}");
    let long = match (t.held, t.ok, t.validity_ms) {
        (true, _, _) => tx.fmt(
            k::TALLY_HELD,
            &[
                ("ok", ok.clone()),
                ("of", of.clone()),
                ("elapsed", t.elapsed_ms.map_or_else(|| "?".into(), ms)),
                (
                    "validity",
                    t.validity_ms.map_or_else(|| "?".into(), |v| v.to_string()),
                ),
            ],
        ),
        (false, _, Some(v)) => tx.fmt(
            k::TALLY_LATE,
            &[
                ("elapsed", t.elapsed_ms.map_or_else(|| "?".into(), ms)),
                ("validity", v.to_string()),
            ],
        ),
        (false, _, None) => tx.fmt(k::TALLY_NODES, &[("ok", ok.clone()), ("of", of.clone())]),
    };
    (long, tally_short(t, lang))
}

/// A tally as the picture writes it over the client's lane: `3/5 ✓`, `2/5 ✗`.
pub fn tally_short(t: &super::tally::Tally, lang: Lang) -> String {
    let tx = Texts::new(lang);
    let ok = t.ok.map_or_else(|| "?".to_string(), |n| n.to_string());
    let of = t.of.to_string();
    match (t.held, t.ok) {
        (true, _) => tx.fmt(k::TALLY_SHORT_HELD, &[("ok", ok), ("of", of)]),
        (false, Some(_)) => tx.fmt(k::TALLY_SHORT_FAILED, &[("ok", ok), ("of", of)]),
        (false, None) => tx.t(k::TALLY_SHORT_LATE),
    }
}

/// A fault state on a lane, short enough to sit on it: "cut off from A, B, C", "slow
/// link to redis: 40ms", "clock +500 ms, runs +2 %".
pub fn fault_state(m: &Model, s: &super::states::FaultState, lang: Lang) -> String {
    use super::states::FaultState;
    let tx = Texts::new(lang);
    let n = |pid: u32| process_name(&name(&m.names, pid), lang);
    match s {
        FaultState::CutOff { from } => tx.fmt(
            k::STATE_CUT_OFF,
            &[("peers", from.iter().map(|p| n(*p)).collect::<Vec<_>>().join(", "))],
        ),
        FaultState::Slowed { to, latency } => {
            tx.fmt(k::STATE_SLOWED, &[("to", n(*to)), ("latency", latency.clone())])
        }
        FaultState::Clock { offset_us, rate_ppm } => {
            let mut parts = Vec::new();
            if *offset_us != 0 {
                parts.push(tx.fmt(
                    k::STATE_CLOCK_OFFSET,
                    &[("offset", format!("{:+}", *offset_us as f64 / 1000.0))],
                ));
            }
            if *rate_ppm != 0 {
                parts.push(tx.fmt(
                    k::STATE_CLOCK_RATE,
                    &[("rate", format!("{:+}", *rate_ppm as f64 / 10_000.0))],
                ));
            }
            parts.join(", ")
        }
    }
}

/// A key's story as a tag on the node's lane: "A's DEL removes B's key".
pub fn story_tag(m: &Model, s: &StoryKind, lang: Lang) -> String {
    let tx = Texts::new(lang);
    let n = |pid: u32| process_name(&name(&m.names, pid), lang);
    match s {
        StoryKind::Expired {
            owner: Some(owner), ..
        } => tx.fmt(k::TAG_EXPIRED, &[("owner", n(*owner))]),
        StoryKind::Expired { owner: None, .. } => tx.t(k::TAG_EXPIRED_ANON),
        StoryKind::Removed { owner, by, cmd, .. } => tx.fmt(
            k::TAG_REMOVED,
            &[("by", n(*by)), ("cmd", cmd.clone()), ("owner", n(*owner))],
        ),
    }
}

/// A write the resource answered, as a tag on its lane: "C2 token 34 ✓", "C1 token 33
/// ✗ (34 seen)". None for any other event.
pub fn write_tag(m: &Model, e: &TraceEvent, lang: Lang) -> Option<String> {
    let tx = Texts::new(lang);
    let n = |pid: u32| process_name(&name(&m.names, pid), lang);
    Some(match &e.kind {
        TraceKind::WriteAccepted {
            from, token: Some(t), ..
        } => tx.fmt(k::TAG_WRITE_OK, &[("who", n(*from)), ("token", t.to_string())]),
        TraceKind::WriteAccepted {
            from, token: None, ..
        } => tx.fmt(k::TAG_WRITE_OK_PLAIN, &[("who", n(*from))]),
        TraceKind::WriteRejected {
            from,
            token,
            highest_seen,
            ..
        } => tx.fmt(
            k::TAG_WRITE_REFUSED,
            &[
                ("who", n(*from)),
                ("token", token.map_or_else(|| tx.t(k::SC_NONE), |t| t.to_string())),
                (
                    "highest",
                    highest_seen.map_or_else(|| tx.t(k::SC_NONE), |h| h.to_string()),
                ),
            ],
        ),
        _ => return None,
    })
}

/// A lock extension and the node's answer, as a tag on the client's lane: "↻ redis: 1".
pub fn extension_tag(m: &Model, x: &super::Extension, lang: Lang) -> (String, String) {
    let tx = Texts::new(lang);
    let node = process_name(&name(&m.names, x.node), lang);
    let key = if x.ok {
        k::TAG_EXTENDED
    } else {
        k::TAG_NOT_EXTENDED
    };
    let short = x.reply.strip_prefix("(integer) ").unwrap_or(&x.reply).to_string();
    (
        tx.fmt(key, &[("node", node.clone()), ("reply", short)]),
        tx.fmt(
            k::EXT_TITLE,
            &[
                ("who", process_name(&name(&m.names, x.client), lang)),
                ("node", node),
                ("reply", x.reply.clone()),
                ("t", format!("{:.1}", x.t_us as f64 / 1000.0)),
            ],
        ),
    )
}

/// A quorum attempt's lock as a bracket: its short label and its whole sentence
/// ("TTL 10000 ms = elapsed 5 ms + validity 9893 ms + drift allowance 102 ms").
pub fn validity_bracket(t: &super::tally::Tally, lang: Lang) -> Option<(String, String, String)> {
    let tx = Texts::new(lang);
    let (ttl, elapsed, validity) = (t.ttl_ms?, t.elapsed_ms?, t.validity_ms?);
    if !t.held {
        return None;
    }
    let drift = (ttl - elapsed - validity as f64).max(0.0);
    Some((
        tx.fmt(k::BRACKET_VALIDITY, &[("v", validity.to_string())]),
        tx.fmt(k::BRACKET_DRIFT, &[("d", format!("{drift:.0}"))]),
        tx.fmt(
            k::BRACKET_TITLE,
            &[
                ("ttl", format!("{ttl:.0}")),
                ("e", format!("{elapsed:.0}")),
                ("v", validity.to_string()),
                ("d", format!("{drift:.0}")),
            ],
        ),
    ))
}

pub mod lab;
mod reason;

pub use reason::{coded, reason};

#[cfg(test)]
mod tests;
