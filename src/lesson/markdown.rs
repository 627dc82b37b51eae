//! Markdown → a small, safe document tree that `ui` turns into DOM nodes.
//!
//! Built from pulldown-cmark's events. What is safe by construction:
//! - only the tags in [`Node::Element`]'s allowlist exist; raw HTML becomes inert text;
//! - links keep their target only if it is `http(s)://` or an in-app route (`#/…`);
//!   any other link (e.g. `javascript:`) is rendered as its text alone;
//! - images are rendered as their alt text;
//! - the tree is never deeper than [`MAX_DEPTH`]: containers nested deeper are flattened
//!   into their parent, so walking or dropping a tree can never exhaust the stack (a pack
//!   is rejected before that, by [`too_deep`]).

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// The deepest nesting of blocks and inline elements (quotes in lists in quotes, emphasis
/// in links…) a document may have. Real prose stays far below it; a lesson pack deeper
/// than this is rejected with the line, and [`parse`] flattens anything deeper.
pub const MAX_DEPTH: usize = 32;

/// The byte offset where the nesting of `markdown` first goes deeper than [`MAX_DEPTH`],
/// with that depth; `None` if it never does. Linear in the text, no recursion.
pub fn too_deep(markdown: &str) -> Option<(usize, usize)> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(markdown, options).into_offset_iter() {
        match event {
            Event::Start(_) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some((range.start, depth));
                }
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// One node of a rendered document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Text(String),
    /// An element from a fixed allowlist (`p`, `h2`, `ul`, `table`, …).
    Element {
        tag: &'static str,
        start: Option<u64>,
        children: Vec<Node>,
    },
    /// A link whose `href` passed [`safe_href`].
    Link {
        href: String,
        title: String,
        children: Vec<Node>,
    },
    InlineCode(String),
    CodeBlock {
        lang: Option<String>,
        code: String,
    },
}

impl Node {
    /// The text content, as `textContent` would give it (walked with a stack, not
    /// recursion).
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut todo: Vec<&Node> = vec![self];
        while let Some(n) = todo.pop() {
            match n {
                Node::Text(t) | Node::InlineCode(t) => out.push_str(t),
                Node::CodeBlock { code, .. } => out.push_str(code),
                Node::Element { children, .. } | Node::Link { children, .. } => {
                    todo.extend(children.iter().rev())
                }
            }
        }
        out
    }

    /// The children of an element or link (none for the others).
    pub fn children(&self) -> &[Node] {
        match self {
            Node::Element { children, .. } | Node::Link { children, .. } => children,
            _ => &[],
        }
    }
}

/// Every node of `nodes` and of their descendants, parents before children, in document
/// order; iterative, so any depth is safe.
pub fn walk(nodes: &[Node]) -> Vec<&Node> {
    let mut out = Vec::new();
    let mut todo: Vec<&Node> = nodes.iter().rev().collect();
    while let Some(n) = todo.pop() {
        out.push(n);
        todo.extend(n.children().iter().rev());
    }
    out
}

/// `Some(href)` if the link target may be rendered as a link.
pub fn safe_href(dest: &str) -> Option<String> {
    let d = dest.trim();
    let lower = d.to_ascii_lowercase();
    let ok = lower.starts_with("https://") || lower.starts_with("http://") || d.starts_with("#/");
    // Control characters could hide a scheme from a naive check; refuse them outright.
    (ok && !d.chars().any(char::is_control)).then(|| d.to_string())
}

struct Frame {
    /// `None` for a transparent container whose children go to the parent.
    kind: Option<FrameKind>,
    children: Vec<Node>,
}

enum FrameKind {
    Element(&'static str, Option<u64>),
    Link(Option<String>, String),
    Code(Option<String>),
    ImageAlt,
}

/// Parses Markdown into the safe tree.
pub fn parse(markdown: &str) -> Vec<Node> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut stack: Vec<Frame> = vec![Frame {
        kind: None,
        children: Vec::new(),
    }];
    let mut in_table_head = false;
    let mut tbody_open = false;

    fn push(stack: &mut [Frame], node: Node) {
        if let Some(top) = stack.last_mut() {
            top.children.push(node);
        }
    }
    fn open(stack: &mut Vec<Frame>, kind: Option<FrameKind>) {
        // Past the bound a container is transparent: its children go to the parent, so
        // the tree stays shallow whatever the input (a code block keeps its frame: its
        // text must not leak out as prose).
        let kind = match kind {
            Some(FrameKind::Code(_)) => kind,
            _ if stack.len() > MAX_DEPTH => None,
            _ => kind,
        };
        stack.push(Frame {
            kind,
            children: Vec::new(),
        });
    }
    fn close(stack: &mut Vec<Frame>) {
        if stack.len() < 2 {
            return; // unbalanced end: ignore rather than lose the root
        }
        let Some(mut frame) = stack.pop() else { return };
        frame.children = merge_text(frame.children);
        let node = match frame.kind {
            None => {
                for c in frame.children {
                    push(stack, c);
                }
                return;
            }
            Some(FrameKind::Element(tag, start)) => Node::Element {
                tag,
                start,
                children: frame.children,
            },
            Some(FrameKind::Link(Some(href), title)) => Node::Link {
                href,
                title,
                children: frame.children,
            },
            Some(FrameKind::Link(None, _)) | Some(FrameKind::ImageAlt) => {
                for c in frame.children {
                    push(stack, c);
                }
                return;
            }
            Some(FrameKind::Code(lang)) => Node::CodeBlock {
                lang,
                code: frame.children.iter().map(Node::text).collect(),
            },
        };
        push(stack, node);
    }
    let el = |tag: &'static str| Some(FrameKind::Element(tag, None));

    for event in Parser::new_ext(markdown, options) {
        match event {
            Event::Start(tag) => match tag {
                Tag::Paragraph => open(&mut stack, el("p")),
                Tag::Heading { level, .. } => open(&mut stack, el(heading_tag(level as u8))),
                Tag::BlockQuote(_) => open(&mut stack, el("blockquote")),
                Tag::CodeBlock(kind) => {
                    let lang = match kind {
                        CodeBlockKind::Fenced(info) => {
                            info.split_whitespace().next().map(|s| s.to_ascii_lowercase())
                        }
                        CodeBlockKind::Indented => None,
                    };
                    open(&mut stack, Some(FrameKind::Code(lang)));
                }
                Tag::List(Some(start)) => open(
                    &mut stack,
                    Some(FrameKind::Element("ol", (start != 1).then_some(start))),
                ),
                Tag::List(None) => open(&mut stack, el("ul")),
                Tag::Item => open(&mut stack, el("li")),
                Tag::Table(_) => {
                    tbody_open = false;
                    open(&mut stack, el("table"));
                }
                Tag::TableHead => {
                    in_table_head = true;
                    open(&mut stack, el("thead"));
                    open(&mut stack, el("tr"));
                }
                Tag::TableRow => {
                    if !tbody_open {
                        tbody_open = true;
                        open(&mut stack, el("tbody"));
                    }
                    open(&mut stack, el("tr"));
                }
                Tag::TableCell => open(&mut stack, el(if in_table_head { "th" } else { "td" })),
                Tag::Emphasis => open(&mut stack, el("em")),
                Tag::Strong => open(&mut stack, el("strong")),
                Tag::Strikethrough => open(&mut stack, el("del")),
                Tag::Link { dest_url, title, .. } => open(
                    &mut stack,
                    Some(FrameKind::Link(safe_href(&dest_url), title.to_string())),
                ),
                Tag::Image { .. } => open(&mut stack, Some(FrameKind::ImageAlt)),
                // Raw HTML blocks, footnotes, metadata…: keep their text, drop the wrapper.
                _ => open(&mut stack, None),
            },
            Event::End(end) => {
                match end {
                    TagEnd::TableHead => {
                        close(&mut stack); // tr
                        in_table_head = false;
                    }
                    TagEnd::Table if tbody_open => {
                        close(&mut stack); // tbody
                        tbody_open = false;
                    }
                    _ => {}
                }
                close(&mut stack);
            }
            Event::Text(t) => push(&mut stack, Node::Text(t.to_string())),
            Event::Code(t) => push(&mut stack, Node::InlineCode(t.to_string())),
            // Never injected: raw HTML is shown as the text it is.
            Event::Html(t) | Event::InlineHtml(t) => push(&mut stack, Node::Text(t.to_string())),
            Event::SoftBreak => push(&mut stack, Node::Text("\n".into())),
            Event::HardBreak => push(
                &mut stack,
                Node::Element {
                    tag: "br",
                    start: None,
                    children: vec![],
                },
            ),
            Event::Rule => push(
                &mut stack,
                Node::Element {
                    tag: "hr",
                    start: None,
                    children: vec![],
                },
            ),
            Event::TaskListMarker(done) => {
                push(&mut stack, Node::Text(if done { "☑ " } else { "☐ " }.into()))
            }
            Event::FootnoteReference(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                push(&mut stack, Node::Text(t.to_string()))
            }
        }
    }
    while stack.len() > 1 {
        close(&mut stack);
    }
    stack.pop().map(|f| merge_text(f.children)).unwrap_or_default()
}

fn heading_tag(level: u8) -> &'static str {
    match level {
        1 => "h1",
        2 => "h2",
        3 => "h3",
        4 => "h4",
        5 => "h5",
        _ => "h6",
    }
}

/// Joins adjacent text nodes of one list (pulldown-cmark splits text at entities and
/// breaks). Children were merged when their frame closed, so this is not recursive.
fn merge_text(nodes: Vec<Node>) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::with_capacity(nodes.len());
    for node in nodes {
        match (out.last_mut(), node) {
            (Some(Node::Text(prev)), Node::Text(t)) => prev.push_str(&t),
            (_, node) => out.push(node),
        }
    }
    out
}

/// Every link target in a document (safe ones only), for link checking.
pub fn links(nodes: &[Node]) -> Vec<String> {
    walk(nodes)
        .into_iter()
        .filter_map(|n| match n {
            Node::Link { href, .. } => Some(href.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(tag: &'static str, children: Vec<Node>) -> Node {
        Node::Element {
            tag,
            start: None,
            children,
        }
    }
    fn t(s: &str) -> Node {
        Node::Text(s.into())
    }

    #[test]
    fn paragraphs_headings_and_emphasis() {
        let doc = parse("## Title\n\nSome *em* and **strong** and `code`.\n");
        assert_eq!(
            doc,
            vec![
                el("h2", vec![t("Title")]),
                el(
                    "p",
                    vec![
                        t("Some "),
                        el("em", vec![t("em")]),
                        t(" and "),
                        el("strong", vec![t("strong")]),
                        t(" and "),
                        Node::InlineCode("code".into()),
                        t("."),
                    ]
                ),
            ]
        );
    }

    #[test]
    fn fenced_code_keeps_language_and_text() {
        let doc = parse("```lua\nreturn redis.call('get', KEYS[1])\n```\n");
        assert_eq!(
            doc,
            vec![Node::CodeBlock {
                lang: Some("lua".into()),
                code: "return redis.call('get', KEYS[1])\n".into()
            }]
        );
    }

    #[test]
    fn raw_html_is_inert_text() {
        let doc = parse("<script>alert(1)</script>\n\nA <b onclick=\"x()\">b</b> c\n");
        let all: String = doc.iter().map(Node::text).collect();
        assert!(all.contains("<script>alert(1)</script>"));
        assert!(all.contains("<b onclick=\"x()\">"));
        fn no_script(nodes: &[Node]) -> bool {
            nodes.iter().all(|n| match n {
                Node::Element { tag, children, .. } => *tag != "script" && *tag != "b" && no_script(children),
                Node::Link { children, .. } => no_script(children),
                _ => true,
            })
        }
        assert!(no_script(&doc));
    }

    #[test]
    fn only_safe_links_survive() {
        let doc = parse("[a](https://redis.io) [b](javascript:alert(1)) [c](#/distributed-locks/3) [d](data:text/html,x) [e](JavaScript:x)");
        assert_eq!(
            links(&doc),
            vec![
                "https://redis.io".to_string(),
                "#/distributed-locks/3".to_string()
            ]
        );
        let text: String = doc.iter().map(Node::text).collect();
        assert!(text.contains('b') && text.contains('d') && text.contains('e'));
    }

    #[test]
    fn images_become_alt_text() {
        let doc = parse("![a diagram](https://example.com/x.png)");
        assert_eq!(doc, vec![el("p", vec![t("a diagram")])]);
    }

    #[test]
    fn tables_get_head_and_body() {
        let doc = parse("| t | who |\n|---|---|\n| 0 | A |\n| 5 | B |\n");
        let Node::Element {
            tag: "table",
            children,
            ..
        } = &doc[0]
        else {
            panic!("{doc:?}")
        };
        assert_eq!(children.len(), 2);
        assert!(matches!(&children[0], Node::Element { tag: "thead", .. }));
        let Node::Element {
            tag: "tbody",
            children: rows,
            ..
        } = &children[1]
        else {
            panic!()
        };
        assert_eq!(rows.len(), 2);
        assert_eq!(children[0].text(), "twho");
    }

    #[test]
    fn ordered_list_start() {
        let doc = parse("3. three\n4. four\n");
        assert!(matches!(
            doc[0],
            Node::Element {
                tag: "ol",
                start: Some(3),
                ..
            }
        ));
        let doc = parse("1. one\n");
        assert!(matches!(
            doc[0],
            Node::Element {
                tag: "ol",
                start: None,
                ..
            }
        ));
    }

    #[test]
    fn garbage_never_panics() {
        for s in [
            "",
            "*",
            "[",
            "```",
            "|a|\n|-|",
            "<!--",
            "\u{0}",
            "> > > >",
            "[x](<>)",
            "1.\n\n\n2.",
        ] {
            let _ = parse(s);
        }
    }
}
