//! A learner's command on a node at the cursor: the fork it makes and the reply.
//!
//! The command is injected at the cursor's true time and runs after every event of that
//! moment (see `World::inject_at`), so it sees the state the cluster view shows there,
//! and it still runs at the very end of a run. A command that changes nothing (an
//! unknown command, a wrong number of arguments, a read such as `GET` or `PTTL`) makes no
//! fork: the learner gets the reply and the run stays as it was.

use super::{build_with, Model};
use crate::sim::scenario::Scenario;
use crate::sim::{Fault, TraceKind};

/// What running a console line gave.
#[derive(Debug)]
pub struct ConsoleRun {
    /// The node's reply, as `redis-cli` prints it; an error if the node did not run it.
    pub reply: String,
    /// The run with the command in it, if the command changed anything (`None`: keep
    /// the run as it is).
    pub fork: Option<(Vec<(u64, Fault)>, Model)>,
}

/// The reply when the command never ran (the node was down).
pub const NOT_RUN: &str = "(error) the node did not run the command (is it down?)";

/// Run `args` on `node` at true time `at_us` of the run `base` (built from `scenario`,
/// `seed` and `injections`).
pub fn console_command(
    scenario: &Scenario,
    seed: u64,
    base: &Model,
    injections: &[(u64, Fault)],
    at_us: u64,
    node: u32,
    args: Vec<Vec<u8>>,
) -> ConsoleRun {
    let want: Vec<String> = args
        .iter()
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let fault = Fault::Command {
        node: node as usize,
        args,
    };
    // The same command typed twice at one moment: its reply is the second one.
    let earlier = injections
        .iter()
        .filter(|(t, f)| *t == at_us && *f == fault)
        .count();
    let mut inj = injections.to_vec();
    inj.push((at_us, fault));
    let Ok(fork) = build_with(scenario, seed, &inj) else {
        return ConsoleRun {
            reply: NOT_RUN.into(),
            fork: None,
        };
    };
    let reply = fork
        .trace
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.kind {
            TraceKind::Command {
                from, args, reply, ..
            } if e.pid == node && *from == node && e.t_us >= at_us && *args == want => {
                Some((i, reply.clone()))
            }
            _ => None,
        })
        .nth(earlier);
    let Some((index, reply)) = reply else {
        return ConsoleRun {
            reply: NOT_RUN.into(),
            fork: None,
        };
    };
    // A command that changed nothing (an error, a read): the run is the same but for
    // the command itself, so there is nothing to fork.
    let unchanged = fork.bars == base.bars
        && fork.trace.len() == base.trace.len() + 1
        && fork.trace.get(..index) == base.trace.get(..index)
        && fork.trace.get(index + 1..) == base.trace.get(index..);
    ConsoleRun {
        reply,
        fork: (!unchanged).then_some((inj, fork)),
    }
}

/// The cursor in `to` at the moment the cursor `cursor` of `from` is at: the last event
/// at or before its time (Undo keeps the learner where they were).
pub fn same_moment(from: &Model, cursor: usize, to: &Model) -> usize {
    from.trace.get(cursor).map_or(0, |e| to.index_at(e.t_us))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::builtin;
    use crate::timeline::{build, snapshot};

    fn scenario(name: &str) -> Scenario {
        builtin(name).expect("built-in").expect("valid")
    }

    fn args(line: &str) -> Vec<Vec<u8>> {
        line.split(' ').map(|a| a.as_bytes().to_vec()).collect()
    }

    /// Cursors a learner can put a command after: the last event of each moment.
    fn moments(m: &Model) -> Vec<usize> {
        (0..m.trace.len())
            .filter(|&i| m.trace.get(i + 1).is_none_or(|n| n.t_us > m.trace[i].t_us))
            .collect()
    }

    /// What the cluster view shows for a key at a cursor is what `GET` and `PTTL` on
    /// that node answer then, in §3, §5 and §7's scenarios.
    #[test]
    fn the_cluster_view_shows_what_the_node_answers() {
        let mut checked = 0;
        for name in [
            "unsafe-del",
            "watchdog-pause",
            "redlock-baseline",
            "redlock-drift-2pct",
            "redlock-clock-jump",
        ] {
            let s = scenario(name);
            let m = build(&s, 1).expect("runs");
            for c in moments(&m) {
                let snap = snapshot(&m, c);
                let t = m.trace[c].t_us;
                for (ni, node) in snap.nodes.iter().enumerate() {
                    let pid = m.lanes.iter().find(|l| l.name == node.name).expect("lane").pid;
                    for (k, v, left) in &node.keys {
                        let get = console_command(&s, 1, &m, &[], t, pid, args(&format!("GET {k}")));
                        assert_eq!(
                            get.reply,
                            format!("\"{v}\""),
                            "{name} GET at event {c} on {}",
                            node.name
                        );
                        let pttl = console_command(&s, 1, &m, &[], t, pid, args(&format!("PTTL {k}")));
                        let shown = left.map_or(-1, |l| l);
                        assert_eq!(
                            pttl.reply,
                            format!("(integer) {shown}"),
                            "{name} PTTL at event {c} on {} (node {ni})",
                            node.name
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 20, "only {checked} keys checked");
    }

    /// §3 at the moment C's SET ran: C's key is there, for its full 10 s less nothing.
    #[test]
    fn right_after_set_px_the_key_has_its_whole_ttl() {
        let s = scenario("unsafe-del");
        let m = build(&s, 1).expect("runs");
        let set = m
            .trace
            .iter()
            .rposition(|e| matches!(&e.kind, TraceKind::Command { args, .. } if args.first().is_some_and(|a| a == "SET")))
            .expect("a SET");
        let snap = snapshot(&m, set);
        let (_, _, left) = &snap.nodes[0].keys[0];
        assert_eq!(*left, Some(10_000), "{snap:?}");
    }

    #[test]
    fn a_command_runs_at_the_end_of_a_run() {
        let s = scenario("unsafe-del");
        let m = build(&s, 1).expect("runs");
        let end = m.trace.last().expect("events").t_us;
        let node = m.lanes.iter().find(|l| l.name == "redis").expect("redis").pid;
        let r = console_command(&s, 1, &m, &[], end, node, args("SET k v"));
        assert_eq!(r.reply, "OK");
        let (_, fork) = r.fork.expect("a write forks the run");
        let snap = snapshot(&fork, fork.trace.len() - 1);
        assert!(
            snap.nodes[0].keys.iter().any(|(k, v, _)| k == "k" && v == "v"),
            "{snap:?}"
        );
    }

    #[test]
    fn a_failed_command_makes_no_fork_but_answers() {
        let s = scenario("unsafe-del");
        let m = build(&s, 1).expect("runs");
        let node = m.lanes.iter().find(|l| l.name == "redis").expect("redis").pid;
        let r = console_command(&s, 1, &m, &[], 5_000_000, node, args("FROB lock"));
        assert!(r.reply.starts_with("(error) ERR unknown command"), "{}", r.reply);
        assert!(r.fork.is_none());
        let r = console_command(&s, 1, &m, &[], 5_000_000, node, args("GET"));
        assert!(r.reply.starts_with("(error) ERR wrong number"), "{}", r.reply);
        assert!(r.fork.is_none());
        // Nor does a read.
        let r = console_command(&s, 1, &m, &[], 5_000_000, node, args("GET lock"));
        assert!(r.reply.starts_with('"'), "{}", r.reply);
        assert!(r.fork.is_none());
        // A write that succeeds does fork.
        let r = console_command(&s, 1, &m, &[], 5_000_000, node, args("DEL lock"));
        assert_eq!(r.reply, "(integer) 1");
        assert!(r.fork.is_some());
    }

    #[test]
    fn undo_keeps_the_moment() {
        let s = scenario("unsafe-del");
        let m = build(&s, 1).expect("runs");
        let node = m.lanes.iter().find(|l| l.name == "redis").expect("redis").pid;
        let (_, fork) = console_command(&s, 1, &m, &[], 5_000_000, node, args("DEL lock"))
            .fork
            .expect("forks");
        let c = fork.index_at(11_000_000);
        let back = same_moment(&fork, c, &m);
        assert_eq!(m.trace[back].t_us, fork.trace[c].t_us.min(m.trace[back].t_us));
        assert!(
            m.trace[back].t_us <= 11_000_000 && m.trace.get(back + 1).is_none_or(|e| e.t_us > 11_000_000)
        );
        assert!(back < m.trace.len() - 1, "not the end");
    }
}
