//! Fuzzes the lesson-pack loader with packs of several files. Framing: the input, read as
//! UTF-8 (lossily), is split at lines that start with `=== `; the rest of such a line is
//! the next file's path. Text before the first such line is `pack.toml`; if the input
//! starts with one, that line names the pack file (a single-file pack, or one in a folder).
//! Example: `id = "x"\n…\n=== sections/en/01-a.md\n+++\n…`. Every error is rendered; a
//! pack that loads is summarised.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockstep::lesson::pack::{load_files, PACK_FILE};

const MAX_FILES: usize = 24;

fn split(text: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut name = PACK_FILE.to_string();
    let mut body = String::new();
    let mut first = true;
    for line in text.split_inclusive('\n') {
        if let Some(path) = line.strip_prefix("=== ") {
            if !(first && body.is_empty()) {
                files.push((std::mem::take(&mut name), std::mem::take(&mut body)));
            }
            name = path.trim_end_matches(['\n', '\r']).to_string();
        } else {
            body.push_str(line);
        }
        first = false;
    }
    files.push((name, body));
    files.truncate(MAX_FILES);
    files
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let files = split(&text);
    match load_files(&files) {
        Ok(pack) => {
            let _ = pack.summary();
            for q in &pack.questions {
                let _ = pack.questions_for(&q.section).count();
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty(), "a pack was rejected without an error");
            for e in errors {
                let _ = e.to_string();
            }
        }
    }
});
