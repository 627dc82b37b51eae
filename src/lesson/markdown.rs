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
//!
//! The page's module parses no Markdown (it is built without `page-engine`, and
//! pulldown-cmark with its entity table is about 66 KB gzip of it): a tree travels as the
//! compact text [`encode`] writes and [`decode`] reads, made where the Markdown was made
//! (by `build.rs` for the built-in lesson, by the engine for a pack or a generated
//! question). `lesson::docs` finds the tree of a text; nothing the page's module runs
//! calls [`parse`] or [`too_deep`], so the linker leaves them (and pulldown-cmark) out.

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
    let mut b = Builder {
        stack: vec![Frame {
            kind: None,
            children: Vec::new(),
        }],
        in_table_head: false,
        tbody_open: false,
    };
    for event in Parser::new_ext(markdown, options) {
        b.event(event);
    }
    while b.stack.len() > 1 {
        b.close();
    }
    b.stack.pop().map(|f| merge_text(f.children)).unwrap_or_default()
}

/// The tree under construction: the open containers, innermost last.
struct Builder {
    stack: Vec<Frame>,
    in_table_head: bool,
    tbody_open: bool,
}

impl Builder {
    fn el(tag: &'static str) -> Option<FrameKind> {
        Some(FrameKind::Element(tag, None))
    }

    fn push(&mut self, node: Node) {
        if let Some(top) = self.stack.last_mut() {
            top.children.push(node);
        }
    }

    fn open(&mut self, kind: Option<FrameKind>) {
        // Past the bound a container is transparent: its children go to the parent, so
        // the tree stays shallow whatever the input (a code block keeps its frame: its
        // text must not leak out as prose).
        let kind = match kind {
            Some(FrameKind::Code(_)) => kind,
            _ if self.stack.len() > MAX_DEPTH => None,
            _ => kind,
        };
        self.stack.push(Frame {
            kind,
            children: Vec::new(),
        });
    }

    fn close(&mut self) {
        if self.stack.len() < 2 {
            return; // unbalanced end: ignore rather than lose the root
        }
        let Some(mut frame) = self.stack.pop() else { return };
        frame.children = merge_text(frame.children);
        let node = match frame.kind {
            None => {
                for c in frame.children {
                    self.push(c);
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
                    self.push(c);
                }
                return;
            }
            Some(FrameKind::Code(lang)) => Node::CodeBlock {
                lang,
                code: frame.children.iter().map(Node::text).collect(),
            },
        };
        self.push(node);
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Paragraph => self.open(Self::el("p")),
            Tag::Heading { level, .. } => self.open(Self::el(heading_tag(level as u8))),
            Tag::BlockQuote(_) => self.open(Self::el("blockquote")),
            Tag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().map(|s| s.to_ascii_lowercase())
                    }
                    CodeBlockKind::Indented => None,
                };
                self.open(Some(FrameKind::Code(lang)));
            }
            Tag::List(Some(start)) => {
                self.open(Some(FrameKind::Element("ol", (start != 1).then_some(start))))
            }
            Tag::List(None) => self.open(Self::el("ul")),
            Tag::Item => self.open(Self::el("li")),
            Tag::Table(_) => {
                self.tbody_open = false;
                self.open(Self::el("table"));
            }
            Tag::TableHead => {
                self.in_table_head = true;
                self.open(Self::el("thead"));
                self.open(Self::el("tr"));
            }
            Tag::TableRow => {
                if !self.tbody_open {
                    self.tbody_open = true;
                    self.open(Self::el("tbody"));
                }
                self.open(Self::el("tr"));
            }
            Tag::TableCell => self.open(Self::el(if self.in_table_head { "th" } else { "td" })),
            Tag::Emphasis => self.open(Self::el("em")),
            Tag::Strong => self.open(Self::el("strong")),
            Tag::Strikethrough => self.open(Self::el("del")),
            Tag::Link { dest_url, title, .. } => {
                self.open(Some(FrameKind::Link(safe_href(&dest_url), title.to_string())))
            }
            Tag::Image { .. } => self.open(Some(FrameKind::ImageAlt)),
            // Raw HTML blocks, footnotes, metadata…: keep their text, drop the wrapper.
            _ => self.open(None),
        }
    }

    fn end(&mut self, end: TagEnd) {
        match end {
            TagEnd::TableHead => {
                self.close(); // tr
                self.in_table_head = false;
            }
            TagEnd::Table if self.tbody_open => {
                self.close(); // tbody
                self.tbody_open = false;
            }
            _ => {}
        }
        self.close();
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(end) => self.end(end),
            Event::Text(t) => self.push(Node::Text(t.to_string())),
            Event::Code(t) => self.push(Node::InlineCode(t.to_string())),
            // Never injected: raw HTML is shown as the text it is.
            Event::Html(t) | Event::InlineHtml(t) => self.push(Node::Text(t.to_string())),
            Event::SoftBreak => self.push(Node::Text("\n".into())),
            Event::HardBreak => self.push(Node::Element {
                tag: "br",
                start: None,
                children: vec![],
            }),
            Event::Rule => self.push(Node::Element {
                tag: "hr",
                start: None,
                children: vec![],
            }),
            Event::TaskListMarker(done) => self.push(Node::Text(if done { "☑ " } else { "☐ " }.into())),
            Event::FootnoteReference(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                self.push(Node::Text(t.to_string()))
            }
        }
    }
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

/// The elements a tree may hold; [`encode`] names each by its place here.
const TAGS: [&str; 22] = [
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "ol",
    "ul",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "em",
    "strong",
    "del",
    "br",
    "hr",
];

/// The tree of a text that is one paragraph of plain text (most of a quiz's options and
/// explanations): `build.rs` writes [`PLAIN`] for it instead of its encoding.
pub fn plain(text: &str) -> Vec<Node> {
    vec![Node::Element {
        tag: "p",
        start: None,
        children: vec![Node::Text(text.to_string())],
    }]
}

/// Whether `text` is, as Markdown, one paragraph of exactly its own plain text: a
/// conservative reading, without a parser, so the page can draw it ([`plain`]) without
/// asking for its tree. One line, not empty, no outer blanks, none of the characters that
/// can start Markdown's syntax, and no start that makes a list, a quote or a heading.
/// (`tests`: for every such text, [`parse`] gives [`plain`].)
pub fn is_plain(text: &str) -> bool {
    let b = text.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return false;
    };
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let list_number = digits > 0 && matches!(b.get(digits), Some(b'.' | b')'));
    !b.iter().any(|c| b"\\`*_[]<>#!&~|\n\r\t".contains(c))
        && first != b' '
        && last != b' '
        && !matches!(first, b'-' | b'+' | b'=')
        && !list_number
}

/// What `build.rs` writes for a text whose tree is [`plain`] (never an encoding).
pub const PLAIN: &str = "=";

/// Marks a text that is a tree already ([`page_form`]): no Markdown starts with it.
pub const TREE_MARK: char = '\u{1}';

/// `markdown` as the page's module is given a section body: its tree, marked.
pub fn page_form(markdown: &str) -> String {
    format!("{TREE_MARK}{}", encode(&parse(markdown)))
}

/// `nodes` as a compact text that [`decode`] reads back: each node in document order,
/// `t<len>:<text>`, `c<len>:<code>`, `b<len>:<lang><len>:<code>` (`B<len>:<code>`
/// without a language), `e<tag>,<start>,<children>;` and `l<len>:<href><len>:<title>
/// <children>;` followed by their children. Lengths are in bytes.
pub fn encode(nodes: &[Node]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for n in walk(nodes) {
        let _ = match n {
            Node::Text(t) => write!(out, "t{}:{t}", t.len()),
            Node::InlineCode(t) => write!(out, "c{}:{t}", t.len()),
            Node::CodeBlock { lang: Some(l), code } => write!(out, "b{}:{l}{}:{code}", l.len(), code.len()),
            Node::CodeBlock { lang: None, code } => write!(out, "B{}:{code}", code.len()),
            Node::Element { tag, start, children } => write!(
                out,
                "e{},{},{};",
                TAGS.iter().position(|t| t == tag).unwrap_or(0),
                start.map_or(String::new(), |s| s.to_string()),
                children.len()
            ),
            Node::Link {
                href,
                title,
                children,
            } => {
                write!(
                    out,
                    "l{}:{href}{}:{title}{};",
                    href.len(),
                    title.len(),
                    children.len()
                )
            }
        };
    }
    out
}

/// The tree [`encode`] wrote; `None` if `text` is not one (cut short, a length past its
/// end or off a character's boundary, an unknown element, nesting past [`MAX_DEPTH`]).
/// Iterative: no input can exhaust the stack, and nothing is allocated ahead of the text.
pub fn decode(text: &str) -> Option<Vec<Node>> {
    struct Open {
        node: Node,
        left: usize,
    }
    let mut at = 0usize;
    let number = |at: &mut usize, end: u8| -> Option<u64> {
        let rest = text.get(*at..)?;
        let n = rest.bytes().position(|b| b == end)?;
        *at += n + 1;
        rest[..n].parse().ok()
    };
    let string = |at: &mut usize| -> Option<String> {
        let len = usize::try_from(number(at, b':')?).ok()?;
        let s = text.get(*at..at.checked_add(len)?)?;
        *at += len;
        Some(s.to_string())
    };
    let mut root: Vec<Node> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    while at < text.len() {
        let kind = text.as_bytes()[at];
        at += 1;
        let (node, children) = match kind {
            b't' => (Node::Text(string(&mut at)?), 0),
            b'c' => (Node::InlineCode(string(&mut at)?), 0),
            b'b' => {
                let lang = string(&mut at)?;
                let code = string(&mut at)?;
                (
                    Node::CodeBlock {
                        lang: Some(lang),
                        code,
                    },
                    0,
                )
            }
            b'B' => (
                Node::CodeBlock {
                    lang: None,
                    code: string(&mut at)?,
                },
                0,
            ),
            b'e' => {
                let tag = *TAGS.get(usize::try_from(number(&mut at, b',')?).ok()?)?;
                let start = match text.get(at..)?.strip_prefix(',') {
                    Some(_) => {
                        at += 1;
                        None
                    }
                    None => Some(number(&mut at, b',')?),
                };
                let n = usize::try_from(number(&mut at, b';')?).ok()?;
                (
                    Node::Element {
                        tag,
                        start,
                        children: Vec::new(),
                    },
                    n,
                )
            }
            b'l' => {
                let href = string(&mut at)?;
                let title = string(&mut at)?;
                let n = usize::try_from(number(&mut at, b';')?).ok()?;
                (
                    Node::Link {
                        href,
                        title,
                        children: Vec::new(),
                    },
                    n,
                )
            }
            _ => return None,
        };
        if children > 0 {
            if open.len() >= MAX_DEPTH {
                return None;
            }
            open.push(Open { node, left: children });
            continue;
        }
        // A finished node goes to its parent; a parent with all its children is finished.
        let mut done = node;
        loop {
            match open.last_mut() {
                None => {
                    root.push(done);
                    break;
                }
                Some(parent) => {
                    if let Node::Element { children, .. } | Node::Link { children, .. } = &mut parent.node {
                        children.push(done);
                    }
                    parent.left -= 1;
                    if parent.left > 0 {
                        break;
                    }
                    done = open.pop()?.node;
                }
            }
        }
    }
    open.is_empty().then_some(root)
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

/// The scenario names a document's `scenario` blocks offer, in order.
pub fn scenario_blocks(doc: &[Node]) -> Vec<String> {
    walk(doc)
        .into_iter()
        .filter_map(|n| match n {
            Node::CodeBlock { lang: Some(l), code } if l == "scenario" => Some(code),
            _ => None,
        })
        .flat_map(|code| code.split_whitespace().map(str::to_string))
        .collect()
}

/// The lab ids a document's `lab` blocks name, in order.
pub fn lab_blocks(doc: &[Node]) -> Vec<String> {
    walk(doc)
        .into_iter()
        .filter_map(|n| match n {
            Node::CodeBlock { lang: Some(l), code } if l == "lab" => Some(code.trim().to_string()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_text_is_told_from_markdown_without_a_parser() {
        for t in [
            "(nil)",
            "OK",
            "Not this one: running the session gives 1.",
            "Ikke dette: svaret blir (integer) 0.",
            "2026 was a year",
        ] {
            assert!(is_plain(t), "{t}");
            assert_eq!(parse(t), plain(t), "{t}");
        }
        for t in [
            "", " a", "a ", "1. a", "12) a", "- a", "+ a", "> a", "# a", "a *b*", "a `b`", "a\nb", "a_b",
            "a & b", "---", "=", "[a](b)",
        ] {
            assert!(!is_plain(t), "{t:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Whatever the reading calls plain, the parser makes one paragraph of it, as it is
        /// (few letters, much syntax: most strings are Markdown, and the plain ones are
        /// those that come nearest to it).
        #[test]
        fn a_text_read_as_plain_parses_as_plain(s in r#"[ab1 .:()'"=+%@$^{}*_`<>#!&~|\[\]\\æ\t-]{0,10}"#) {
            if is_plain(&s) {
                proptest::prop_assert_eq!(parse(&s), plain(&s));
            }
        }
    }

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

    /// A tree read back from its encoding is the tree, whatever it holds.
    #[test]
    fn encoding_round_trips() {
        let docs = [
            "# Title\n\nSome *em*, **strong**, ~~del~~ and `code`; a [link](https://x.org \"t\").",
            "1. one\n2. two\n\n5. five\n\n- a\n  - b\n\n> quote\n\n---\n\nline  \nbreak",
            "```js\nconst a = 1;\n```\n\n    indented\n\n|a|b|\n|-|-|\n|1|2|",
            "æøå — «quotes» 🙂 `ß`:;,0123 t5:x e1,,2;",
            "",
        ];
        for d in docs {
            let tree = parse(d);
            assert_eq!(decode(&encode(&tree)), Some(tree), "{d:?}");
        }
    }

    /// Anything else is refused, never a panic: cut short, lengths past the end or inside
    /// a character, unknown kinds and elements, nesting past MAX_DEPTH.
    #[test]
    fn a_broken_encoding_is_refused() {
        let good = encode(&parse("a *b* [c](https://d.e) `f`\n\n- g"));
        // A prefix reads only where a node of the root ends (never inside an element).
        let whole = decode(&good).expect("reads").len();
        let read = (0..good.len())
            .filter_map(|cut| good.get(..cut))
            .filter_map(decode);
        assert!(read.map(|t| t.len()).all(|n| n < whole));
        for bad in [
            "x",
            "t",
            "t5:ab",
            "t1:ø",
            "t99999999999999999999:a",
            "e99,,0;",
            "e0,,2;t1:a",
            "e0,x,1;t1:a",
            "l1:a",
            "B-1:",
        ] {
            assert_eq!(decode(bad), None, "{bad:?}");
        }
        let deep = "e0,,1;".repeat(MAX_DEPTH + 1) + "t1:a";
        assert_eq!(decode(&deep), None);
        let ok = "e0,,1;".repeat(MAX_DEPTH - 1) + "t1:a";
        assert!(decode(&ok).is_some());
    }
}
