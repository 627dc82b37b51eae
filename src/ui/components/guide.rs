//! A decision guide (` ```guide ` block, `lesson::guide`): one question at a time; each
//! answer shows its note and leads on, and an earlier answer can be changed, which
//! drops the answers after it. The recommendation is announced when it is reached.
//! The answers survive a reload (browser storage, one key per guide).

use crate::lesson::content::Lang;
use crate::lesson::guide::{self, Guide, Then};
use crate::lesson::i18n::{k, Texts};
use crate::ui::browser;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct GuideProps {
    pub code: String,
    pub lang: Lang,
}

fn text(t: &str) -> Html {
    guide::spans(t)
        .into_iter()
        .map(|(code, s)| {
            if code {
                html! { <code>{ s }</code> }
            } else {
                html! { { s } }
            }
        })
        .collect()
}

/// Where a guide's answers are kept: one key per guide text (a pack's guide and the
/// built-in one never share answers; an edited guide starts afresh).
fn storage_key(code: &str) -> String {
    let digest = sha1_smol::Sha1::from(code).digest().to_string();
    format!("lockstep.guide.{}", digest.get(..12).unwrap_or(&digest))
}

/// `0.1,2.0`: question.answer pairs in the order they were picked.
fn encode(picks: &[(usize, usize)]) -> String {
    picks
        .iter()
        .map(|(q, a)| format!("{q}.{a}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The inverse of `encode`; anything unreadable ends the list there. The walk below
/// stops at a pick that does not belong to the question shown, so a stale or edited
/// entry can never show an answer the guide does not lead to.
fn decode(s: &str) -> Vec<(usize, usize)> {
    s.split(',')
        .map_while(|pair| {
            let (q, a) = pair.split_once('.')?;
            Some((q.parse().ok()?, a.parse().ok()?))
        })
        .collect()
}

#[function_component(GuideView)]
pub fn guide_view(props: &GuideProps) -> Html {
    let tx = Texts::new(props.lang);
    let parsed = use_memo(props.code.clone(), |code| guide::parse(code).ok().map(Rc::new));
    // The answer picked at each question on the way, in order; kept in storage per
    // guide text, so a reload (or coming back) finds the same path.
    let key = use_memo(props.code.clone(), |code| storage_key(code));
    let picks = {
        let key = key.clone();
        use_state(move || {
            browser::storage_get(&key)
                .ok()
                .flatten()
                .map(|s| decode(&s))
                .unwrap_or_default()
        })
    };
    let Some(g) = (*parsed).clone() else {
        // The loaders refuse a broken guide, so this only shows the text as written.
        return html! { <pre><code>{ props.code.clone() }</code></pre> };
    };
    let g: Rc<Guide> = g;
    let total = g.questions.len();
    let pick = |at: usize, q: usize, a: usize| {
        let picks = picks.clone();
        let key = key.clone();
        Callback::from(move |_| {
            let mut next: Vec<(usize, usize)> = picks.iter().take(at).copied().collect();
            next.push((q, a));
            // Storage refused (private mode, full): the guide still works for this visit.
            let _ = browser::storage_set(&key, &encode(&next));
            picks.set(next);
        })
    };
    // Walk the picks: every question shown so far, then where they lead.
    let mut shown = Vec::new();
    let mut current = Some(0usize);
    let mut outcome = None;
    for (at, (q, a)) in picks.iter().enumerate() {
        if current != Some(*q) {
            break;
        }
        shown.push((at, *q, Some(*a)));
        match g
            .questions
            .get(*q)
            .and_then(|qq| qq.answers.get(*a))
            .map(|x| &x.then)
        {
            Some(Then::Question { index, .. }) => current = Some(*index),
            Some(Then::Outcome(o)) => {
                outcome = Some(o.clone());
                current = None;
            }
            None => current = None,
        }
    }
    if let Some(q) = current {
        shown.push((shown.len(), q, None));
    }
    let on_again = {
        let picks = picks.clone();
        let key = key.clone();
        Callback::from(move |_| {
            browser::storage_remove(&key);
            picks.set(Vec::new())
        })
    };
    html! {
        <div class="guide" role="group" aria-label={tx.t(k::GUIDE_LABEL)}>
            { for shown.iter().map(|(at, q, chosen)| {
                let Some(question) = g.questions.get(*q) else { return html! {} };
                let note = chosen.and_then(|a| match question.answers.get(a).map(|x| &x.then) {
                    Some(Then::Question { note: Some(n), .. }) => Some(n.clone()),
                    _ => None,
                });
                let id = format!("guide-q-{q}");
                html! {
                    <div class="guide-step" role="group" aria-labelledby={id.clone()}>
                        <p class="guide-question" id={id}>
                            <span class="guide-count">{ tx.fmt(k::GUIDE_QUESTION, &[("n", (q + 1).to_string()), ("total", total.to_string())]) }</span>
                            { " " }{ text(&question.text) }
                        </p>
                        <div class="guide-answers">
                            { for question.answers.iter().enumerate().map(|(a, ans)| html! {
                                <button type="button" aria-pressed={(*chosen == Some(a)).to_string()} onclick={pick(*at, *q, a)}>{ text(&ans.text) }</button>
                            }) }
                        </div>
                        if let Some(n) = note { <p class="guide-note">{ text(&n) }</p> }
                    </div>
                }
            }) }
            <div role="status" class="guide-status">
                if let Some(o) = &outcome {
                    <p class="guide-result"><strong>{ format!("{} ", tx.t(k::GUIDE_RESULT)) }</strong>{ text(o) }</p>
                }
            </div>
            if !picks.is_empty() {
                <button type="button" class="guide-again" onclick={on_again}>{ tx.t(k::GUIDE_AGAIN) }</button>
            }
        </div>
    }
}
