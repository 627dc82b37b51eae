//! The lesson's Node.js code is code that works: every ```js block in content/<lang>/
//! whose first line is `// lab: <id>` is a complete module, and it passes that lab's Run
//! and 200 attacked trials through the real harness in Node.js, exactly as a learner's
//! file would (`lockstep lab run`). Both languages show the same code (comments aside).

use lockstep::labs::{self, NodeHost};
use lockstep::lesson::markdown::{parse, walk, Node};
use lockstep::sim::lab;
use std::path::Path;

/// (file, lab id, code) of every lab-tested block in one language.
fn blocks(lang: &str) -> Vec<(String, String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("content").join(lang);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for n in walk(&parse(&text)) {
            if let Node::CodeBlock { lang: Some(l), code } = n {
                if l != "js" {
                    continue;
                }
                if let Some(id) = code.lines().next().and_then(|l| l.strip_prefix("// lab:")) {
                    let name = f
                        .file_name()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    out.push((name, id.trim().to_string(), code.clone()));
                }
            }
        }
    }
    out
}

/// The code without comments and blank lines: what must agree across languages.
fn bare(code: &str) -> String {
    code.lines()
        .map(|l| l.split(" // ").next().unwrap_or(l).trim_end())
        .filter(|l| !l.trim_start().starts_with("//") && !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_lab_tested_block_passes_its_lab() {
    let en = blocks("en");
    assert!(
        en.len() >= 2,
        "the lesson shows its acquire/release in Node.js: {en:?}"
    );
    for (file, id, code) in &en {
        let lab = labs::find(id).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut host = NodeHost::start().unwrap_or_else(|e| panic!("{e}"));
        lab::init(&lab, &mut host, code)
            .unwrap_or_else(|e| panic!("{file}: the block does not compile: {e}"));
        let run =
            lab::run_trials(&lab, &mut host, lab::RUN_SEED, 1, |_| {}).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.exit_code(), 0, "{file}, lab {id}, Run: {}", run.json());
        let r = lab::run_trials(&lab, &mut host, 2026, 200, |_| {}).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (r.exit_code(), r.trials),
            (0, 200),
            "{file}, lab {id}: {}",
            r.json()
        );
    }
}

#[test]
fn both_languages_show_the_same_code() {
    let en = blocks("en");
    let nb = blocks("nb");
    let key = |v: &[(String, String, String)]| -> Vec<(String, String, String)> {
        v.iter()
            .map(|(f, id, c)| (f.clone(), id.clone(), bare(c)))
            .collect()
    };
    assert_eq!(key(&en), key(&nb));
}
