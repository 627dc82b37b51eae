//! The tree of a text shown as Markdown, found rather than parsed: the page's module has
//! no Markdown parser (see [`super::markdown`]). A text's tree comes from
//! - for the page's module (built without `inline-text`), what `build.rs` wrote: each
//!   built-in section body as its tree ([`markdown::page_form`]), and a table of every
//!   question's texts (and each explanation without its verdict) and every lab's goal
//!   with their trees; other builds have the parser and get neither;
//! - what the page [`learn`]ed from the engine, which parsed a pack's or a generated
//!   question's texts for it (the engine's `markdown` call, [`encode_all`]);
//! - where the module has the parser (native code, the engine, the browser tests), the
//!   parser.
//!
//! A text found nowhere is shown as its plain text, and counted ([`misses`]): the
//! end-to-end checks hold that count at zero.

use super::markdown::{self, Node};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

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

/// The most trees kept from the engine: past it the oldest are all dropped (a long
/// session of generated questions cannot grow memory without bound).
const MAX_LEARNED: usize = 4096;

thread_local! {
    static LEARNED: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
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

/// The (text, encoded tree) pairs learned from the engine for those of `texts` that have
/// one: what the lab panel's module is given with a pack's lab (`ui::lab::apart`).
pub fn learned(texts: &[String]) -> Vec<(String, String)> {
    LEARNED.with(|l| {
        let l = l.borrow();
        texts
            .iter()
            .filter_map(|t| l.get(t).map(|tree| (t.clone(), tree.clone())))
            .collect()
    })
}

/// Whether `text`'s tree is known without parsing it.
pub fn known(text: &str) -> bool {
    compiled(text).is_some() || LEARNED.with(|l| l.borrow().contains_key(text))
}

fn compiled(text: &str) -> Option<&'static str> {
    let i = compiled::DOCS.binary_search_by(|(t, _)| t.get().cmp(text)).ok()?;
    Some(compiled::DOCS[i].1.get())
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
        .and_then(|tree| match tree {
            markdown::PLAIN => Some(markdown::plain(text)),
            tree => markdown::decode(tree),
        })
        .or_else(|| LEARNED.with(|l| l.borrow().get(text).and_then(|e| markdown::decode(e))));
    if let Some(nodes) = found {
        return nodes;
    }
    parsed_here(text)
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

fn explained(explanations: &[String]) -> Vec<String> {
    let without = explanations
        .iter()
        .map(|e| super::quiz::without_verdict(e).into_owned());
    explanations.iter().cloned().chain(without).collect()
}

/// The texts of a question's instance the page shows as Markdown.
pub fn instance_texts(inst: &super::generate::Instance) -> Vec<String> {
    use super::generate::Body;
    let mut out = vec![inst.prompt.clone(), inst.explanation.clone()];
    match &inst.body {
        Body::Choice {
            options,
            explanations,
            ..
        } => {
            out.extend(options.iter().cloned());
            out.extend(explained(explanations));
        }
        Body::Order { items, .. } => out.extend(items.iter().cloned()),
        _ => {}
    }
    out
}

/// Of `texts`, those whose tree is not known yet, each once (what to ask the engine for).
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
            compiled::DOCS.windows(2).all(|w| w[0].0.get() < w[1].0.get()),
            "sorted, no duplicates"
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
                    for text in instance_texts(&inst) {
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
