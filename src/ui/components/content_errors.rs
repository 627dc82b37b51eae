use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ContentErrorsProps {
    pub errors: Vec<String>,
}

/// Shown instead of the lesson when its files have mistakes: every mistake, with its
/// file, line and field, so the author can fix them all in one go.
pub fn content_errors(props: &ContentErrorsProps) -> Html {
    let t = Texts::new(Lang::En);
    html! {
        <main class="content-errors" role="alert">
            <h1>{ t.t(k::CONTENT_ERROR_TITLE) }</h1>
            <ul>{ for props.errors.iter().map(|e| html! { <li><code>{ e.clone() }</code></li> }) }</ul>
        </main>
    }
}
