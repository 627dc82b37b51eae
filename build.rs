//! Embeds every lesson file under `content/<lang>/*.md` into the binary.
//!
//! The list is generated so that adding a section is adding a file, not editing Rust.
//! Files are sorted by path so the generated code (and the binary) is reproducible.

use std::{env, fs, path::Path};

fn main() {
    println!("cargo:rerun-if-changed=content");
    let root =
        Path::new(&env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("content");
    let mut files = Vec::new();
    if let Ok(langs) = fs::read_dir(&root) {
        for lang in langs.flatten() {
            let lang_path = lang.path();
            if !lang_path.is_dir() {
                continue;
            }
            println!("cargo:rerun-if-changed={}", lang_path.display());
            let Ok(entries) = fs::read_dir(&lang_path) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "md") {
                    println!("cargo:rerun-if-changed={}", path.display());
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    let mut out = String::from("/// (path relative to the crate root, file text), sorted by path.\npub const FILES: &[(&str, &str)] = &[\n");
    for path in &files {
        let rel = path
            .strip_prefix(root.parent().expect("content has a parent"))
            .expect("file is under content/");
        let rel = rel.to_string_lossy().replace('\\', "/");
        out.push_str(&format!(
            "    ({rel:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("content_files.rs");
    fs::write(dest, out).expect("write generated content list");
}
