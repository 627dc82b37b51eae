//! The crate's top-level modules (`src/<name>.rs`, `src/<name>/`) import each other
//! without a circle: every `crate::<module>` path outside comments and test code is an
//! edge, and no module reaches itself. A newcomer can then read a module knowing only
//! what it depends on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The module a file under `src/` belongs to (`None` for the binaries).
fn module_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    if first == "bin" {
        return None;
    }
    Some(first.trim_end_matches(".rs").to_string())
}

/// `text` without `//` comments and without its `#[cfg(test)] mod tests { … }` (kept last
/// in a file, by the crate's convention).
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap_or_else(|e| panic!("{e}")).path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Module → the modules it names, each with a file that names it.
fn edges() -> BTreeMap<String, BTreeMap<String, String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for path in all {
        let rel = path.strip_prefix(&src).unwrap_or(&path);
        let is_test = rel.file_name().is_some_and(|n| n == "tests.rs")
            || rel.components().any(|c| c.as_os_str() == "tests");
        let Some(from) = module_of(rel) else { continue };
        if is_test {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let code = code_of(&text);
        for (at, _) in code.match_indices("crate::") {
            let to: String = code[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !to.is_empty() && to != from {
                edges
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| rel.display().to_string());
            }
        }
    }
    edges
}

/// A path from `from` to `to`, as the files that make each step.
fn path(edges: &BTreeMap<String, BTreeMap<String, String>>, from: &str, to: &str) -> Option<Vec<String>> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![(from.to_string(), Vec::new())];
    while let Some((at, steps)) = stack.pop() {
        for (next, file) in edges.get(&at).into_iter().flatten() {
            let mut steps = steps.clone();
            steps.push(format!("{at} → {next} ({file})"));
            if next == to {
                return Some(steps);
            }
            if seen.insert(next.clone()) {
                stack.push((next.clone(), steps));
            }
        }
    }
    None
}

#[test]
fn no_top_level_module_imports_itself_through_others() {
    let edges = edges();
    assert!(
        edges.contains_key("ui") && edges.contains_key("sim"),
        "the crate's modules were read"
    );
    let circles: Vec<String> = edges
        .keys()
        .filter_map(|m| path(&edges, m, m).map(|steps| steps.join(", ")))
        .collect();
    assert!(circles.is_empty(), "import circles:\n{}", circles.join("\n"));
}

#[test]
fn a_circle_is_found_where_there_is_one() {
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    edges
        .entry("a".into())
        .or_default()
        .insert("b".into(), "a.rs".into());
    edges
        .entry("b".into())
        .or_default()
        .insert("c".into(), "b.rs".into());
    assert_eq!(path(&edges, "a", "a"), None);
    edges
        .entry("c".into())
        .or_default()
        .insert("a".into(), "c/x.rs".into());
    assert_eq!(
        path(&edges, "a", "a"),
        Some(vec![
            "a → b (a.rs)".into(),
            "b → c (b.rs)".into(),
            "c → a (c/x.rs)".into()
        ])
    );
}

/// The deterministic core reads no JavaScript wire format: the world (`src/sim/world.rs`,
/// `src/sim/world/`) is handed a lab's answers already read into actions
/// (`sim::lab::replay_world`), and names neither the harness's reader nor a JSON one.
#[test]
fn the_world_reads_no_wire_format() {
    let sim = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sim");
    let mut all = vec![sim.join("world.rs")];
    files(&sim.join("world"), &mut all);
    assert!(all.len() > 3, "the world's files were found");
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let code = code_of(&text);
        for reader in ["serde_json", "parse_actions", "lab::wire", "from_str("] {
            assert!(
                !code.contains(reader),
                "{} reads a wire format: `{reader}`",
                path.display()
            );
        }
    }
}
