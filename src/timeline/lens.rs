//! The lens: the moment around the cursor at a scale where each message is readable.
//! The overview draws a 3 ms round trip as a vertical tick; the lens lists the last few
//! exchanges up to the cursor as a sequence chart (time running down, one column per
//! process), each request paired with its reply (`SET lock tok… NX PX 10000 → OK`),
//! with what the nodes' keys did in between (`A's DEL removes B's key`). Only what has
//! happened by the cursor is in it: a held "what happens next?" run gives nothing away.

use super::{Arrow, LaneKind, Model, StoryKind};
use crate::sim::fact::Message;

/// One row of the lens, in trace order.
#[derive(Clone, Debug, PartialEq)]
pub struct LensRow {
    /// The trace event it starts at (a request's send; the event a story follows).
    pub index: usize,
    pub t_us: u64,
    pub item: LensItem,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LensItem {
    /// A message, and the answer to it if one was sent by the cursor.
    Exchange { request: Hop, reply: Option<Hop> },
    /// A node's key expired or was removed.
    Story(StoryKind),
}

/// One message: who to whom, what, when it left and arrived, and whether it was lost.
#[derive(Clone, Debug, PartialEq)]
pub struct Hop {
    pub from: u32,
    pub to: u32,
    pub what: Message,
    pub sent_us: u64,
    pub at_us: u64,
    pub dropped: bool,
    /// Its send event in the trace.
    pub index: usize,
}

impl From<&Arrow> for Hop {
    fn from(a: &Arrow) -> Hop {
        Hop {
            from: a.from,
            to: a.to,
            what: a.label.clone(),
            sent_us: a.sent_us,
            at_us: a.at_us,
            dropped: a.dropped,
            index: a.index,
        }
    }
}

/// The last `rows` rows up to the trace event `cursor` (oldest first). The model's
/// arrows are in send order, so this looks at a few dozen of them, not the whole run.
pub fn around(m: &Model, cursor: usize, rows: usize) -> Vec<LensRow> {
    if rows == 0 {
        return Vec::new();
    }
    let end = m.arrows.partition_point(|a| a.index <= cursor);
    // Enough messages for `rows` exchanges even when every one has a reply.
    let start = end.saturating_sub(rows * 3);
    let window: &[Arrow] = &m.arrows[start..end];
    let mut used = vec![false; window.len()];
    let kind = |pid: u32| {
        m.lanes
            .iter()
            .find(|l| l.pid == pid)
            .map_or(LaneKind::Other, |l| l.kind)
    };
    let mut out: Vec<LensRow> = Vec::new();
    for j in 0..window.len() {
        if used[j] {
            continue;
        }
        used[j] = true;
        let a = &window[j];
        // Its reply: the first later message back along the same link, sent once the
        // request had arrived (a node answers in order). A node's or the resource's
        // message to a client is an answer, never a request (its own request may lie
        // before the window).
        let answer = kind(a.from) > kind(a.to);
        let reply = (j + 1..window.len()).find(|&k| {
            let b = &window[k];
            !answer && !used[k] && !a.dropped && b.from == a.to && b.to == a.from && b.sent_us >= a.at_us
        });
        let reply = reply.map(|k| {
            used[k] = true;
            Hop::from(&window[k])
        });
        out.push(LensRow {
            index: a.index,
            t_us: a.sent_us,
            item: LensItem::Exchange {
                request: Hop::from(a),
                reply,
            },
        });
    }
    let first = window.first().map_or(0, |a| a.index);
    let stories_end = m.stories.partition_point(|s| s.after <= cursor);
    for s in m.stories[..stories_end].iter().rev().take(rows) {
        if s.after < first && !out.is_empty() {
            break;
        }
        out.push(LensRow {
            index: s.after,
            t_us: s.t_us,
            item: LensItem::Story(s.kind.clone()),
        });
    }
    crate::sorting::sort_by_key(&mut out, |r| (r.index, matches!(r.item, LensItem::Story(_))));
    let skip = out.len().saturating_sub(rows);
    out.drain(..skip);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::content::Lang;
    use crate::sim::scenario::builtin;
    use crate::timeline::{build, words};

    fn text(m: &Model, r: &LensRow) -> String {
        match &r.item {
            LensItem::Exchange { request, reply } => format!(
                "{} → {}: {}{}",
                m.name(request.from),
                m.name(request.to),
                words::payload(&request.what, Lang::En),
                reply
                    .as_ref()
                    .map(|r| format!(" → {}", words::payload(&r.what, Lang::En)))
                    .unwrap_or_default()
            ),
            LensItem::Story(_) => "story".into(),
        }
    }

    #[test]
    fn a_set_and_its_ok_are_one_row_once_the_reply_is_sent() {
        let m = build(&builtin("unsafe-del").unwrap().unwrap(), 1).unwrap();
        // The first SET's send, and the node's reply send after it.
        let set = m
            .arrows
            .iter()
            .find(|a| words::payload(&a.label, Lang::En).starts_with("SET "))
            .unwrap();
        let rows = around(&m, set.index, 4);
        let last = rows.last().unwrap();
        assert_eq!(last.index, set.index);
        assert!(
            text(&m, last).starts_with("A → redis: SET lock "),
            "{}",
            text(&m, last)
        );
        assert!(
            !text(&m, last).contains(" → OK"),
            "the reply is not sent yet: {}",
            text(&m, last)
        );
        let reply = m
            .arrows
            .iter()
            .find(|a| a.from == set.to && a.to == set.from && a.index > set.index)
            .unwrap();
        let rows = around(&m, reply.index, 4);
        let row = rows.iter().find(|r| r.index == set.index).unwrap();
        assert!(text(&m, row).ends_with("NX PX 10000 → OK"), "{}", text(&m, row));
        // Nothing after the cursor is in the lens.
        assert!(around(&m, reply.index, 50).iter().all(|r| r.index <= reply.index));
    }

    #[test]
    fn the_lens_at_a_late_del_says_whose_key_it_removed() {
        let m = build(&builtin("unsafe-del").unwrap().unwrap(), 1).unwrap();
        let s = m
            .stories
            .iter()
            .find(|s| matches!(&s.kind, StoryKind::Removed { .. }))
            .expect("unsafe-del removes someone's key");
        let rows = around(&m, s.after, 5);
        assert!(rows.iter().any(|r| r.item == LensItem::Story(s.kind.clone())));
        // The DEL that did it is in the lens too, just before.
        assert!(
            rows.iter().any(|r| text(&m, r).contains(": DEL lock")),
            "{:?}",
            rows.iter().map(|r| text(&m, r)).collect::<Vec<_>>()
        );
        assert!(rows.len() <= 5);
    }

    #[test]
    fn an_answer_never_takes_a_later_request_as_its_reply() {
        // fencing, seed 1: C1's release (an EVAL to redis) follows redis's earlier answers
        // to C1; each row pairs a client's request with the node's answer, never the
        // other way round, at every cursor.
        let m = build(&builtin("fencing").unwrap().unwrap(), 1).unwrap();
        for cursor in 0..m.trace.len() {
            for r in around(&m, cursor, 5) {
                if let LensItem::Exchange {
                    request,
                    reply: Some(rep),
                } = &r.item
                {
                    let k = |p: u32| m.lanes.iter().find(|l| l.pid == p).unwrap().kind;
                    assert!(
                        k(request.from) <= k(request.to),
                        "cursor {cursor}: {request:?} answered by {rep:?}"
                    );
                }
            }
        }
        let last = around(&m, m.trace.len() - 1, 5);
        let release = last.iter().rev().find_map(|r| match &r.item {
            LensItem::Exchange { request, reply }
                if m.name(request.from) == "C1" && m.name(request.to) == "redis" =>
            {
                Some((request, reply))
            }
            _ => None,
        });
        let (request, reply) = release.expect("C1's release to redis is in the lens at the end");
        assert!(
            words::payload(&request.what, Lang::En).starts_with("EVAL"),
            "{request:?}"
        );
        assert_eq!(
            reply.as_ref().map(|r| words::payload(&r.what, Lang::En)),
            Some("(integer) 0".to_string())
        );
    }

    #[test]
    fn the_lens_is_bounded_at_every_cursor_of_a_long_run() {
        let m = build(&builtin("redlock-contention").unwrap().unwrap(), 3).unwrap();
        for cursor in 0..m.trace.len() {
            let rows = around(&m, cursor, 6);
            assert!(rows.len() <= 6);
            assert!(rows.windows(2).all(|w| w[0].index <= w[1].index));
            assert!(rows.iter().all(|r| r.index <= cursor));
        }
    }
}
