//! The lesson's content files: both languages complete and consistent, links valid.

use lockstep::lesson::content::{builtin, builtin_files, Lang, BUILTIN_LESSON_ID};
use lockstep::lesson::markdown::{links, parse, Node};
use lockstep::lesson::route::Route;

#[test]
fn every_language_has_the_twelve_sections_with_the_same_ids() {
    let en = builtin(Lang::En).unwrap_or_else(|e| panic!("{}", join(&e)));
    assert_eq!(en.sections.len(), 12);
    let orders: Vec<u32> = en.sections.iter().map(|s| s.order).collect();
    assert_eq!(orders, (1..=12).collect::<Vec<_>>());
    for lang in Lang::ALL {
        let lesson = builtin(lang).unwrap_or_else(|e| panic!("{}", join(&e)));
        let ids: Vec<(&str, u32)> = lesson.sections.iter().map(|s| (s.id.as_str(), s.order)).collect();
        let en_ids: Vec<(&str, u32)> = en.sections.iter().map(|s| (s.id.as_str(), s.order)).collect();
        assert_eq!(ids, en_ids, "{} differs from en", lang.code());
    }
}

#[test]
fn translations_are_translated() {
    let en = builtin(Lang::En).expect("en");
    let nb = builtin(Lang::Nb).expect("nb");
    let same_titles = en
        .sections
        .iter()
        .zip(&nb.sections)
        .filter(|(a, b)| a.title == b.title)
        .count();
    assert!(
        same_titles <= 2,
        "{same_titles} titles are identical in en and nb"
    );
    for (a, b) in en.sections.iter().zip(&nb.sections) {
        assert_ne!(a.body, b.body, "{} has the same body in en and nb", a.id);
    }
}

#[test]
fn file_names_match_front_matter() {
    for lang in Lang::ALL {
        for s in builtin(lang).expect("valid").sections {
            let expected = format!("content/{}/{:02}-{}.md", lang.code(), s.order, s.id);
            assert_eq!(s.file, expected);
        }
    }
    assert_eq!(builtin_files().len(), 24);
}

#[test]
fn in_app_links_point_to_real_sections_and_no_raw_html() {
    for lang in Lang::ALL {
        let lesson = builtin(lang).expect("valid");
        for s in &lesson.sections {
            let doc = parse(&s.body);
            for href in links(&doc) {
                if href.starts_with('#') {
                    match Route::parse(&href) {
                        Route::Section { lesson: l, order } => {
                            assert_eq!(l, BUILTIN_LESSON_ID, "{}: {href}", s.file);
                            assert!(
                                lesson.section(order).is_some(),
                                "{}: {href} has no section",
                                s.file
                            );
                        }
                        other => panic!("{}: link {href} is {other:?}", s.file),
                    }
                }
            }
            assert!(
                !s.body.contains("<script") && !s.body.contains("<div"),
                "{}: raw HTML",
                s.file
            );
        }
    }
}

#[test]
fn code_blocks_have_a_language() {
    fn walk(nodes: &[Node], file: &str) {
        for n in nodes {
            match n {
                Node::CodeBlock { lang, .. } => {
                    assert!(lang.is_some(), "{file}: a code block has no language")
                }
                Node::Element { children, .. } | Node::Link { children, .. } => walk(children, file),
                _ => {}
            }
        }
    }
    for lang in Lang::ALL {
        for s in builtin(lang).expect("valid").sections {
            walk(&parse(&s.body), &s.file);
        }
    }
}

fn join(errors: &[lockstep::lesson::content::ContentError]) -> String {
    errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn scenario_blocks_name_built_in_scenarios_and_sections_7_and_3_have_them() {
    let mut used = std::collections::BTreeSet::new();
    for lang in Lang::ALL {
        for s in builtin(lang).expect("valid").sections {
            for node in parse(&s.body) {
                if let Node::CodeBlock { lang: Some(l), code } = node {
                    if l == "scenario" {
                        for name in code.split_whitespace() {
                            assert!(
                                lockstep::sim::scenario::builtin(name).is_some_and(|r| r.is_ok()),
                                "{}: unknown or invalid scenario {name}",
                                s.file
                            );
                            used.insert((s.order, name.to_string()));
                        }
                    }
                }
            }
        }
    }
    assert!(used.iter().any(|(o, n)| *o == 3 && n == "unsafe-del"));
    assert!(used.iter().filter(|(o, _)| *o == 7).count() >= 9);
}

/// The scenario blocks of each section: order → names.
fn scenarios_by_section(lang: Lang) -> std::collections::BTreeMap<u32, Vec<String>> {
    let mut out = std::collections::BTreeMap::new();
    for s in builtin(lang).expect("valid").sections {
        for node in parse(&s.body) {
            if let Node::CodeBlock { lang: Some(l), code } = node {
                if l == "scenario" {
                    let names: &mut Vec<String> = out.entry(s.order).or_default();
                    names.extend(code.split_whitespace().map(str::to_string));
                }
            }
        }
    }
    out
}

#[test]
fn a_link_to_a_scenario_opens_a_section_that_shows_it() {
    let mut seen = 0;
    for lang in Lang::ALL {
        let shown = scenarios_by_section(lang);
        for s in builtin(lang).expect("valid").sections {
            for href in links(&parse(&s.body)) {
                let Some((route, query)) = href.split_once('?') else {
                    continue;
                };
                let Route::Section { order, .. } = Route::parse(route) else {
                    panic!("{}: {href} is not a section", s.file);
                };
                let name = query
                    .split('&')
                    .find_map(|kv| kv.strip_prefix("scenario="))
                    .unwrap_or_else(|| panic!("{}: {href} names no scenario", s.file));
                assert!(
                    shown.get(&order).is_some_and(|n| n.iter().any(|n| n == name)),
                    "{}: {href}: section {order} shows no scenario {name}",
                    s.file
                );
                seen += 1;
            }
        }
    }
    // §11's debate links each argument to its scenario, in both languages.
    assert!(seen >= 2 * 13, "only {seen} scenario links");
}

#[test]
fn the_debate_and_its_sources_are_in_both_languages() {
    let sources = [
        "https://redis.io/docs/latest/develop/clients/patterns/distributed-locks/",
        "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html",
        "http://antirez.com/news/101",
    ];
    for lang in Lang::ALL {
        let lesson = builtin(lang).expect("valid");
        let last = lesson.sections.last().expect("sections");
        let found = links(&parse(&last.body));
        for url in sources {
            assert!(found.iter().any(|h| h == url), "{}: no link to {url}", last.file);
        }
        let s11 = lesson.section(11).expect("§11");
        for name in ["Kleppmann", "antirez", "Sanfilippo"] {
            assert!(s11.body.contains(name), "{}: {name} not named", s11.file);
        }
        // §11 points the reader to the list in the last section.
        assert!(links(&parse(&s11.body))
            .iter()
            .any(|h| h == "#/distributed-locks/12"));
    }
}

/// The app's own texts never send a learner to a file of our repository (the progress
/// page once said "(see docs/authoring.md)"): a learner has the page, not the source.
#[test]
fn ui_texts_name_no_file_of_the_repository() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/content/ui.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let found: Vec<&str> = text
        .lines()
        .filter(|l| {
            let value = l.split_once('=').map_or("", |(_, v)| v);
            value.contains("docs/") || value.contains(".md)") || value.contains(".md ")
        })
        .collect();
    assert!(
        found.is_empty(),
        "texts that name repository files:\n{}",
        found.join("\n")
    );
}

/// Every text of content/ui.toml is shown somewhere: its key is named in the code
/// (`k::NAME`, checked by the compiler), or it is in a family whose names the app makes
/// as it runs (`lab_msg_<code>`: `Key::named` finds it). A key nothing names is a text
/// no learner sees, kept up in two languages (two were, for a lab's progress rows).
#[test]
fn every_ui_text_is_named_by_the_app() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("content/ui.toml")).unwrap_or_else(|e| panic!("{e}"));
    let table: toml::Table = toml::from_str(&text).expect("content/ui.toml parses");
    let mut code = String::new();
    let mut dirs = vec![root.join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ reads") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                code.push_str(&std::fs::read_to_string(&path).expect("a source file reads"));
            }
        }
    }
    let en = table["en"].as_table().expect("an [en] table");
    let unnamed: Vec<&String> = en
        .keys()
        .filter(|key| {
            let constant = format!("k::{}", key.to_uppercase());
            let at = code.match_indices(&constant).any(|(i, _)| {
                !code[i + constant.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            });
            !at && lockstep::lesson::i18n::Key::named(key).is_none()
        })
        .collect();
    assert!(
        unnamed.is_empty(),
        "ui.toml's texts that the app never shows: {unnamed:?}"
    );
}
