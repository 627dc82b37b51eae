//! A lab's state in the page's address: a shared trial to replay, and code carried in a
//! link (at most 8 KB).

use crate::lesson::route::{hash_with_state, query_param};
use crate::timeline::lab_panel::{LabAction, LinkKind};
use crate::ui::browser;
use yew::Callback;

/// `name` from the URL hash's state, when the state names this lab (`lab=<id>&…`).
pub(super) fn lab_param(id: &str, name: &str) -> Option<String> {
    let hash = browser::hash();
    let q = hash.split_once('?').map_or("", |(_, q)| q);
    (query_param(q, "lab").as_deref() == Some(id))
        .then(|| query_param(q, name))
        .flatten()
}

/// Whether the URL names the lab `id` (`lab=<id>`: a shared link, a replayed trial).
pub fn in_url(id: &str) -> bool {
    let hash = browser::hash();
    let q = hash.split_once('?').map_or("", |(_, q)| q);
    query_param(q, "lab").as_deref() == Some(id)
}

/// The lab's `lab=…&trial=…` in the URL, if this panel's.
pub(super) fn shared_trial(id: &str) -> Option<u64> {
    lab_param(id, "trial").and_then(|s| s.parse().ok())
}

/// Code a link brought for this lab (`lab=<id>&code=…`): shown in the editor, never run
/// by itself.
pub(super) fn shared_code(id: &str) -> Option<String> {
    lab_param(id, "code").filter(|c| !c.trim().is_empty() && c.len() <= MAX_LINK_CODE)
}

/// Longest code a link carries (URL-encoded it is up to three times longer).
pub(super) const MAX_LINK_CODE: usize = 8 * 1024;

/// A link to this page with the lab, its code and, if any, the trial to replay.
pub(super) fn link_with_code(id: &str, code: &str, trial: Option<u64>) -> Option<String> {
    let loc = web_sys::window()?.location();
    let base = format!(
        "{}{}{}",
        loc.origin().ok()?,
        loc.pathname().ok()?,
        loc.search().ok()?
    );
    let mut state = format!("lab={id}");
    if let Some(t) = trial {
        state.push_str(&format!("&trial={t}"));
    }
    if code.len() <= MAX_LINK_CODE {
        state.push_str(&format!(
            "&code={}",
            String::from(js_sys::encode_uri_component(code))
        ));
    }
    Some(format!("{base}{}", hash_with_state(&browser::hash(), &state)))
}

/// Copies `link`; where the browser refuses, the panel shows it to copy by hand.
pub(super) fn copy_link(kind: LinkKind, link: String, dispatch: Callback<LabAction>) {
    let kept = link.clone();
    browser::copy_then(link, move |ok| {
        dispatch.emit(LabAction::LinkCopied(kind, if ok { Ok(()) } else { Err(kept) }));
    });
}
