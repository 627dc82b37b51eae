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

/// What draws a fenced block whose language names a panel (```scenario, ```lab, …): the
/// panel, or `None` to show the block as code. The panels are drawn above this module
/// (a lab renders its goal here), so each caller says which it draws.
pub type Panels = fn(block: &str, code: &str, lang: Lang) -> Option<Html>;

/// `nodes` as yew nodes, a fenced block that names a panel drawn by `panels`.
pub fn render(nodes: &[Node], lang: Lang, panels: Panels) -> Html {
    nodes
        .iter()
        .map(|n| render_node(n, lang, panels))
        .collect::<Html>()
}

fn render_node(node: &Node, lang: Lang, panels: Panels) -> Html {
    match node {
        Node::Text(t) => html! { { t.clone() } },
        Node::InlineCode(c) => html! { <code>{ c.clone() }</code> },
        Node::CodeBlock {
            lang: code_lang,
            code,
        } => match code_lang.as_deref().and_then(|l| panels(l, code, lang)) {
            Some(panel) => panel,
            None => html! {
                <CodeBlock lang={code_lang.clone()} code={code.clone()} ui_lang={lang} />
            },
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
                    { render(children, lang, panels) }
                </a>
            }
        }
        Node::Element { tag, start, children } => {
            let start = start.map(|s| s.to_string());
            // Wide tables scroll inside their own box on phones.
            if *tag == "table" {
                return html! {
                    <div class="table-wrap" tabindex="0"><table>{ render(children, lang, panels) }</table></div>
                };
            }
            html! {
                <@{tag.to_string()} start={start}>{ render(children, lang, panels) }</@>
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
            // A paragraph holds no fenced block, so no panel.
            } => out.push(render(children, lang, |_, _, _| None)),
            other => out.push(html! { { other.text() } }),
        }
    }
    out.into_iter().collect::<Html>()
}
