//! A lesson pack that could not be opened (its address answers 404, it cannot be
//! fetched, or its files have mistakes): what was asked for, what went wrong, and the
//! way to the built-in lesson, so the learner is never left at a dead end.

use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PackFailedProps {
    pub lang: Lang,
    /// The pack asked for (`?pack=`).
    pub source: String,
    /// Every mistake, with its file, line and field where it has them.
    pub errors: Vec<String>,
    /// The address of the built-in lesson: this page without `pack=`.
    pub builtin: String,
}

pub fn pack_failed(props: &PackFailedProps) -> Html {
    let t = Texts::new(props.lang);
    html! {
        <>
            <header class="topbar">
                <div class="brand">
                    <span class="brand-name">{ t.t(k::APP_NAME) }</span>
                    <span class="brand-tagline">{ t.t(k::TAGLINE) }</span>
                </div>
            </header>
            <main id="main" class="content-errors pack-failed" role="alert" tabindex="-1">
                <h1>{ t.t(k::PACK_FAILED_TITLE) }</h1>
                <p>{ t.fmt(k::PACK_FAILED_BODY, &[("source", props.source.clone())]) }</p>
                <ul>{ for props.errors.iter().map(|e| html! { <li><code>{ e.clone() }</code></li> }) }</ul>
                <p><a class="pack-failed-builtin" href={props.builtin.clone()}>{ t.t(k::PACK_FAILED_BUILTIN) }</a></p>
            </main>
        </>
    }
}
