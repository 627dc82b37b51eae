//! Embeds the lesson's data files into the binary and validates the quizzes.
//!
//! - `content/<lang>/*.md` → `content_files.rs` (sections), so adding a section is
//!   adding a file, not editing Rust.
//! - `content/quiz/*.toml` → `quiz_files.rs`, after validating them with the same parser
//!   the app uses (`src/lesson/quiz.rs`): a mistake fails the build with
//!   `file:line: field: message` for every mistake at once.
//!
//! - both → `builtin_pack.rs`: the built-in lesson compiled into Rust values (every
//!   section of every language, every question), which the app uses as they are: it
//!   parses no TOML and validates nothing at start-up (`lesson::pack::builtin_compiled`;
//!   `tests/pack.rs` checks it equals what the full pack loader makes of the files).
//!   A section file with a mistake fails the build with `file:line: field: message`.
//! - `content/ui.toml` → `ui_texts.rs`: a constant per key of the app's own texts
//!   (`lesson::i18n::k`) and each language's texts as one block of its text part, so the
//!   app never runs a TOML parser for them and a key the file lacks fails the build.
//!
//! - `src/builtins.wire` → `builtin_wire.rs`: each built-in scenario and lab, validated and
//!   in the wire's form (`crate::wire`), as `make builtins` wrote them from `scenarios/`
//!   and `labs/` (a test fails while the file differs from what they make). The app
//!   reads them with the reader it needs for the engine's answers anyway
//!   (`sim::scenario::builtin`, `labs::shown`): no TOML or JSON reader, no validation.
//!
//! Files are sorted by path so the generated code (and the binary) is reproducible.

use std::{env, fs, path::Path, path::PathBuf};

// The app's own parser, so the build and the app can never disagree about validity.
// (`quiz.rs` refers to `super::lang`, which is this crate root here.)
#[allow(dead_code)]
#[path = "src/lesson/lang.rs"]
mod lang;
#[allow(dead_code)]
#[path = "src/lesson/quiz.rs"]
mod quiz;
// The quiz reads a typed number with it.
#[allow(dead_code)]
#[path = "src/decimal.rs"]
mod decimal;
#[allow(dead_code)]
#[path = "src/lesson/section.rs"]
mod section;
// The lesson's text is named and checked with it (`text::take`).
#[path = "src/fnv.rs"]
mod fnv;
use fnv::fnv1a;

// The section list is ordered with it.
#[allow(dead_code)]
#[path = "src/sorting.rs"]
mod sorting;
// The quiz's sets of answers are kept in it.
#[allow(dead_code)]
#[path = "src/vecmap.rs"]
mod vecmap;
// The Markdown parser, so the trees the page is given are the ones the app would make.
#[allow(dead_code)]
#[path = "src/lesson/markdown.rs"]
mod markdown;

use std::collections::HashMap;
use std::fmt::Write as _;

/// The built-in lesson's words (section bodies, questions, the app's texts, the built-in
/// scenarios and labs) as texts in parts: one for what every language reads (scenarios,
/// labs, code), and one per language (its sections, questions and texts), so that a
/// learner downloads the words of the language they read. Each part is a file,
/// `lesson-text-<hash>.txt` or `lesson-text-<lang>-<hash>.txt`. The generated tables
/// name each string by its part and place, `Txt(at, len)` with the part in `at`'s top
/// two bits (`src/text.rs`): the tests include the text in their module; the page's and
/// the engine's modules are given the parts they need.
struct Blob {
    /// The common part, then one per language in `Lang::ALL`'s order.
    parts: Vec<String>,
    seen: HashMap<(usize, String), usize>,
    /// The part [`Blob::txt`] writes to now.
    part: usize,
}

impl Default for Blob {
    fn default() -> Self {
        Blob {
            parts: vec![String::new(); 1 + lang::Lang::ALL.len()],
            seen: HashMap::new(),
            part: 0,
        }
    }
}

/// Where a part's offset ends in a `Txt`'s `at` and its part begins.
const PART_SHIFT: u32 = 30;

impl Blob {
    /// `s` in the current part (once, however often it is named), as the Rust
    /// expression `Txt(at, len)`.
    fn txt(&mut self, s: &str) -> String {
        let part = self.part;
        let text = &mut self.parts[part];
        let at = *self.seen.entry((part, s.to_string())).or_insert_with(|| {
            let at = text.len();
            text.push_str(s);
            at
        });
        assert!(
            at + s.len() < 1 << PART_SHIFT,
            "a part of the lesson's text is over 1 GiB"
        );
        format!("Txt({}, {})", (part as u32) << PART_SHIFT | at as u32, s.len())
    }

    fn list(&mut self, v: &[String]) -> String {
        let items: Vec<String> = v.iter().map(|s| self.txt(s)).collect();
        format!("&[{}]", items.join(", "))
    }

    /// Runs `f` with [`Blob::txt`] writing to `lang`'s part (`None`: the common one).
    fn in_lang<R>(&mut self, lang: Option<lang::Lang>, f: impl FnOnce(&mut Self) -> R) -> R {
        let before = self.part;
        self.part = lang
            .and_then(|l| lang::Lang::ALL.iter().position(|&a| a == l))
            .map_or(0, |i| i + 1);
        let r = f(self);
        self.part = before;
        r
    }

    /// Writes each part and `text_blob.rs`: `PARTS`, each part's file name (its FNV-1a
    /// hash in it), length and hash, and `INLINE`, the parts themselves, for builds with
    /// the `inline-text` feature.
    fn write(self) {
        let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
        let (mut parts, mut inline) = (String::new(), String::new());
        for (i, text) in self.parts.iter().enumerate() {
            let hash = fnv1a(text.as_bytes());
            let file = match i {
                0 => format!("lesson-text-{hash:016x}.txt"),
                i => format!("lesson-text-{}-{hash:016x}.txt", lang::Lang::ALL[i - 1].code()),
            };
            let path = out.join(&file);
            fs::write(&path, text).expect("write the lesson text");
            let code = i.checked_sub(1).map_or("", |l| lang::Lang::ALL[l].code());
            let _ = writeln!(parts, "    ({code:?}, {file:?}, {}, {hash:#x}),", text.len());
            let _ = writeln!(inline, "    include_str!({:?}),", path.display().to_string());
        }
        let n = self.parts.len();
        let code = format!(
            "/// Each part's language code (empty: the common part), file name, beside the page,\n\
             /// length in bytes and FNV-1a hash: the common part, then each language's.\n\
             pub const PARTS: [(&str, &str, usize, u64); {n}] = [\n{parts}];\n\
             #[cfg(feature = \"inline-text\")]\npub const INLINE: [&str; {n}] = [\n{inline}];\n"
        );
        fs::write(out.join("text_blob.rs"), code).expect("write text_blob.rs");
    }
}

fn list(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == ext) {
            println!("cargo:rerun-if-changed={}", path.display());
            out.push(path);
        }
    }
}

fn write_list(name: &str, root: &Path, files: &[PathBuf]) {
    let mut out = String::from("/// (path relative to the crate root, file text), sorted by path.\npub const FILES: &[(&str, &str)] = &[\n");
    for path in files {
        let rel = path.strip_prefix(root).expect("file is under the crate root");
        let rel = rel.to_string_lossy().replace('\\', "/");
        out.push_str(&format!(
            "    ({rel:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join(name);
    fs::write(dest, out).expect("write generated file list");
}

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let content = root.join("content");
    println!("cargo:rerun-if-changed={}", content.display());

    let mut sections = Vec::new();
    for lang in lang::Lang::ALL {
        list(&content.join(lang.code()), "md", &mut sections);
    }
    sections.sort();
    write_list("content_files.rs", &root, &sections);
    let mut lessons = Vec::new();
    let mut section_errors = Vec::new();
    for lang in lang::Lang::ALL {
        // Named as the pack loader names them: `sections/<lang>/<file>`.
        let texts: Vec<(String, String)> = sections
            .iter()
            .filter(|p| p.parent().is_some_and(|d| d.ends_with(lang.code())))
            .map(|p| {
                let rel = p.strip_prefix(&content).expect("under content/");
                let rel = format!("sections/{}", rel.to_string_lossy().replace('\\', "/"));
                (rel, fs::read_to_string(p).unwrap_or_default())
            })
            .collect();
        match section::build_lesson("", lang, texts.iter().map(|(f, t)| (f.as_str(), t.as_str()))) {
            Ok(lesson) => lessons.push(lesson),
            Err(errors) => section_errors.extend(errors),
        }
    }
    if !section_errors.is_empty() {
        let list: Vec<String> = section_errors.iter().map(|e| e.to_string()).collect();
        panic!(
            "the section files have {} mistake(s):\n{}",
            list.len(),
            list.join("\n")
        );
    }

    let mut quizzes = Vec::new();
    list(&content.join("quiz"), "toml", &mut quizzes);
    quizzes.sort();
    let texts: Vec<(String, String)> = quizzes
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .expect("under root")
                .to_string_lossy()
                .replace('\\', "/");
            (rel, fs::read_to_string(p).unwrap_or_default())
        })
        .collect();
    if let Err(errors) = quiz::parse_all(texts.iter().map(|(f, t)| (f.as_str(), t.as_str()))) {
        for e in &errors {
            println!("cargo:warning={e}");
        }
        let list: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!(
            "the quiz files have {} mistake(s):\n{}",
            errors.len(),
            list.join("\n")
        );
    }
    write_list("quiz_files.rs", &root, &quizzes);
    let questions =
        quiz::parse_all(texts.iter().map(|(f, t)| (f.as_str(), t.as_str()))).expect("checked above");
    let mut blob = Blob::default();
    write_builtin_pack(&mut blob, &lessons, &questions);
    write_ui_texts(&mut blob, &content.join("ui.toml"));

    write_builtin_wire(&mut blob, &root.join("src").join("builtins.wire"));

    // Each built-in lab's lab.toml and scenario.toml, named `<id>/lab` and `<id>/scenario`.
    let labs_dir = root.join("labs");
    println!("cargo:rerun-if-changed={}", labs_dir.display());
    let mut labs = Vec::new();
    for entry in fs::read_dir(&labs_dir).expect("labs/ is readable").flatten() {
        if entry.path().is_dir() {
            list(&entry.path(), "toml", &mut labs);
        }
    }
    labs.sort();
    write_lab_files(&mut blob, &labs_dir);

    // Every text the page shows as Markdown, with its tree: the page parses none.
    // Each with its language, where one language's texts name it (`None`: several, or a
    // lab's goal in a language the lesson lacks): its tree goes to that part.
    let mut shown = std::collections::BTreeMap::<String, Option<lang::Lang>>::new();
    let mut show = |text: String, lang: Option<lang::Lang>| {
        shown
            .entry(text)
            .and_modify(|l| *l = l.filter(|&l| Some(l) == lang))
            .or_insert(lang);
    };
    let section_bodies: std::collections::BTreeMap<String, Option<lang::Lang>> = lessons
        .iter()
        .flat_map(|l| l.sections.iter().map(|s| (s.body.clone(), Some(l.lang))))
        .collect();
    for q in &questions {
        for (t, lang) in [(&q.en, lang::Lang::En), (&q.nb, lang::Lang::Nb)] {
            let texts = [&t.prompt, &t.explanation]
                .into_iter()
                .chain(&t.options)
                .chain(&t.items);
            for text in texts.cloned().chain(
                t.explanations
                    .iter()
                    .flat_map(|e| [e.clone(), quiz::without_verdict(e).into_owned()]),
            ) {
                show(text, Some(lang));
            }
        }
    }
    for path in labs.iter().filter(|p| p.ends_with("lab.toml")) {
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let value: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Some(goal) = value.get("goal").and_then(toml::Value::as_table) {
            for (code, g) in goal {
                if let Some(g) = g.as_str() {
                    show(g.to_string(), lang::Lang::from_code(code));
                }
            }
        }
    }
    write_markdown_docs(&mut blob, &shown, &section_bodies);
    blob.write();
}

/// `markdown_docs.rs`: `DOCS`, (text, its Markdown tree encoded), sorted by text: the
/// question texts and lab goals, for the page's module only (other builds parse; a
/// section body reaches the page as its tree already, `page_form`). `markdown_shown.rs`:
/// `SHOWN`, every text the page is given a tree for, for the tests.
fn write_markdown_docs(
    blob: &mut Blob,
    texts: &std::collections::BTreeMap<String, Option<lang::Lang>>,
    sections: &std::collections::BTreeMap<String, Option<lang::Lang>>,
) {
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    // One list per part of the text, each sorted by text: a part not yet fetched reads
    // as empty texts, and leaves the others' order whole.
    let mut out = String::from(
        "// Generated by build.rs: the built-in lesson's Markdown, parsed, by part of the text.\npub static DOCS: &[&[(Txt, Txt)]] = &[\n",
    );
    let mut parts = vec![String::new(); 1 + lang::Lang::ALL.len()];
    if page_module() {
        for (text, &lang) in texts.iter().filter(|(t, _)| !t.trim().is_empty()) {
            // A paragraph of plain text costs no tree: the page makes it (`markdown::plain`).
            let tree = markdown::parse(text);
            let tree = if tree == markdown::plain(text) {
                markdown::PLAIN.to_string()
            } else {
                markdown::encode(&tree)
            };
            blob.in_lang(lang, |blob| {
                let (text, tree) = (blob.txt(text), blob.txt(&tree));
                let _ = writeln!(parts[blob.part], "        ({text}, {tree}),");
            });
        }
    }
    for part in parts {
        let _ = writeln!(out, "    &[\n{part}    ],");
    }
    out.push_str("];\n");
    fs::write(out_dir.join("markdown_docs.rs"), out).expect("write markdown_docs.rs");
    let mut out = String::from("// Generated by build.rs.\npub static SHOWN: &[Txt] = &[\n");
    if !page_module() {
        let all: std::collections::BTreeMap<&String, &Option<lang::Lang>> =
            texts.iter().chain(sections).collect();
        for (text, &lang) in all.into_iter().filter(|(t, _)| !t.trim().is_empty()) {
            let _ = writeln!(out, "    {},", blob.in_lang(lang, |blob| blob.txt(text)));
        }
    }
    out.push_str("];\n");
    fs::write(out_dir.join("markdown_shown.rs"), out).expect("write markdown_shown.rs");
}

/// Whether this build fetches the text (built without `inline-text`: the page's module,
/// which gets Markdown as trees since it has no parser, and the engine's, whose worker
/// fetches the same file; both read the same text, and the engine parses what it must).
fn page_module() -> bool {
    env::var_os("CARGO_FEATURE_INLINE_TEXT").is_none()
}

/// `lab_files.rs`: `SHOWN`, what a section shows of each built-in lab that its compiled
/// form (`src/builtins.wire`) leaves out: (id, starter.js, starter.nb.js or an empty
/// text), sorted by id. Each starter is in its language's part: a reader downloads the
/// one their editor starts with.
fn write_lab_files(blob: &mut Blob, labs_dir: &Path) {
    let mut ids: Vec<String> = fs::read_dir(labs_dir)
        .expect("labs/ is readable")
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    let mut out =
        String::from("// Generated by build.rs from labs/.\npub static SHOWN: &[(&str, Txt, Txt)] = &[\n");
    for id in ids {
        let dir = labs_dir.join(&id);
        let path = dir.join("starter.js");
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let starter = blob.in_lang(Some(lang::Lang::En), |b| b.txt(&text));
        // The Norwegian starter, where the lab has one.
        let nb_path = dir.join("starter.nb.js");
        println!("cargo:rerun-if-changed={}", nb_path.display());
        let nb_text = fs::read_to_string(&nb_path).unwrap_or_default();
        let starter_nb = blob.in_lang(Some(lang::Lang::Nb), |b| b.txt(&nb_text));
        let _ = writeln!(out, "    ({id:?}, {starter}, {starter_nb}),");
    }
    out.push_str("];\n");
    let dest = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("lab_files.rs");
    fs::write(dest, out).expect("write lab_files.rs");
}

/// `builtin_wire.rs`: `SCENARIOS` and `LABS`, one `(name, wire text)` per line
/// `scenario <name> <text>` or `lab <id> <text>` of `src/builtins.wire` (`#` starts a
/// comment line). Each text (base64) goes into the lesson's text as one char per byte,
/// U+0000 to U+00FF (`crate::wire::from_byte_text`): its strings readable, so the file
/// compresses as text does.
fn write_builtin_wire(blob: &mut Blob, path: &Path) {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut scenarios, mut labs) = (String::new(), String::new());
    for (n, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.splitn(3, ' ');
        let (kind, name, wire) = (words.next(), words.next(), words.next());
        let entry = match (name, wire) {
            (Some(name), Some(wire)) => {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(wire.trim_end())
                    .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
                let chars: String = bytes.iter().map(|&b| char::from(b)).collect();
                format!("    ({name:?}, {}),\n", blob.txt(&chars))
            }
            _ => panic!("{}:{}: not `<kind> <name> <text>`", path.display(), n + 1),
        };
        match kind {
            Some("scenario") => scenarios.push_str(&entry),
            Some("lab") => labs.push_str(&entry),
            _ => panic!("{}:{}: the kind is `scenario` or `lab`", path.display(), n + 1),
        }
    }
    let code = format!(
        "// Generated by build.rs from src/builtins.wire.\npub static SCENARIOS: &[(&str, Txt)] = &[\n{scenarios}];\npub static LABS: &[(&str, Txt)] = &[\n{labs}];\n"
    );
    let dest = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("builtin_wire.rs");
    fs::write(dest, code).expect("write builtin_wire.rs");
}

/// The families of ui.toml's keys that the app names as it runs (`format!("lab_msg_{code}")`):
/// only their names are in the modules, for [`write_ui_texts`]'s `NAMED`.
const NAMED_PREFIXES: &[&str] = &[
    "control_",
    "knob_aof_",
    "lab_broke_",
    "lab_check_",
    "lab_hint_",
    "lab_msg_",
    "lab_v_",
    "prop_",
    "sc_status_",
];

/// `ui_texts.rs`: a constant per key of ui.toml (`k::NEXT`, its place in the sorted
/// keys), `NAMED`, the names of the keys the app makes as it runs ([`NAMED_PREFIXES`]),
/// and `UI`, one `(language, block)` per table: the block is the language's texts in the
/// keys' order, each ended by a NUL but the last, as one string of its part. So a key is
/// checked when the app is compiled, and the modules carry no key's name but those, and
/// no table of places (`lesson::i18n` finds the texts' starts on first use). A table whose
/// keys are not `[en]`'s, or a text with a NUL in it, fails the build.
fn write_ui_texts(blob: &mut Blob, path: &Path) {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(path).expect("content/ui.toml is readable");
    let table: std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>> =
        toml::from_str(&text).unwrap_or_else(|e| panic!("content/ui.toml: {e}"));
    let keys: Vec<&String> = table
        .get("en")
        .unwrap_or_else(|| panic!("content/ui.toml: no [en] table"))
        .keys()
        .collect();
    let mut out = String::from(
        "// Generated by build.rs from content/ui.toml.\n/// Each key, named in capitals: its place in a language's block.\npub mod k {\n    use super::Key;\n",
    );
    for (i, key) in keys.iter().enumerate() {
        let _ = writeln!(out, "    pub const {}: Key = Key({i});", key.to_uppercase());
    }
    out.push_str("}\n/// The keys whose names the app makes as it runs, sorted, with their places.\npub static NAMED: &[(&str, Key)] = &[\n");
    for (i, key) in keys.iter().enumerate() {
        if NAMED_PREFIXES.iter().any(|p| key.starts_with(p)) {
            let _ = writeln!(out, "    ({key:?}, Key({i})),");
        }
    }
    let _ = writeln!(out, "];\npub const UI: [(&str, Txt); {}] = [", table.len());
    for (lang, texts) in &table {
        let own: Vec<&String> = texts.keys().collect();
        if own != keys {
            let lacks = keys.iter().find(|k| !texts.contains_key(k.as_str()));
            let extra = own.iter().find(|k| !keys.contains(k));
            panic!("content/ui.toml: [{lang}]'s keys are not [en]'s (lacks {lacks:?}, has {extra:?} beyond)");
        }
        if let Some((key, _)) = texts.iter().find(|(_, t)| t.contains('\0')) {
            panic!("content/ui.toml: [{lang}] {key} has a NUL in it");
        }
        let block = texts.values().map(String::as_str).collect::<Vec<_>>().join("\0");
        let txt = blob.in_lang(lang::Lang::from_code(lang), |blob| blob.txt(&block));
        let _ = writeln!(out, "    ({lang:?}, {txt}),");
    }
    out.push_str("];\n");
    let dest = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("ui_texts.rs");
    fs::write(dest, out).expect("write ui_texts.rs");
}

/// `builtin_pack.rs`: the sections and questions as static tables (`SECTIONS`,
/// `QUESTIONS`, of the plain types in `lesson::content::compiled`): data, not code, so
/// the module carries the text once and one small loop turns it into values.
fn write_builtin_pack(blob: &mut Blob, lessons: &[section::Lesson], questions: &[quiz::Question]) {
    let mut out = String::from("// Generated by build.rs from content/: the built-in lesson, compiled.\n");
    out.push_str("pub static SECTIONS: &[S] = &[\n");
    for lesson in lessons {
        for s in &lesson.sections {
            let (title, body) = blob.in_lang(Some(lesson.lang), |blob| {
                let body = match page_module() {
                    true => markdown::page_form(&s.body),
                    false => s.body.clone(),
                };
                (blob.txt(&s.title), blob.txt(&body))
            });
            let _ = writeln!(
                out,
                "    S {{ lang: Lang::{:?}, id: {:?}, title: {title}, order: {}, body: {body}, file: {:?} }},",
                lesson.lang, s.id, s.order, s.file
            );
        }
    }
    out.push_str("];\n\npub static QUESTIONS: &[Q] = &[\n");
    for q in questions {
        let _ = writeln!(
            out,
            "    Q {{ id: {:?}, section: {:?}, kind: {}, en: {}, nb: {} }},",
            q.id,
            q.section,
            static_kind(blob, &q.kind),
            blob.in_lang(Some(lang::Lang::En), |blob| static_texts(blob, &q.en)),
            blob.in_lang(Some(lang::Lang::Nb), |blob| static_texts(blob, &q.nb))
        );
    }
    out.push_str("];\n");
    let dest = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("builtin_pack.rs");
    fs::write(dest, out).expect("write builtin_pack.rs");
}

fn static_texts(blob: &mut Blob, t: &quiz::Texts) -> String {
    let unit = match &t.unit {
        Some(u) => format!("Some({})", blob.txt(u)),
        None => "None".to_string(),
    };
    format!(
        "T {{ prompt: {}, options: {}, explanations: {}, explanation: {}, unit: {unit}, items: {} }}",
        blob.txt(&t.prompt),
        blob.list(&t.options),
        blob.list(&t.explanations),
        blob.txt(&t.explanation),
        blob.list(&t.items)
    )
}

fn static_kind(blob: &mut Blob, k: &quiz::Kind) -> String {
    use quiz::Kind;
    match k {
        Kind::Predict {
            scenario,
            pause_at_ms,
        } => format!("K::Predict({scenario:?}, {pause_at_ms})"),
        Kind::Single { correct } => format!("K::Single({correct})"),
        Kind::Multiple { correct } => format!("K::Multiple(&{:?})", correct.iter().collect::<Vec<_>>()),
        // Floats by their bits: the compiled answer is the parsed one, to the last place.
        Kind::Numeric { answer, tolerance } => {
            format!("K::Numeric({:#x}, {:#x})", answer.to_bits(), tolerance.to_bits())
        }
        Kind::Order => "K::Order".to_string(),
        Kind::Bug {
            code,
            code_lang,
            bug_line,
        } => format!("K::Bug({}, {code_lang:?}, {bug_line})", blob.txt(code)),
        Kind::Generated(g) => format!("K::Generated(Generator::{g:?})"),
    }
}
