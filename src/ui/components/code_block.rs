use crate::lesson::content::Lang;
use crate::lesson::highlight::highlight;
use crate::lesson::i18n::{k, Texts};
use crate::ui::browser;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CodeBlockProps {
    pub lang: Option<String>,
    pub code: String,
    pub ui_lang: Lang,
}

/// A highlighted, monospaced, copyable code block.
#[function_component(CodeBlock)]
pub fn code_block(props: &CodeBlockProps) -> Html {
    let t = Texts::new(props.ui_lang);
    // None: not yet; Some(false): the browser refused.
    let copied = use_state(|| None::<bool>);
    let on_copy = {
        let code = props.code.clone();
        let copied = copied.clone();
        Callback::from(move |_| {
            let copied = copied.clone();
            browser::copy_then(code.clone(), move |ok| copied.set(Some(ok)));
        })
    };
    let label = crate::lesson::highlight::code_label(props.lang.as_deref());
    html! {
        <figure class="code">
            <div class="code-bar">
                if let Some(label) = label {
                    <span class="code-lang">{ label }</span>
                }
                <button type="button" class="copy" aria-label={t.t(k::COPY_CODE)} onclick={on_copy}>
                    { match *copied { Some(true) => t.t(k::COPIED), Some(false) => t.t(k::COPY_BLOCKED_SHORT), None => t.t(k::COPY) } }
                </button>
            </div>
            <pre tabindex="0"><code class={props.lang.as_ref().map(|l| format!("language-{l}"))}>
                { for highlight(props.lang.as_deref(), &props.code).into_iter().map(|(kind, text)| {
                    let class = kind.css_class();
                    if class.is_empty() { html! { { text } } } else { html! { <span class={class}>{ text }</span> } }
                }) }
            </code></pre>
        </figure>
    }
}
