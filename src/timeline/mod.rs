//! The timeline as data: what the UI draws for a run, derived only from the simulator
//! (its trace, its checker's outcome, and the nodes' stores sampled as the run goes).
//!
//! Plain Rust (no browser), so the drawing rules are tested natively. `ui::scenario`
//! turns a [`Model`] into SVG and a [`Snapshot`] into the cluster view.
//!
//! - Lanes: clients first, then Redis nodes, then the resource (each process's kind is
//!   its [`Role`] in the world; the resource's lane is the resource's once it answered a
//!   write).
//! - Bars: a client's "believes it holds the lock" spans, a node's key spans (coloured by
//!   the token stored), pauses and crashes.
//! - Arrows: every message, from send to delivery (or to where it was dropped).
//! - Marks: single events (writes, clock jumps, partitions, failovers…).
//! - Bands: the checker's violations, in true time, with a sentence saying what broke.
//! - Stories: what the nodes' stores show and no single trace event says: a lock key
//!   expiring on a node, a client's command removing another client's key.

pub mod fold;
pub mod fork;
pub mod lab_panel;
pub mod lens;
pub mod link;
pub mod lod;
pub mod pace;
pub mod panel;
pub mod states;
pub mod tally;
pub mod variant;
pub mod view;
pub mod words;

mod build;
mod layout;
mod model;
mod snapshot;

pub use build::*;
pub use model::*;
pub use snapshot::*;

pub use variant::{check_script, first_script_error, ScriptError, Variant};
pub use words::{band_sentence, describe};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::content::Lang;
    use crate::sim::fact::ViolationKind;
    use crate::sim::scenario::builtin;
    use crate::sim::trace::{TraceEvent, TraceKind};

    fn model(name: &str) -> Model {
        let s = builtin(name).expect("built-in").expect("valid");
        build(&s, 1).expect("runs")
    }

    /// A run's trace crosses the wire (postcard, `crate::wire`) and JSON in the trace's one
    /// serde form, unchanged, every kind of event of these scenarios among them.
    #[test]
    fn the_trace_crosses_the_wire_and_json_in_its_one_form_unchanged() {
        let mut kinds = std::collections::HashSet::new();
        for name in [
            "unsafe-del",
            "ttl-workers",
            "redlock-drift-2pct",
            "fencing",
            "failover",
            "redlock-pause-acquire",
        ] {
            let m = model(name);
            let text = crate::wire::to_text(&m.trace).expect("the wire");
            let back: Vec<TraceEvent> = crate::wire::from_text(&text).expect("reads");
            assert_eq!(back, m.trace, "{name}");
            let json = serde_json::to_string(&m.trace).expect("json");
            let back: Vec<TraceEvent> = serde_json::from_str(&json).expect("reads");
            assert_eq!(back, m.trace, "{name}");
            for e in &m.trace {
                kinds.insert(std::mem::discriminant(&e.kind));
            }
        }
        assert!(kinds.len() >= 15, "{} kinds of event crossed", kinds.len());
    }

    /// The way off the page for the scenario runs (#16): the engine's worker builds the
    /// model and the page draws it, so a model must cross as JSON unchanged, every
    /// built-in one, faults, captions, tallies and key states included.
    #[test]
    fn every_builtin_model_crosses_as_json_unchanged() {
        let mut sizes = Vec::new();
        for b in crate::sim::scenario::BUILTINS {
            let m = model(b.name);
            let json = serde_json::to_string(&m).expect("serializes");
            let back: Model = serde_json::from_str(&json).expect("deserializes");
            assert_eq!(back, m, "{}", b.name);
            sizes.push((json.len(), b.name));
        }
        // What a message would weigh: the largest model, for the record (not a limit).
        crate::sorting::sort(&mut sizes);
        let (largest, name) = sizes.last().copied().expect("built-ins");
        assert!(largest > 1000, "{name}: {largest} bytes");
    }

    /// Issue #19: a node that no command ever reached (C1 is cut off from A, B and C
    /// from the start, and no one else uses them) vanished from the lanes and from the
    /// cluster view. Every node of the scenario is on both, always.
    #[test]
    fn a_node_no_command_reaches_still_has_its_lane_and_its_place_at_the_cursor() {
        let mut text = String::from(
            "name = \"cut-off\"\ndescription = \"C1 is cut off from A, B and C.\"\nend_ms = 2000\n",
        );
        for n in ["A", "B", "C", "D", "E"] {
            text.push_str(&format!("[[nodes]]\nname = \"{n}\"\n"));
        }
        text.push_str("[[clients]]\nname = \"C1\"\nalgorithm = \"redlock\"\nnodes = [\"A\", \"B\", \"C\", \"D\", \"E\"]\nttl_ms = 1000\ntimeout_ms = 5\nstart_ms = 10\nwork = [\"sleep 100\"]\n");
        for peer in ["A", "B", "C"] {
            text.push_str(&format!(
                "[[faults]]\nat_ms = 0\nop = \"partition\"\ntarget = \"C1\"\npeer = \"{peer}\"\n"
            ));
        }
        let s = crate::sim::scenario::parse("cut-off.toml", &text).expect("valid");
        let m = build(&s, 1).expect("runs");
        let lanes: Vec<(&str, LaneKind)> = m.lanes.iter().map(|l| (l.name.as_str(), l.kind)).collect();
        assert_eq!(
            lanes,
            vec![
                ("C1", LaneKind::Client),
                ("A", LaneKind::Node),
                ("B", LaneKind::Node),
                ("C", LaneKind::Node),
                ("D", LaneKind::Node),
                ("E", LaneKind::Node),
                ("storage", LaneKind::Other),
            ]
        );
        // A, B and C never saw a command: the premise of the test.
        let reached: std::collections::BTreeSet<u32> = m
            .trace
            .iter()
            .filter(|e| matches!(e.kind, TraceKind::Command { .. }))
            .map(|e| e.pid)
            .collect();
        for n in ["A", "B", "C"] {
            let pid = m.lanes.iter().find(|l| l.name == n).map(|l| l.pid).expect("lane");
            assert!(!reached.contains(&pid), "{n} got a command");
        }
        let snap = snapshot(&m, m.trace.len() - 1);
        let nodes: Vec<&str> = snap.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(nodes, ["A", "B", "C", "D", "E"]);
    }

    #[test]
    fn unsafe_del_draws_the_overlap_band_and_key_bars() {
        let m = model("unsafe-del");
        assert!(!m.bands.is_empty(), "the checker's violation becomes a band");
        let b = &m.bands[0];
        assert_eq!(b.kind, ViolationKind::Overlap);
        assert!(
            band_sentence(b, Lang::En).contains("both believed they held"),
            "{}",
            band_sentence(b, Lang::En)
        );
        // Lanes: clients before nodes before the resource.
        let kinds: Vec<LaneKind> = m.lanes.iter().map(|l| l.kind).collect();
        let mut sorted = kinds.clone();
        crate::sorting::sort(&mut sorted);
        assert_eq!(kinds, sorted);
        assert!(kinds.contains(&LaneKind::Client) && kinds.contains(&LaneKind::Node));
        // A's key on the node expires at 10 000 ms (TTL 10 000 from 0).
        let first_key = m.bars.iter().find(|b| b.kind == BarKind::Key).expect("a key bar");
        assert!(first_key.from_us < 50_000, "{first_key:?}");
        assert!(
            (first_key.to_us as i64 - 10_000_000).abs() < 50_000,
            "{first_key:?}"
        );
        // A's pause is drawn.
        assert!(m
            .bars
            .iter()
            .any(|b| b.kind == BarKind::Paused && b.from_us <= 100_000 + 1_000));
        // Every message is an arrow that does not go back in time.
        assert!(!m.arrows.is_empty());
        assert!(m.arrows.iter().all(|a| a.at_us >= a.sent_us));
    }

    #[test]
    fn fencing_marks_the_rejected_write() {
        let m = model("fencing");
        let rejected: Vec<&Mark> = m
            .marks
            .iter()
            .filter(|k| k.kind == MarkKind::WriteRejected)
            .collect();
        assert_eq!(rejected.len(), 1, "{:?}", m.marks);
        assert!(rejected[0].label.contains("33 ≤ 34"), "{}", rejected[0].label);
    }

    #[test]
    fn snapshot_follows_the_cursor() {
        let m = model("unsafe-del");
        let early = snapshot(&m, m.index_at(50_000));
        let holding: Vec<&ClientView> = early.clients.iter().filter(|c| c.status == "holding").collect();
        assert_eq!(holding.len(), 1, "{early:?}");
        let key_early = early
            .nodes
            .iter()
            .flat_map(|n| n.keys.iter())
            .next()
            .expect("A's key is on the node");
        assert!(
            key_early.2.is_some_and(|left| left > 9_000 && left <= 10_000),
            "{key_early:?}"
        );
        let later = snapshot(&m, m.index_at(11_000_000));
        assert!(later.clients.iter().any(|c| c.status == "paused"));
        assert!(later.t_us > early.t_us);
    }

    #[test]
    fn describe_every_event_in_words() {
        let m = model("redlock-clock-jump");
        for e in &m.trace {
            let s = describe(&m, e, Lang::En);
            assert!(s.contains(" ms · "), "{s}");
        }
        assert!(m.marks.iter().any(|k| k.kind == MarkKind::ClockJump));
    }

    #[test]
    fn the_story_says_whose_key_expired_and_whose_del_removed_whose_key() {
        let m = model("unsafe-del");
        let all = words::story(&m, m.trace.len() - 1, usize::MAX, Lang::En);
        let expired = all
            .iter()
            .position(|l| l.contains("A's key lock expires on redis"))
            .unwrap_or_else(|| panic!("no expiry in {all:#?}"));
        assert!(all[expired].starts_with("10001.0 ms"), "{}", all[expired]);
        let removed = all
            .iter()
            .position(|l| l.contains("A's DEL removes B's key lock on redis"))
            .unwrap_or_else(|| panic!("no removal in {all:#?}"));
        assert!(expired < removed);
        // B's own release later removes C's key too (B's lock had been deleted by A).
        assert!(
            all.iter().any(|l| l.contains("B's DEL removes C's key lock")),
            "{all:#?}"
        );
        // The mechanics (messages, commands, timers) are not in the story.
        assert!(
            all.iter().all(|l| !l.contains("sends") && !l.contains("timer")),
            "{all:#?}"
        );
        // A story line is told only once the cursor reaches it.
        let before = words::story(&m, m.index_at(10_000_000), usize::MAX, Lang::En);
        assert!(before.iter().all(|l| !l.contains("expires")), "{before:#?}");
        // At most `max` lines, the newest ones.
        let last3 = words::story(&m, m.trace.len() - 1, 3, Lang::En);
        assert_eq!(last3, all[all.len() - 3..].to_vec());
        let nb = words::story(&m, m.trace.len() - 1, usize::MAX, Lang::Nb);
        assert!(
            nb.iter()
                .any(|l| l.contains("DEL fra A fjerner nøkkelen lock til B på redis")),
            "{nb:#?}"
        );
        assert!(
            nb.iter()
                .any(|l| l.contains("nøkkelen lock til A utløper på redis")),
            "{nb:#?}"
        );
    }

    #[test]
    fn a_safe_release_removes_no_one_elses_key() {
        for name in ["safe-release", "double-charge-redis-lock", "fencing"] {
            let m = model(name);
            assert!(
                m.stories
                    .iter()
                    .all(|s| !matches!(s.kind, StoryKind::Removed { .. })),
                "{name}: {:?}",
                m.stories
            );
        }
    }

    #[test]
    fn double_charge_without_a_lock_says_two_charges_and_no_one_acquires() {
        let m = model("double-charge-no-lock");
        let b = m
            .bands
            .iter()
            .find(|b| b.kind == ViolationKind::DoubleEffect)
            .unwrap_or_else(|| panic!("no double effect in {:?}", m.bands));
        assert_eq!(
            band_sentence(b, Lang::En),
            "charge 42 happened twice: the resource accepted it from A and B (43–48 ms)."
        );
        assert_eq!(
            band_sentence(b, Lang::Nb),
            "charge 42 skjedde to ganger: Ressursen godtok det fra A og B (43–48 ms)."
        );
        // Mid-run, both clients work without a lock: neither is "acquiring".
        let mid = snapshot(&m, m.index_at(20_000));
        let status: Vec<&str> = mid.clients.iter().map(|c| c.status).collect();
        assert_eq!(status, vec!["working", "working"], "{mid:?}");
        let end = snapshot(&m, m.trace.len() - 1);
        assert!(end.clients.iter().all(|c| c.status == "done"), "{end:?}");
        // With the lock, B waits for it: that is acquiring; and one charge only.
        let m = model("double-charge-redis-lock");
        assert!(m.bands.is_empty(), "{:?}", m.bands);
        let early = snapshot(&m, m.index_at(20_000));
        assert!(
            early
                .clients
                .iter()
                .any(|c| c.name == "B" && c.status == "acquiring"),
            "{early:?}"
        );
    }

    #[test]
    fn same_seed_same_model() {
        let s = builtin("redlock-contention").expect("built-in").expect("valid");
        assert_eq!(build(&s, 9).expect("runs"), build(&s, 9).expect("runs"));
    }
}
