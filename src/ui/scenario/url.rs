//! A scenario panel's state in the URL: which scenario, seed, cursor, knobs and faults
//! a link opens, and writing them back as the learner goes.

use crate::lesson::route::query_param;
use crate::sim::Fault;
use crate::timeline::{link, Variant};
use crate::ui::browser;

/// Where a link puts the cursor: `t`, the true time in ms (readable, and what an older
/// link has), and `e`, the event's index, which is exact where several events share a
/// millisecond. The same scenario, seed, knobs and faults give the same trace, so the
/// index points at the same event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UrlCursor {
    pub t_ms: Option<u64>,
    pub event: Option<usize>,
}

/// Where a panel opens: its scenario, seed, cursor, and the knobs and faults a link
/// carries. From the URL if this panel owns it and it names one of `names`, else the
/// first name, seed 1, at the hold point if there is one.
pub struct Opening {
    pub name: String,
    pub seed: u64,
    pub at: UrlCursor,
    pub changes: (Variant, Vec<(u64, Fault)>),
}

pub fn opening(names: &[String], own_url: bool, hold_at_ms: Option<u64>) -> Opening {
    let first = names.first().cloned().unwrap_or_default();
    let none = UrlCursor {
        t_ms: None,
        event: None,
    };
    let plain = |at| Opening {
        name: first.clone(),
        seed: 1,
        at,
        changes: (Variant::default(), Vec::new()),
    };
    if !own_url {
        return plain(UrlCursor {
            t_ms: hold_at_ms,
            ..none
        });
    }
    let (s, seed, at) = url_state();
    match s.filter(|s| names.contains(s)) {
        // A link's knobs and faults apply to the scenario it names.
        Some(name) => Opening {
            name,
            seed: seed.unwrap_or(1),
            at,
            changes: url_changes(),
        },
        None => plain(none),
    }
}

/// A link followed while the page is open: the scenario it names, if it is one of
/// `names`, with its seed, cursor, knobs and faults.
pub fn followed(names: &[String]) -> Option<Opening> {
    let (s, seed, at) = url_state();
    let name = s.filter(|s| names.contains(s))?;
    Some(Opening {
        name,
        seed: seed.unwrap_or(1),
        at,
        changes: url_changes(),
    })
}

/// The part of the URL hash after `?`: `scenario=…&seed=…&t=…&e=…` (t in ms).
fn url_state() -> (Option<String>, Option<u64>, UrlCursor) {
    let query = hash_query();
    let scenario = query_param(&query, "scenario");
    let seed = query_param(&query, "seed").and_then(|s| s.parse().ok());
    let cursor = UrlCursor {
        t_ms: query_param(&query, "t").and_then(|s| s.parse().ok()),
        event: query_param(&query, "e").and_then(|s| s.parse().ok()),
    };
    (scenario, seed, cursor)
}

/// The part of the hash after `?`.
fn hash_query() -> String {
    browser::hash()
        .split_once('?')
        .map(|(_, q)| q.to_string())
        .unwrap_or_default()
}

/// The knobs and the faults a link carries (`ttl`, `drift`, `timeout`, `faults`).
fn url_changes() -> (Variant, Vec<(u64, Fault)>) {
    let query = hash_query();
    let variant = link::decode_variant(|k| query_param(&query, k));
    let faults = query_param(&query, "faults")
        .map(|f| link::decode_faults(&f))
        .unwrap_or_default();
    (variant, faults)
}

pub fn write_url_state(
    name: &str,
    seed: u64,
    (t_ms, event): (u64, usize),
    variant: &Variant,
    faults: &[(u64, Fault)],
) {
    let changed = link::encode_variant(variant);
    // A panel just opened does not take the URL from a lab it names (a shared lab link:
    // a reload must still open on the lab); once the learner moves it, it does.
    let untouched = (t_ms, event) == (0, 0) && changed.is_empty() && faults.is_empty();
    if untouched && query_param(&hash_query(), "lab").is_some() {
        return;
    }
    let mut q = format!("scenario={name}&seed={seed}&t={t_ms}&e={event}");
    for (k, v) in changed {
        q.push_str(&format!("&{k}={v}"));
    }
    if !faults.is_empty() {
        q.push_str(&format!("&faults={}", link::encode_faults(faults)));
    }
    // After the route, in the hash: the query stays what the visitor opened.
    browser::replace_hash(&crate::lesson::route::hash_with_state(&browser::hash(), &q));
}
