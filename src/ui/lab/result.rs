//! A lab's result for people: the verdict and its checks, the broken run on the
//! timeline with the moment it broke, and the attacks and violations in words.

use super::link::copy_link;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::lesson::progress::{LabProgress, LabStatus};
use crate::timeline;
use crate::timeline::lab_panel::{Broken, LabAction, LinkKind, Shown};
use crate::ui::browser;
use yew::prelude::*;

/// Where the learner stands with this lab, true to the code saved from the editor: passed
/// on a day, or passed before with other code. Read from their progress, so it is there
/// after a reload.
pub(super) fn standing_view(saved: Option<&LabProgress>, lang: Lang) -> Html {
    let t = Texts::new(lang);
    let (key, on, class) = match saved.map(LabProgress::status) {
        Some(LabStatus::Passed { on }) => (k::LAB_STANDING_PASSED, on, "lab-standing lab-passed"),
        Some(LabStatus::Tried {
            passed_before: Some(on),
        }) => (k::LAB_STANDING_BEFORE, on, "lab-standing"),
        _ => return html! {},
    };
    html! { <p class={class}>{ t.fmt(key, &[("date", browser::local_date(on, lang))]) }</p> }
}

/// The hint ladder of the check the broken run broke first: one rung per click, each
/// read out as it comes, from the counterexample's own facts to the shape of the code.
pub(super) fn hints_view(b: &Broken, shown: u8, lang: Lang, dispatch: &Callback<LabAction>) -> Html {
    use crate::timeline::lab_panel::{hint, hint_check, HINTS};
    let Some(check) = hint_check(b) else {
        return html! {};
    };
    let t = Texts::new(lang);
    let fact = b
        .violations
        .first()
        .map(|v| violation_text(v, lang))
        .unwrap_or_default();
    html! {
        <div class="lab-hints">
            <ol aria-label={t.t(k::LAB_HINTS)} aria-live="polite">
                { for (1..=shown).map(|n| html! { <li>{ hint(&t, check, n, &fact) }</li> }) }
            </ol>
            if shown < HINTS {
                <button type="button" onclick={dispatch.reform(|_: MouseEvent| LabAction::Hint)}>
                    { t.fmt(k::LAB_HINT_BUTTON, &[("n", (shown + 1).to_string()), ("of", HINTS.to_string())]) }
                </button>
            }
        </div>
    }
}

pub(super) use crate::timeline::words::lab::{attack as attack_text, check, violation as violation_text};

pub(super) fn result_view(s: &Shown, lang: Lang, goto_line: &impl Fn(u32) -> Callback<MouseEvent>) -> Html {
    let t = Texts::new(lang);
    let headline = if let Some(e) = &s.code_error {
        let message = crate::timeline::words::lab::code_error(e, lang);
        let msg = match (e.line, e.col) {
            (Some(l), Some(c)) => t.fmt(
                k::LAB_CODE_FAILED_AT,
                &[
                    ("line", l.to_string()),
                    ("col", c.to_string()),
                    ("message", message),
                ],
            ),
            _ => t.fmt(k::LAB_CODE_FAILED, &[("message", message)]),
        };
        let who = e.worker.clone().map(|w| format!("{w}: ")).unwrap_or_default();
        // An infinite loop: the function it never left, where the sandbox could tell.
        let within = e
            .within
            .as_ref()
            .map(|f| format!(" {}", t.fmt(k::LAB_CODE_WITHIN, &[("fn", f.clone())])))
            .unwrap_or_default();
        html! {
            <div class="lab-verdict lab-failed" role="alert">
                <p>{ who }{ msg }{ within }</p>
                if let Some(l) = e.line {
                    <button type="button" onclick={goto_line(l)}>{ t.fmt(k::LAB_GOTO_LINE, &[("line", l.to_string())]) }</button>
                }
            </div>
        }
    } else if s.cancelled {
        html! { <p class="lab-verdict">{ t.fmt(k::LAB_CANCELLED, &[("done", s.trials.to_string())]) }</p> }
    } else if let Some(b) = &s.broken {
        let text = if s.break_it {
            t.fmt(
                k::LAB_BROKEN_TRIAL,
                &[
                    ("trial", b.trial.to_string()),
                    ("total", s.total.to_string()),
                    ("seed", b.seed.to_string()),
                ],
            )
        } else {
            t.fmt(k::LAB_BROKEN_RUN, &[("seed", b.seed.to_string())])
        };
        html! { <p class="lab-verdict lab-failed" role="alert">{ text }</p> }
    } else if s.break_it {
        html! { <p class="lab-verdict lab-passed">{ t.fmt(k::LAB_PASSED_BREAK, &[("trials", s.trials.to_string()), ("seed", s.seed.to_string())]) }</p> }
    } else {
        html! { <p class="lab-verdict lab-passed">{ t.fmt(k::LAB_PASSED_RUN, &[("seed", s.seed.to_string())]) }</p> }
    };
    let checks = (s.code_error.is_none() && !s.cancelled).then(|| {
        html! {
            // Where the trials ran and the failing one was replayed (e2e/lab.mjs reads it):
            // the engine's workers, always; the page has no engine.
            <ul class="lab-checks" aria-label={t.t(k::LAB_CHECKS)} data-ran-in="worker" data-drawn-in={s.broken.is_some().then_some("worker")}>
                { for s.checks.iter().map(|(name, ok)| html! {
                    <li class={if *ok { "held" } else { "broken" }} data-check={name.clone()}>
                        <span aria-hidden="true">{ if *ok { "✓ " } else { "✗ " } }</span>
                        <strong>{ if *ok { t.t(k::LAB_CHECK_HELD) } else { t.t(k::LAB_CHECK_BROKEN) } }</strong>
                        { ": " }{ check(name, *ok, lang) }
                    </li>
                }) }
            </ul>
        }
    });
    html! {
        <>
            { headline }
            { checks.unwrap_or_default() }
        </>
    }
}

/// Violations listed in words; the rest are counted (a first break often cascades).
pub(super) const SHOWN_VIOLATIONS: usize = 3;

/// The broken run: its attacks and violations in words, and its timeline with the cursor
/// the panel's state holds (opened where it broke: `Broken::broke_at`).
/// The broken run on the timeline; `link` is a link to this run, with the code that ran,
/// and whether it was just copied.
pub(super) fn broken_view(
    b: &Broken,
    lang: Lang,
    (cursor, zoomed): (usize, Option<(u64, u64)>),
    dispatch: &Callback<LabAction>,
    (link, copied): (Option<String>, bool),
) -> Html {
    let t = Texts::new(lang);
    let m = b.model.clone();
    let workers: Vec<String> = {
        let mut pids: Vec<u32> = m
            .trace
            .iter()
            .filter(|e| matches!(e.kind, crate::sim::TraceKind::Start))
            .map(|e| e.pid)
            .collect();
        pids.dedup();
        let mut seen = Vec::new();
        for p in pids {
            let n = m.name(p).to_string();
            if !seen.contains(&n) {
                seen.push(n);
            }
        }
        seen
    };
    let last = m.trace.len().saturating_sub(1);
    let at = cursor.min(last);
    let t_us = m.trace.get(at).map_or(0, |e| e.t_us);
    let view = zoomed.unwrap_or_else(|| b.first_view());
    let zoom = |f: f64| dispatch.reform(move |_: MouseEvent| LabAction::Zoom(f));
    let whole = view == (0, m.end_us.max(1));
    let step = |d: i64| dispatch.reform(move |_: MouseEvent| LabAction::Step(d));
    let on_jump = dispatch.reform(|_: MouseEvent| LabAction::JumpToBreak);
    let on_seek = dispatch.reform(LabAction::Seek);
    let on_share = {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(link) = &link {
                copy_link(LinkKind::Run, link.clone(), dispatch.clone());
            }
        })
    };
    let now = m
        .trace
        .get(at)
        .map(|e| timeline::describe(&m, e, lang))
        .unwrap_or_default();
    html! {
        <div class="lab-broken">
            <ul class="lab-attacks">
                { for b.attacks.iter().map(|a| html! { <li>{ attack_text(a, &workers, lang) }</li> }) }
            </ul>
            <ul class="lab-violations">
                { for b.violations.iter().take(SHOWN_VIOLATIONS).map(|v| html! { <li>{ violation_text(v, lang) }</li> }) }
                if b.violations.len() > SHOWN_VIOLATIONS {
                    <li class="lab-more">{ t.fmt(k::LAB_MORE, &[("n", (b.violations.len() - SHOWN_VIOLATIONS).to_string())]) }</li>
                }
            </ul>
            if let Some(line) = b.sent_from_line() {
                <p class="lab-sent">{ t.fmt(k::LAB_SENT_FROM, &[("line", line.to_string())]) }</p>
            }
            <h3>{ t.t(k::LAB_TIMELINE) }</h3>
            <div class="timeline-wrap">
                <crate::ui::scenario::TimelineSvg model={crate::ui::scenario::Shared(m.clone())} {t_us} cursor={at} {view} {on_seek} {lang} slices=true />
            </div>
            <div class="lab-actions">
                <button type="button" onclick={step(-1)} disabled={at == 0}>{ t.t(k::LAB_PREV) }</button>
                <button type="button" onclick={step(1)} disabled={at >= last}>{ t.t(k::LAB_NEXT) }</button>
                <button type="button" onclick={on_jump}>{ t.t(k::LAB_JUMP) }</button>
                <span class="zoom-buttons">
                    <button type="button" aria-label={t.t(k::SC_ZOOM_IN)} title={t.t(k::SC_ZOOM_IN)} onclick={zoom(0.5)}
                            disabled={view.1 - view.0 <= timeline::view::MIN_SPAN_US}>{"+"}</button>
                    <button type="button" aria-label={t.t(k::SC_ZOOM_OUT)} title={t.t(k::SC_ZOOM_OUT)} onclick={zoom(2.0)} disabled={whole}>{"−"}</button>
                </span>
                <button type="button" class="quiet" onclick={on_share}>{ if copied { t.t(k::LAB_LINK_COPIED) } else { t.t(k::LAB_SHARE) } }</button>
            </div>
            <p class="lab-now" aria-live="polite">{ now }</p>
        </div>
    }
}
