//! Captions: short sentences a scenario file gives for the key moments of its run,
//! shown under the picture while the cursor is at or after the moment (until the next
//! one's) and announced to screen readers.
//!
//! A moment is named by what happens, not by a time, so a caption stays on its moment
//! when the seed, a knob or a learner's fork moves it: "C1's 2nd `lock_held`", "the
//! first `command` DEL from A", "the first `violation`". A moment that does not happen
//! in a run (a fork removed it) has no caption there.
//!
//! ```toml
//! [[captions]]
//! at = "lock_held"        # what happens (see `CaptionEvent`)
//! process = "B"           # whose event; for `command`, the sender or the node; for
//!                         # `violation`, a client it names (optional: anyone's)
//! command = "DEL"         # `command` only: the command's name
//! nth = 1                 # the nth such moment (default 1)
//! en = "B takes the free lock."
//! nb = "B tar den ledige låsen."
//! ```

use super::checker::Violation;
use super::trace::{TraceEvent, TraceKind};
use serde::{Deserialize, Serialize};

/// The most captions one scenario may carry.
pub const MAX_CAPTIONS: usize = 24;
/// The longest caption, in characters (a caption is a line, not a paragraph).
pub const MAX_CAPTION_CHARS: usize = 240;

/// The kinds of moment a caption can be tied to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptionEvent {
    Start,
    LockHeld,
    LockLost,
    LockReleased,
    AcquireFailed,
    GaveUp,
    Crash,
    Restart,
    Pause,
    Resume,
    Partition,
    Repair,
    ClockJump,
    Drift,
    Failover,
    WriteAccepted,
    WriteRejected,
    WorkDone,
    /// A library attempt that can never settle (an even split of the votes).
    Stalled,
    /// A node ran a command (`command` names it).
    Command,
    /// The checker found a violation starting here.
    Violation,
}

/// One `[[captions]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptionSpec {
    pub at: CaptionEvent,
    #[serde(default)]
    pub process: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default = "first")]
    pub nth: u32,
    pub en: String,
    /// The Norwegian text; a scenario without it shows the English one.
    #[serde(default)]
    pub nb: String,
}

fn first() -> u32 {
    1
}

impl CaptionSpec {
    /// The text in the language with this code (`en` when there is none).
    pub fn text(&self, code: &str) -> &str {
        if code == "nb" && !self.nb.trim().is_empty() {
            &self.nb
        } else {
            &self.en
        }
    }
}

/// A caption placed on its run: it applies from trace event `index` (true time `t_us`).
#[derive(Clone, Debug, PartialEq)]
pub struct Caption {
    pub index: usize,
    pub t_us: u64,
    /// Which of the scenario's captions (its place in `captions`).
    pub spec: usize,
}

/// Checks the captions against the scenario's process names; an error is
/// `(field, message)`, as the scenario's other checks give it.
pub fn validate(captions: &[CaptionSpec], names: &[&str]) -> Result<(), (String, String)> {
    if captions.len() > MAX_CAPTIONS {
        return Err(("captions".into(), format!("at most {MAX_CAPTIONS} captions")));
    }
    for (i, c) in captions.iter().enumerate() {
        let field = |f: &str| format!("captions[{i}].{f}");
        if let Some(p) = &c.process {
            if !names.contains(&p.as_str()) {
                return Err((
                    field("process"),
                    format!("`{p}` is not a process of this scenario"),
                ));
            }
        }
        match (&c.command, c.at) {
            (Some(cmd), CaptionEvent::Command) if cmd.trim().is_empty() => {
                return Err((field("command"), "name the command, e.g. \"DEL\"".into()));
            }
            (None, CaptionEvent::Command) => {
                return Err((
                    field("command"),
                    "`at = \"command\"` needs the command's name".into(),
                ));
            }
            (Some(_), at) if at != CaptionEvent::Command => {
                return Err((
                    field("command"),
                    "only a caption `at = \"command\"` names a command".into(),
                ));
            }
            _ => {}
        }
        if c.nth == 0 {
            return Err((field("nth"), "counts from 1".into()));
        }
        for (lang, text) in [("en", &c.en), ("nb", &c.nb)] {
            if lang == "en" && text.trim().is_empty() {
                return Err((field("en"), "a caption needs its English text".into()));
            }
            let n = text.chars().count();
            if n > MAX_CAPTION_CHARS {
                return Err((
                    field(lang),
                    format!("{n} characters; at most {MAX_CAPTION_CHARS}"),
                ));
            }
        }
    }
    Ok(())
}

/// Where each caption's moment is in this run: sorted by position, one per caption
/// whose moment happens (the others are left out).
pub fn place(
    captions: &[CaptionSpec],
    trace: &[TraceEvent],
    names: &[String],
    violations: &[Violation],
) -> Vec<Caption> {
    let pid_of = |name: &str| names.iter().position(|n| n == name);
    let mut out: Vec<Caption> = captions
        .iter()
        .enumerate()
        .filter_map(|(spec, c)| {
            let who = c.process.as_deref().map(pid_of);
            if who == Some(None) {
                return None;
            }
            let who = who.flatten().and_then(|p| u32::try_from(p).ok());
            let nth = usize::try_from(c.nth.saturating_sub(1)).unwrap_or(usize::MAX);
            if c.at == CaptionEvent::Violation {
                let name = c.process.as_deref();
                let mut starts: Vec<f64> = violations
                    .iter()
                    .filter(|v| name.is_none_or(|n| v.clients.iter().any(|x| x == n)))
                    .map(|v| v.from_ms)
                    .collect();
                crate::sorting::sort_by(&mut starts, f64::total_cmp);
                let from_us = (*starts.get(nth)? * 1000.0).round() as u64;
                let index = trace.iter().position(|e| e.t_us >= from_us)?;
                return Some(Caption {
                    index,
                    t_us: from_us,
                    spec,
                });
            }
            trace
                .iter()
                .enumerate()
                .filter(|(_, e)| matches(c, e, who))
                .nth(nth)
                .map(|(index, e)| Caption {
                    index,
                    t_us: e.t_us,
                    spec,
                })
        })
        .collect();
    crate::sorting::sort_by_key(&mut out, |c| (c.index, c.spec));
    out
}

/// Whether `e` is a moment of kind `c.at` of process `who`, when given: the process
/// the event happened at, or, for a command or a write, the client that sent it.
fn matches(c: &CaptionSpec, e: &TraceEvent, who: Option<u32>) -> bool {
    let (kind, sender) = match &e.kind {
        TraceKind::Command { from, args, .. } => {
            let named = c
                .command
                .as_deref()
                .is_some_and(|want| args.first().is_some_and(|a| a.eq_ignore_ascii_case(want)));
            if !named {
                return false;
            }
            (CaptionEvent::Command, Some(*from))
        }
        TraceKind::WriteAccepted { from, .. } => (CaptionEvent::WriteAccepted, Some(*from)),
        TraceKind::WriteRejected { from, .. } => (CaptionEvent::WriteRejected, Some(*from)),
        TraceKind::Start => (CaptionEvent::Start, None),
        TraceKind::LockHeld { .. } => (CaptionEvent::LockHeld, None),
        TraceKind::LockLost { .. } => (CaptionEvent::LockLost, None),
        TraceKind::LockReleased { .. } => (CaptionEvent::LockReleased, None),
        TraceKind::AcquireFailed { .. } => (CaptionEvent::AcquireFailed, None),
        TraceKind::GaveUp { .. } => (CaptionEvent::GaveUp, None),
        TraceKind::Crash => (CaptionEvent::Crash, None),
        TraceKind::Restart { .. } => (CaptionEvent::Restart, None),
        TraceKind::Pause => (CaptionEvent::Pause, None),
        TraceKind::Resume => (CaptionEvent::Resume, None),
        TraceKind::Partition { .. } => (CaptionEvent::Partition, None),
        TraceKind::Repair { .. } => (CaptionEvent::Repair, None),
        TraceKind::ClockJump { .. } => (CaptionEvent::ClockJump, None),
        TraceKind::Drift { .. } => (CaptionEvent::Drift, None),
        TraceKind::Failover { .. } => (CaptionEvent::Failover, None),
        TraceKind::WorkDone => (CaptionEvent::WorkDone, None),
        TraceKind::Stalled { .. } => (CaptionEvent::Stalled, None),
        _ => return false,
    };
    kind == c.at && who.is_none_or(|p| p == e.pid || sender == Some(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::{builtin, parse, BUILTINS};
    use crate::sim::{run, TraceLevel};

    #[test]
    fn every_builtin_caption_lands_on_its_moment_in_story_order() {
        let mut placed_total = 0;
        for b in BUILTINS {
            let Some(Ok(s)) = builtin(b.name) else {
                panic!("{}", b.name)
            };
            assert!(
                !s.captions.is_empty(),
                "{}: every built-in narrates its key moments",
                b.name
            );
            let r = run(&s, 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
            let placed = place(&s.captions, &r.trace, &r.names, &r.outcome.violations);
            // Each caption once, and in the order the file tells the story.
            let order: Vec<usize> = placed.iter().map(|c| c.spec).collect();
            let want: Vec<usize> = (0..s.captions.len()).collect();
            assert_eq!(order, want, "{}: captions out of story order or missing", b.name);
            for c in &placed {
                let spec = &s.captions[c.spec];
                let e = &r.trace[c.index];
                if spec.at != CaptionEvent::Violation {
                    assert!(matches(
                        spec,
                        e,
                        spec.process
                            .as_deref()
                            .and_then(|p| r.names.iter().position(|n| n == p))
                            .map(|p| p as u32)
                    ));
                }
                assert!(
                    !spec.nb.trim().is_empty(),
                    "{}: caption {} has no nb text",
                    b.name,
                    c.spec
                );
            }
            placed_total += placed.len();
        }
        assert!(placed_total >= 2 * BUILTINS.len(), "{placed_total}");
    }

    #[test]
    fn a_caption_follows_its_moment_when_the_run_changes() {
        // unsafe-del: B takes the lock when A's key has expired. With a longer TTL
        // (a learner's knob), that moment moves, and its caption with it.
        let Some(Ok(mut s)) = builtin("unsafe-del") else {
            panic!("unsafe-del")
        };
        let at = |s: &crate::sim::Scenario| {
            let r = run(s, 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
            let placed = place(&s.captions, &r.trace, &r.names, &r.outcome.violations);
            placed
                .iter()
                .find(|c| c.spec == 2)
                .map(|c| (c.t_us, r.trace[c.index].pid))
        };
        let (t1, pid) = at(&s).unwrap_or_else(|| panic!("B's lock_held"));
        assert_eq!(t1, 10_500_000);
        for c in &mut s.clients {
            c.ttl_ms = 11_000.0;
        }
        let (t2, pid2) = at(&s).unwrap_or_else(|| panic!("B's lock_held"));
        assert!(t2 > t1, "{t2} ≤ {t1}");
        assert_eq!(pid, pid2);
    }

    #[test]
    fn a_moment_that_never_happens_has_no_caption() {
        let src = "name = \"x\"\n[[nodes]]\nname = \"r\"\n[[clients]]\nname = \"A\"\nalgorithm = \"set-nx\"\nnodes = [\"r\"]\n\n[[captions]]\nat = \"crash\"\nprocess = \"A\"\nen = \"never\"\n\n[[captions]]\nat = \"lock_held\"\nen = \"held\"\nnb = \"har låsen\"\n";
        let s = parse("x.toml", src).unwrap_or_else(|e| panic!("{e}"));
        let r = run(&s, 1, TraceLevel::Full).unwrap_or_else(|e| panic!("{e}"));
        let placed = place(&s.captions, &r.trace, &r.names, &r.outcome.violations);
        assert_eq!(placed.iter().map(|c| c.spec).collect::<Vec<_>>(), vec![1]);
        assert_eq!(s.captions[1].text("nb"), "har låsen");
        assert_eq!(s.captions[0].text("nb"), "never");
    }

    #[test]
    fn a_wrong_caption_is_named_by_file_line_and_field() {
        let base = "name = \"x\"\n[[nodes]]\nname = \"r\"\n[[clients]]\nname = \"A\"\nalgorithm = \"set-nx\"\nnodes = [\"r\"]\n\n[[captions]]\n";
        let cases = [
            (
                "at = \"lock_held\"\nprocess = \"Z\"\nen = \"x\"\n",
                11,
                "captions[0].process",
                "`Z` is not a process",
            ),
            (
                "at = \"command\"\nen = \"x\"\n",
                9,
                "captions[0].command",
                "needs the command's name",
            ),
            (
                "at = \"crash\"\ncommand = \"DEL\"\nen = \"x\"\n",
                11,
                "captions[0].command",
                "only a caption",
            ),
            (
                "at = \"crash\"\nnth = 0\nen = \"x\"\n",
                11,
                "captions[0].nth",
                "counts from 1",
            ),
            (
                "at = \"crash\"\nen = \" \"\n",
                11,
                "captions[0].en",
                "English text",
            ),
            ("at = \"explode\"\nen = \"x\"\n", 10, "at", "unknown variant"),
        ];
        for (tail, line, field, message) in cases {
            let e = parse("x.toml", &format!("{base}{tail}"))
                .err()
                .unwrap_or_else(|| panic!("{tail} parsed"));
            assert_eq!((e.line, e.field.as_str()), (Some(line), field), "{tail}: {e}");
            assert!(e.message.contains(message), "{tail}: {e}");
        }
        let long = format!("at = \"crash\"\nen = \"{}\"\n", "x".repeat(MAX_CAPTION_CHARS + 1));
        let e = parse("x.toml", &format!("{base}{long}"))
            .err()
            .unwrap_or_else(|| panic!("long parsed"));
        assert_eq!(e.field, "captions[0].en");
    }
}
