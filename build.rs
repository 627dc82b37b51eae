//! Embeds the lesson's data files into the binary and validates the quizzes.
//!
//! - `content/<lang>/*.md` → `content_files.rs` (sections), so adding a section is
//!   adding a file, not editing Rust.
//! - `content/quiz/*.toml` → `quiz_files.rs`, after validating them with the same parser
//!   the app uses (`src/lesson/quiz.rs`): a mistake fails the build with
//!   `file:line: field: message` for every mistake at once.
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
}
