//! Renders the safe document tree from `lesson::markdown` as yew nodes.
//! Tags come from that module's allowlist; text is always text (never parsed as HTML).

use super::CodeBlock;
use crate::lesson::content::Lang;
use crate::lesson::markdown::Node;
use yew::prelude::*;

/// The tree of `text` (`lesson::docs::doc`). A text shown plain because its tree was
/// found nowhere is counted on the page, `<html data-markdown-misses="N">`, for the
/// end-to-end checks.
pub fn doc(text: &str) -> Vec<Node> {
    let before = crate::lesson::docs::misses();
    let nodes = crate::lesson::docs::doc(text);
    let now = crate::lesson::docs::misses();
    if now != before {
        if let Some(html) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = html.set_attribute("data-markdown-misses", &now.to_string());
        }
    }
    nodes
}

/// Asks the engine for the trees of those of `texts` not known yet (a pack's, a
/// generated question's), and keeps them; without the engine they stay unknown and are
/// shown as plain text.
pub async fn learn_trees(texts: Vec<String>) {
    let texts = crate::lesson::docs::unknown(texts);
    if texts.is_empty() {
        return;
    }
    let request = crate::calls::Request::Markdown(texts.clone());
    if let Some(crate::calls::Answer::Markdown(trees)) = crate::ui::engine_worker::call(request).await {
        if trees.len() == texts.len() {
            crate::lesson::docs::learn(texts.into_iter().zip(trees));
        }
    }
}

pub fn render(nodes: &[Node], lang: Lang) -> Html {
    nodes.iter().map(|n| render_node(n, lang)).collect::<Html>()
}

fn render_node(node: &Node, lang: Lang) -> Html {
    match node {
        Node::Text(t) => html! { { t.clone() } },
        Node::InlineCode(c) => html! { <code>{ c.clone() }</code> },
        // ```scenario blocks name built-in scenarios to play here; ```console opens §2's
        // Redis console.
        Node::CodeBlock { lang: Some(l), code } if l == "scenario" => {
            let names: Vec<String> = code.split_whitespace().map(str::to_string).collect();
            // Keyed by its scenarios: moving to another section must start that section's
            // panel afresh, not hand new names to the old panel (whose state would keep
            // the old section's scenario).
            let key = names.join(" ");
            html! { <crate::ui::scenario::ScenarioPanel {key} {names} {lang} /> }
        }
        Node::CodeBlock { lang: Some(l), code } if l == "guide" => {
            html! { <super::GuideView code={code.clone()} {lang} /> }
        }
        // ```lab blocks name a lab (labs/<id>/) to write and run here.
        Node::CodeBlock { lang: Some(l), code } if l == "lab" => lab_view(code.trim(), lang),
        Node::CodeBlock { lang: Some(l), .. } if l == "console" => {
            html! { <crate::ui::scenario::ConsoleExercise {lang} /> }
        }
        Node::CodeBlock {
            lang: code_lang,
            code,
        } => html! {
            <CodeBlock lang={code_lang.clone()} code={code.clone()} ui_lang={lang} />
        },
        Node::Link {
            href,
            title,
            children,
        } => {
            let external = !href.starts_with('#');
            html! {
                <a href={href.clone()}
                   title={(!title.is_empty()).then(|| title.clone())}
                   target={external.then_some("_blank")}
                   rel={external.then_some("noopener noreferrer")}>
                    { render(children, lang) }
                </a>
            }
        }
        Node::Element { tag, start, children } => {
            let start = start.map(|s| s.to_string());
            // Wide tables scroll inside their own box on phones.
            if *tag == "table" {
                return html! {
                    <div class="table-wrap" tabindex="0"><table>{ render(children, lang) }</table></div>
                };
            }
            html! {
                <@{tag.to_string()} start={start}>{ render(children, lang) }</@>
            }
        }
    }
}

/// Renders a short text (a prompt, an option) with inline Markdown only: code spans,
/// emphasis and safe links. Paragraphs become line breaks, so the result is phrasing
/// content that may sit inside a `<legend>` or a `<label>`.
pub fn render_inline(text: &str, lang: Lang) -> Html {
    let nodes = crate::lesson::docs::doc(text);
    let mut out: Vec<Html> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        if i > 0 {
            out.push(html! { <><br /><br /></> });
        }
        match node {
            Node::Element {
                tag: "p", children, ..
            } => out.push(render(children, lang)),
            other => out.push(html! { { other.text() } }),
        }
    }
    out.into_iter().collect::<Html>()
}

/// A lab, where a section (or an embed of one lab) shows it.
pub fn lab_view(id: &str, lang: Lang) -> Html {
    let id = id.to_string();
    // The page's module (`lab-apart`) loads the panel's own module for it.
    #[cfg(feature = "lab-apart")]
    return html! { <crate::ui::lab_host::LabHost key={id.clone()} id={id.clone()} {lang} /> };
    #[cfg(not(feature = "lab-apart"))]
    html! { <crate::ui::lab::LabPanel key={id.clone()} id={id.clone()} {lang} /> }
}
