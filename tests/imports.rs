//! The crate's files import each other without a circle, and so do its top-level
//! modules (`src/<name>.rs`, `src/<name>/`). A newcomer can then read a file knowing only
//! what it depends on.
//!
//! An edge goes from a file to the file that *defines* an item it names: in a `use` tree
//! or an inline `crate::…`, `super::…`, `self::…` or `child::…` path, outside comments,
//! literals and test code. A `pub use` is followed to the file it re-exports from, and a
//! `mod x;` line is a declaration, not an edge: a parent may declare and re-export its
//! children, and a child may then not name what its parent defines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `text` with its comments removed, each string, raw string and character literal
/// emptied, and its trailing `#[cfg(test)] mod tests { … }` (the crate's convention) cut.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            i += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
                if depth == 0 {
                    break;
                }
            }
        } else if let Some(n) = raw_string_len(rest).filter(|_| i == 0 || !ident(b[i - 1])) {
            out.extend_from_slice(b"\"\"");
            i += n;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            out.extend_from_slice(b"\"\"");
            i += j + 1;
        } else if let Some(n) = char_literal_len(rest) {
            out.extend_from_slice(b"' '");
            i += n;
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    let code = String::from_utf8_lossy(&out).into_owned();
    match code.find("#[cfg(test)]\nmod tests {") {
        Some(at) => code[..at].to_string(),
        None => code,
    }
}

/// The length of the raw string (`r"…"`, `r#"…"#`, `br"…"`) `s` starts with, if it does.
fn raw_string_len(s: &[u8]) -> Option<usize> {
    let start = if s.starts_with(b"br") {
        2
    } else {
        usize::from(s.starts_with(b"r"))
    };
    if start == 0 {
        return None;
    }
    let hashes = s[start..].iter().take_while(|&&c| c == b'#').count();
    if s.get(start + hashes) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = start + hashes + 1;
    let end = s[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())?;
    Some(body + end + close.len())
}

/// The length of the character literal `s` starts with (`'a'`, `'\n'`, `'\u{1F512}'`),
/// if it does: a lifetime (`'a`) is not one.
fn char_literal_len(s: &[u8]) -> Option<usize> {
    if s.first() != Some(&b'\'') {
        return None;
    }
    if s.get(1) == Some(&b'\\') {
        return s[2..].iter().position(|&c| c == b'\'').map(|p| p + 3);
    }
    let ch = std::str::from_utf8(&s[1..s.len().min(6)])
        .or_else(|e| std::str::from_utf8(&s[1..1 + e.valid_up_to()]))
        .ok()?
        .chars()
        .next()?;
    let after = 1 + ch.len_utf8();
    (s.get(after) == Some(&b'\'')).then_some(after + 1)
}

/// The tokens of `code` that paths are made of: identifiers, `::` and single characters.
fn tokens(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(&code[start..i]);
        } else if b[i..].starts_with(b"::") {
            out.push("::");
            i += 2;
        } else if c.is_ascii_whitespace() || !c.is_ascii() {
            i += 1;
        } else {
            out.push(&code[i..i + 1]);
            i += 1;
        }
    }
    out
}

/// One path of a `use` tree: its segments, and the name it is known by where it is used
/// (its alias, else its last segment).
#[derive(Clone, Debug)]
struct UsePath {
    segs: Vec<String>,
    name: String,
}

/// The paths of the `use` tree starting at `t[*at]`, up to its `;` (or a `,`/`}` that
/// closes a group), each with `prefix` before it.
fn use_tree(t: &[&str], at: &mut usize, prefix: &[String], out: &mut Vec<UsePath>) {
    let mut segs = prefix.to_vec();
    while *at < t.len() {
        match t[*at] {
            "::" => *at += 1,
            "{" => {
                *at += 1;
                while *at < t.len() && t[*at] != "}" {
                    use_tree(t, at, &segs, out);
                    if t.get(*at) == Some(&",") {
                        *at += 1;
                    }
                }
                *at += 1;
                return;
            }
            ";" | "," | "}" => break,
            "as" => {
                let name = t.get(*at + 1).unwrap_or(&"_").to_string();
                *at += 2;
                out.push(UsePath { segs, name });
                return;
            }
            s => {
                segs.push(s.to_string());
                *at += 1;
            }
        }
    }
    let name = segs.last().cloned().unwrap_or_default();
    if !segs.is_empty() {
        out.push(UsePath { segs, name });
    }
}

/// What one file says, as far as imports go.
#[derive(Default)]
struct FileFacts {
    /// Names of the items it defines (functions, types, constants, modules, macros…).
    defines: BTreeSet<String>,
    /// Its `pub use` paths (any visibility wider than private).
    reexports: Vec<UsePath>,
    /// Every path it names: its `use` paths and its inline paths.
    names: Vec<Vec<String>>,
}

fn facts_of(code: &str) -> FileFacts {
    let t = tokens(code);
    let mut f = FileFacts::default();
    let item = [
        "fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod",
    ];
    for (i, w) in t.iter().enumerate() {
        if item.contains(w) || (*w == "macro_rules" && t.get(i + 1) == Some(&"!")) {
            let at = if *w == "macro_rules" { i + 2 } else { i + 1 };
            if let Some(name) = t
                .get(at)
                .filter(|n| n.starts_with(|c: char| c.is_alphabetic() || c == '_'))
            {
                f.defines.insert(name.to_string());
            }
        }
        if *w == "use" {
            let mut at = i + 1;
            let mut paths = Vec::new();
            use_tree(&t, &mut at, &[], &mut paths);
            // `pub use`, or `pub(crate) use` and the like.
            let public = match t[..i].last() {
                Some(&"pub") => true,
                Some(&")") => t[..i]
                    .iter()
                    .rposition(|s| *s == "(")
                    .is_some_and(|o| o >= 1 && t[o - 1] == "pub"),
                _ => false,
            };
            if public {
                f.reexports.extend(paths.iter().cloned());
            }
            f.names.extend(paths.into_iter().map(|p| p.segs));
        }
    }
    let mut i = 0;
    while i < t.len() {
        let starts = t[i].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        if starts && t.get(i + 1) == Some(&"::") && (i == 0 || t[i - 1] != "::") {
            let mut segs = vec![t[i].to_string()];
            let mut j = i + 1;
            while t.get(j) == Some(&"::")
                && t.get(j + 1)
                    .is_some_and(|s| s.starts_with(|c: char| c.is_alphabetic() || c == '_'))
            {
                segs.push(t[j + 1].to_string());
                j += 2;
            }
            if segs.len() > 1 {
                f.names.push(segs);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    f
}

/// The crate's files: module path → (file, what it says); test files are left out.
struct Crate {
    src: PathBuf,
    modules: BTreeMap<Vec<String>, (PathBuf, FileFacts)>,
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap_or_else(|e| panic!("{e}")).path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

impl Crate {
    fn read() -> Crate {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut all = Vec::new();
        files(&src, &mut all);
        let mut modules = BTreeMap::new();
        for path in all {
            let rel = path.strip_prefix(&src).unwrap_or(&path).to_path_buf();
            let mut segs: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
            let is_test =
                rel.file_name().is_some_and(|n| n == "tests.rs") || segs.iter().any(|s| s == "tests");
            if segs[0] == "bin" || is_test {
                continue;
            }
            let last = segs.pop().unwrap_or_default();
            match last.trim_end_matches(".rs") {
                "lib" if segs.is_empty() => {}
                "mod" => {}
                stem => segs.push(stem.to_string()),
            }
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            modules.insert(segs, (rel, facts_of(&code_of(&text))));
        }
        Crate { src, modules }
    }

    fn is_child(&self, of: &[String], name: &str) -> bool {
        let mut m = of.to_vec();
        m.push(name.to_string());
        self.modules.contains_key(&m)
    }

    /// The module `segs` reaches from module `cur`, and the segments after it; `None`
    /// for a path outside the crate (std, a dependency, a local binding).
    fn walk(&self, cur: &[String], segs: &[String]) -> Option<(Vec<String>, Vec<String>)> {
        let first = segs.first()?;
        let (mut m, mut rest) = match first.as_str() {
            "crate" => (Vec::new(), &segs[1..]),
            "super" | "self" => (cur.to_vec(), segs),
            s if self.is_child(cur, s) => (cur.to_vec(), segs),
            _ => return None,
        };
        while let Some(s) = rest.first().filter(|s| *s == "super" || *s == "self") {
            if s == "super" {
                m.pop();
            }
            rest = &rest[1..];
        }
        while let Some(s) = rest.first().filter(|s| self.is_child(&m, s)) {
            m.push(s.clone());
            rest = &rest[1..];
        }
        let rest = rest
            .iter()
            .filter(|s| *s != "self" && *s != "*")
            .cloned()
            .collect();
        Some((m, rest))
    }

    /// The module whose file defines `name` as module `m` offers it, following `pub use`.
    fn owner(&self, m: &[String], name: &str, depth: usize) -> Vec<String> {
        let Some((_, facts)) = self.modules.get(m).filter(|_| depth < 16) else {
            return m.to_vec();
        };
        for r in &facts.reexports {
            let Some((last, head)) = r.segs.split_last() else {
                continue;
            };
            if last == "*" {
                let Some((t, _)) = self.walk(m, head) else {
                    continue;
                };
                let offers = self.modules.get(&t).is_some_and(|(_, f)| {
                    f.defines.contains(name) || f.reexports.iter().any(|x| x.name == name)
                });
                if offers && t != m {
                    return self.owner(&t, name, depth + 1);
                }
            } else if r.name == name {
                let Some((t, _)) = self.walk(m, head) else {
                    continue;
                };
                if last == "self" {
                    return t;
                }
                if self.is_child(&t, last) {
                    let mut c = t;
                    c.push(last.clone());
                    return c;
                }
                return self.owner(&t, last, depth + 1);
            }
        }
        m.to_vec()
    }

    /// File → the files it imports from, each with one path that makes the edge.
    fn edges(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (m, (file, facts)) in &self.modules {
            let from = file.display().to_string();
            for segs in &facts.names {
                let Some((mut to, rest)) = self.walk(m, segs) else {
                    continue;
                };
                if let Some(first) = rest.first() {
                    to = self.owner(&to, first, 0);
                }
                if &to == m {
                    continue;
                }
                let Some((to_file, _)) = self.modules.get(&to) else {
                    continue;
                };
                edges
                    .entry(from.clone())
                    .or_default()
                    .entry(to_file.display().to_string())
                    .or_insert_with(|| segs.join("::"));
            }
        }
        edges
    }
}

/// A path from `from` to `to`, as the steps that make it.
fn path(edges: &BTreeMap<String, BTreeMap<String, String>>, from: &str, to: &str) -> Option<Vec<String>> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![(from.to_string(), Vec::new())];
    while let Some((at, steps)) = stack.pop() {
        for (next, why) in edges.get(&at).into_iter().flatten() {
            let mut steps = steps.clone();
            steps.push(format!("{at} → {next} ({why})"));
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

fn circles(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<String> {
    edges
        .keys()
        .filter_map(|m| path(edges, m, m).map(|steps| steps.join(", ")))
        .collect()
}

/// The top-level module a file belongs to (`store` for `store/cmd/set.rs`).
fn top(file: &str) -> String {
    let first = file.split('/').next().unwrap_or(file);
    first.trim_end_matches(".rs").to_string()
}

#[test]
fn no_file_imports_itself_through_others() {
    let krate = Crate::read();
    let edges = krate.edges();
    let n: usize = edges.values().map(BTreeMap::len).sum();
    assert!(
        krate.modules.len() > 150 && n > 400,
        "the crate was read: {} files, {n} edges",
        krate.modules.len()
    );
    let found = circles(&edges);
    assert!(
        found.is_empty(),
        "import circles in {}:\n{}",
        krate.src.display(),
        found.join("\n")
    );
}

#[test]
fn no_top_level_module_imports_itself_through_others() {
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (from, tos) in Crate::read().edges() {
        for (to, why) in tos {
            if top(&from) != top(&to) {
                let why = format!("{from}: {why}");
                edges
                    .entry(top(&from))
                    .or_default()
                    .entry(top(&to))
                    .or_insert(why);
            }
        }
    }
    assert!(
        edges.contains_key("ui") && edges.contains_key("sim"),
        "the crate's modules were read"
    );
    let found = circles(&edges);
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// The graph sees what it must: a re-export followed to the file that defines the item,
/// a `super::` path, a child named inline, a `use` group, and no edge from a comment, a
/// string or a test module.
#[test]
fn edges_go_to_the_file_that_defines_what_is_named() {
    let mut krate = Crate {
        src: PathBuf::from("src"),
        modules: BTreeMap::new(),
    };
    let m = |s: &str| -> Vec<String> { s.split('/').filter(|x| !x.is_empty()).map(String::from).collect() };
    let mut add = |module: &str, file: &str, text: &str| {
        krate
            .modules
            .insert(m(module), (PathBuf::from(file), facts_of(&code_of(text))));
    };
    add("", "lib.rs", "pub mod a;\npub mod b;\n");
    add(
        "a",
        "a/mod.rs",
        "mod inner;\npub use inner::Thing;\npub use inner::*;\n",
    );
    add("a/inner", "a/inner.rs", "pub struct Thing;\npub fn helper() {}\n");
    add(
        "b",
        "b/mod.rs",
        "// crate::a::Ghost in a comment\nuse crate::a::{Thing, self as x};\nconst S: &str = \"crate::a::helper\";\nfn f() { kid::g(); let _ = '\"'; }\nmod kid;\n#[cfg(test)]\nmod tests {\n    use crate::b::kid::Back;\n}\n",
    );
    add("b/kid", "b/kid.rs", "pub fn g() { super::super::a::helper(); }\n");
    let edges = krate.edges();
    let to = |f: &str| -> BTreeSet<&str> {
        edges
            .get(f)
            .map(|t| t.keys().map(String::as_str).collect())
            .unwrap_or_default()
    };
    assert_eq!(
        to("b/mod.rs"),
        BTreeSet::from(["a/inner.rs", "a/mod.rs", "b/kid.rs"])
    );
    assert_eq!(to("b/kid.rs"), BTreeSet::from(["a/inner.rs"]));
    assert_eq!(to("a/mod.rs"), BTreeSet::from(["a/inner.rs"]));
    assert!(circles(&edges).is_empty());
}

#[test]
fn a_circle_is_found_where_there_is_one() {
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    edges
        .entry("a".into())
        .or_default()
        .insert("b".into(), "x".into());
    edges
        .entry("b".into())
        .or_default()
        .insert("c".into(), "y".into());
    assert_eq!(path(&edges, "a", "a"), None);
    edges
        .entry("c".into())
        .or_default()
        .insert("a".into(), "z".into());
    assert_eq!(
        path(&edges, "a", "a"),
        Some(vec!["a → b (x)".into(), "b → c (y)".into(), "c → a (z)".into()])
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
