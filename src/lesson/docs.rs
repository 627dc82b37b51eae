//! The tree of a text shown as Markdown, found rather than parsed: the page's module has
//! no Markdown parser (see [`super::markdown`]). A text's tree comes from
//! - for the page's module (built without `inline-text`), what `build.rs` wrote: each
//!   built-in section body as its tree ([`markdown::page_form`]), and a table of every
//!   question's texts (and each explanation without its verdict) and every lab's goal
//!   with their trees; other builds have the parser and get neither;
//! - what the page [`learn`]ed with a question's instance from the engine, which made the
//!   trees of its texts without a parser ([`instance_trees`]: a template's tree filled,
//!   or a plain paragraph, [`markdown::is_plain`]);
//! - what the page [`learn`]ed from the authoring module, which parsed a pack's texts for
//!   it (the `markdown` call, [`encode_all`]);
//! - where the module has the parser (native code, the engine, the browser tests), the
//!   parser.
//!
//! A text found nowhere is shown as its plain text, and counted ([`misses`]): the
//! end-to-end checks hold that count at zero.

use super::markdown::{self, Node};
use crate::vecmap::VecMap;
use std::cell::{Cell, RefCell};

mod compiled {
    use crate::text::Txt;
    include!(concat!(env!("OUT_DIR"), "/markdown_docs.rs"));
}

/// Every built-in text the page's module is given a tree for, whichever the build.
#[cfg(test)]
mod shown {
    use crate::text::Txt;
    include!(concat!(env!("OUT_DIR"), "/markdown_shown.rs"));
}

/// The most trees kept from the engine: past it all of them are dropped (a long
/// session of generated questions cannot grow memory without bound, and an insert into
/// the sorted vector moves at most this many pairs).
const MAX_LEARNED: usize = 4096;

thread_local! {
    static LEARNED: RefCell<VecMap<String, String>> = const { RefCell::new(VecMap::new()) };
    static MISSES: Cell<usize> = const { Cell::new(0) };
}

/// Keeps each (text, encoded tree) pair the engine made.
pub fn learn(pairs: impl IntoIterator<Item = (String, String)>) {
    LEARNED.with(|l| {
        let mut l = l.borrow_mut();
        for (text, tree) in pairs {
            if l.len() >= MAX_LEARNED {
                l.clear();
            }
            l.insert(text, tree);
        }
    });
}

/// Whether `text`'s tree is known without parsing it.
pub fn known(text: &str) -> bool {
    compiled(text).is_some() || LEARNED.with(|l| l.borrow().contains_key(text))
}

/// `text`'s tree as `build.rs` wrote it, from the list of each part of the lesson's text
/// (`crate::text`: one not fetched yet reads as empty texts, and finds nothing).
fn compiled(text: &str) -> Option<&'static str> {
    compiled::DOCS.iter().find_map(|docs| {
        let i = docs.binary_search_by(|(t, _)| t.get().cmp(text)).ok()?;
        Some(docs[i].1.get())
    })
}

/// The tree of `text`, as [`markdown::parse`] makes it.
pub fn doc(text: &str) -> Vec<Node> {
    // A built-in section body, as the page's module is given it.
    if let Some(tree) = text.strip_prefix(markdown::TREE_MARK) {
        return markdown::decode(tree).unwrap_or_else(|| {
            MISSES.with(|m| m.set(m.get() + 1));
            Vec::new()
        });
    }
    let found = compiled(text)
        .and_then(|tree| tree_of(text, tree))
        .or_else(|| LEARNED.with(|l| l.borrow().get(text).and_then(|e| tree_of(text, e))));
    if let Some(nodes) = found {
        return nodes;
    }
    parsed_here(text)
}

/// `text`'s tree from its encoding, or [`markdown::PLAIN`]'s paragraph.
fn tree_of(text: &str, encoded: &str) -> Option<Vec<Node>> {
    match encoded {
        markdown::PLAIN => Some(markdown::plain(text)),
        tree => markdown::decode(tree),
    }
}

#[cfg(any(feature = "page-engine", not(target_arch = "wasm32")))]
fn parsed_here(text: &str) -> Vec<Node> {
    markdown::parse(text)
}

#[cfg(not(any(feature = "page-engine", not(target_arch = "wasm32"))))]
fn parsed_here(text: &str) -> Vec<Node> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    MISSES.with(|m| m.set(m.get() + 1));
    vec![Node::Text(text.to_string())]
}

/// The tree of `text`, which is `template` filled with `params` (a generated question's
/// prompt or explanation), as (text, encoded tree): the template's tree with each
/// `{name}` in its text and code replaced, and what the replacing empties removed. Made
/// without a parser: the template is a built-in text, whose tree the module is given.
/// `None` where none is needed (the text is plain, or the template's) or at hand.
pub fn filled_tree(template: &str, params: &[(&str, String)], text: &str) -> Option<(String, String)> {
    if text.trim().is_empty() || text == template || markdown::is_plain(text) {
        return None;
    }
    let mut nodes = built_in_tree(template)?;
    fill_nodes(&mut nodes, params);
    Some((text.to_string(), markdown::encode(&nodes)))
}

/// A built-in text's tree as the build wrote it (natively, where there is none, parsed).
fn built_in_tree(text: &str) -> Option<Vec<Node>> {
    compiled(text)
        .and_then(|tree| tree_of(text, tree))
        .or_else(|| parsed_natively(text))
}

/// The trees the page needs with a question's instance whose `texts` these are (made in
/// the engine, which has no parser): `made` (from templates, [`filled_tree`]), and for
/// each other text that is not a built-in text (whose tree the page is given) but plain,
/// [`markdown::PLAIN`].
pub fn instance_trees(texts: Vec<String>, made: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out = made;
    for text in texts {
        let listed = out.iter().any(|(t, _)| *t == text);
        if !listed && compiled(&text).is_none() && markdown::is_plain(&text) {
            out.push((text, markdown::PLAIN.to_string()));
        }
    }
    out
}

#[cfg(not(target_arch = "wasm32"))]
fn parsed_natively(text: &str) -> Option<Vec<Node>> {
    Some(markdown::parse(text))
}

#[cfg(target_arch = "wasm32")]
fn parsed_natively(_: &str) -> Option<Vec<Node>> {
    None
}

/// Replaces each `{name}` in the text and code of `nodes`, and drops the text, and then
/// the paragraphs, that are left empty. (Bounded by the tree, which the build made.)
fn fill_nodes(nodes: &mut Vec<Node>, params: &[(&str, String)]) {
    let fill = |s: &mut String| {
        for (k, v) in params {
            *s = s.replace(&format!("{{{k}}}"), v);
        }
    };
    for node in nodes.iter_mut() {
        match node {
            Node::Text(t) | Node::InlineCode(t) => fill(t),
            Node::CodeBlock { code, .. } => fill(code),
            Node::Element { children, .. } | Node::Link { children, .. } => fill_nodes(children, params),
        }
    }
    nodes.retain(|n| match n {
        Node::Text(t) => !t.is_empty(),
        Node::Element {
            tag: "p", children, ..
        } => !children.is_empty(),
        _ => true,
    });
}

/// The texts of `q` the page shows as Markdown, in every language: its prompt, options,
/// items and explanations (each also without its verdict, as an option's is shown).
pub fn question_texts(q: &super::quiz::Question) -> Vec<String> {
    let mut out = Vec::new();
    for t in [&q.en, &q.nb] {
        out.extend([t.prompt.clone(), t.explanation.clone()]);
        out.extend(t.options.iter().chain(&t.items).cloned());
        out.extend(explained(&t.explanations));
    }
    out
}

/// Each explanation, and each without its verdict (as an option's is shown).
pub fn explained(explanations: &[String]) -> Vec<String> {
    let without = explanations
        .iter()
        .map(|e| super::quiz::without_verdict(e).into_owned());
    explanations.iter().cloned().chain(without).collect()
}

/// Of `texts`, those whose tree is not known yet, each once (what to ask the authoring
/// module for).
pub fn unknown(texts: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = texts
        .into_iter()
        .filter(|t| !t.trim().is_empty() && !known(t))
        .collect();
    crate::sorting::sort(&mut out);
    out.dedup();
    out
}

/// How many texts were shown plain because their tree was found nowhere.
pub fn misses() -> usize {
    MISSES.with(Cell::get)
}

/// Each text's tree, encoded (the engine's `markdown` call).
pub fn encode_all(texts: &[String]) -> Vec<String> {
    texts
        .iter()
        .map(|t| markdown::encode(&markdown::parse(t)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_shown(text: &str) -> bool {
        shown::SHOWN.binary_search_by(|t| t.get().cmp(text)).is_ok()
    }

    /// Every tree the page's module is given reads back as the parser's (the build
    /// writes the same `encode(parse(text))`), and the table is sorted.
    #[test]
    fn the_page_trees_are_the_parsers() {
        assert!(shown::SHOWN.len() > 100, "{} texts", shown::SHOWN.len());
        for text in shown::SHOWN {
            let (text, parsed) = (text.get(), markdown::parse(text.get()));
            assert_eq!(
                markdown::decode(&markdown::encode(&parsed)).as_ref(),
                Some(&parsed),
                "{text:?}"
            );
            assert_eq!(doc(&markdown::page_form(text)), parsed, "{text:?}");
        }
        assert!(
            shown::SHOWN.windows(2).all(|w| w[0].get() < w[1].get()),
            "sorted, no duplicates"
        );
        assert!(
            compiled::DOCS
                .iter()
                .all(|docs| docs.windows(2).all(|w| w[0].0.get() < w[1].0.get())),
            "each part's list sorted, no duplicates"
        );
        // A paragraph of plain text gets the plain mark instead of a tree.
        assert_eq!(
            markdown::decode(markdown::PLAIN),
            None,
            "the plain mark is no encoding"
        );
        let plain = shown::SHOWN
            .iter()
            .filter(|t| markdown::parse(t.get()) == markdown::plain(t.get()))
            .count();
        assert!(
            plain > 100,
            "{plain}: most options and explanations are plain paragraphs"
        );
    }

    /// What the page shows of the built-in lesson is all given to it as trees.
    #[test]
    fn every_built_in_text_the_page_shows_is_compiled() {
        use crate::lesson::content::{compiled_questions, compiled_sections, Lang};
        for lang in Lang::ALL {
            for s in compiled_sections(lang) {
                assert!(is_shown(&s.body), "{lang:?} {}", s.id);
            }
            for q in compiled_questions() {
                for text in question_texts(&q) {
                    assert!(text.trim().is_empty() || is_shown(&text), "{}: {text:?}", q.id);
                }
                if let Some(inst) = crate::lesson::generate::fixed(&q, lang, 7) {
                    for text in inst.texts() {
                        assert!(
                            text.trim().is_empty() || is_shown(&text),
                            "{} {lang:?}: {text:?}",
                            q.id
                        );
                    }
                }
            }
        }
        for id in crate::labs::IDS {
            let lab = crate::labs::shown(id).expect("a built-in").expect("valid");
            for lang in Lang::ALL {
                assert!(is_shown(&lab.goal[lang.code()]), "{id} {lang:?}");
            }
        }
    }

    /// The questions the engine makes (generated, "what happens next?") show texts the
    /// page is given trees for, or plain ones it draws itself: so the built-in lesson never
    /// asks for Markdown, which only the authoring module parses (`calls::Request::
    /// for_authoring`), and the page draws each as the parser would.
    #[test]
    fn the_engines_questions_need_no_markdown_parser() {
        use crate::lesson::content::{compiled_questions, Lang};
        use crate::lesson::generate::{instance_in, needs_engine};
        let mut plain = 0;
        for q in compiled_questions().iter().filter(|q| needs_engine(q)) {
            for lang in Lang::ALL {
                for seed in (0..40u64).chain([u64::MAX, 0x5eed_cafe_f00d]) {
                    let inst = instance_in(q, lang, seed, &[]);
                    learn(inst.trees.clone());
                    for text in inst.texts() {
                        assert!(
                            text.trim().is_empty() || is_shown(&text) || known(&text),
                            "{} {lang:?} seed {seed}: {text:?} would need the parser",
                            q.id
                        );
                        assert_eq!(doc(&text), markdown::parse(&text), "{text:?}");
                        plain +=
                            usize::from(inst.trees.iter().any(|(t, e)| *t == text && e == markdown::PLAIN));
                    }
                }
            }
        }
        assert!(plain > 100, "{plain} texts drawn plain without a tree");
    }

    #[test]
    fn learned_trees_are_found_and_bounded() {
        let text = "a *learned* text, not in the lesson";
        assert!(!known(text));
        learn([(text.to_string(), markdown::encode(&markdown::parse(text)))]);
        assert!(known(text));
        assert_eq!(doc(text), markdown::parse(text));
        learn((0..MAX_LEARNED + 1).map(|i| (format!("t{i}"), "t1:x".to_string())));
        assert!(LEARNED.with(|l| l.borrow().len()) <= MAX_LEARNED);
    }
}
