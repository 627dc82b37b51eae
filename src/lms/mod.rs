//! `lockstep package`: the lesson as a zip a learning platform imports as is, in three
//! formats (SCORM 1.2, SCORM 2004 4th edition, cmi5). Each zip holds the built app
//! (`dist/`), the launch page `lms.html` with what the instructor chose (its sections,
//! language, pack and passing rule) in it, the adapter `lms.js` that finds the platform
//! and reports to it, and the format's manifest ([`manifest`]).
//!
//! [`plan()`] checks the choices against the lesson (every mistake names the option);
//! [`write`] makes the zips. Nothing here runs in the browser: `lms/lms.js` does.

pub mod manifest;
mod plan;

use plan::PACK_DIR;
pub use plan::*;

use std::path::{Path, PathBuf};

/// The adapter, as `lms/` has it.
const LMS_JS: &str = include_str!("../../lms/lms.js");

/// The most bytes of a pack's folder a package copies (a pack the app loads is far less).
const MAX_PACK_COPY: u64 = 16 << 20;

/// What a written package holds and weighs.
#[derive(Debug)]
pub struct Written {
    pub path: PathBuf,
    pub files: usize,
    pub bytes: u64,
}

/// Writes one zip per format into `out`: `dist`'s files (not the `.br`/`.gz` copies a
/// static host serves; a platform compresses by itself), the pack if any, `lms.html`,
/// `lms.js` and the manifest. The zips' dates are fixed, so one build packs to the same
/// bytes.
pub fn write(plan: &Plan, dist: &Path, out: &Path) -> Result<Vec<Written>, String> {
    if !dist.join("index.html").is_file() {
        return Err(format!(
            "{}: no built app here (no index.html); run `make build` first",
            dist.display()
        ));
    }
    let mut app = Vec::new();
    let mut unbounded = u64::MAX;
    gather(dist, dist, &mut app, &mut unbounded)?;
    app.retain(|(rel, _)| !rel.ends_with(".br") && !rel.ends_with(".gz") && rel != "index.html");
    let index =
        std::fs::read_to_string(dist.join("index.html")).map_err(|e| format!("{}: {e}", dist.display()))?;
    let index = relative_refs(&index, app.iter().map(|(rel, _)| rel.as_str()));
    if let Some(dir) = &plan.pack_dir {
        let mut pack = Vec::new();
        let mut budget = MAX_PACK_COPY;
        gather(dir, dir, &mut pack, &mut budget)?;
        app.extend(pack.into_iter().map(|(rel, p)| (format!("{PACK_DIR}/{rel}"), p)));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut written = Vec::new();
    for &format in &plan.formats {
        let mut names: Vec<String> = app.iter().map(|(rel, _)| rel.clone()).collect();
        names.extend(["index.html", "lms.html", "lms.js"].map(String::from));
        names.sort();
        let (manifest_name, manifest) = manifest::manifest(plan, format, &names);
        let path = out.join(format.zip_name());
        let files = app.len() + 4;
        write_zip(
            &path,
            &app,
            &[
                (manifest_name, manifest),
                ("lms.html", plan.launch_html(format)),
                ("lms.js", LMS_JS.to_string()),
                ("index.html", index.clone()),
            ],
        )?;
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        written.push(Written { path, files, bytes });
    }
    Ok(written)
}

/// The page names its own files from the site's root (`"/boot.js"`), as Trunk writes
/// them; a platform serves a package under a path of its own, so these become relative
/// (`"./boot.js"`: `./` so that a module import reads it as a path). Only the names of files the package has are touched.
pub fn relative_refs<'a>(html: &str, files: impl Iterator<Item = &'a str>) -> String {
    let mut out = html.to_string();
    for name in files.filter(|f| !f.contains('/')) {
        out = out.replace(&format!("\"/{name}\""), &format!("\"./{name}\""));
    }
    out
}

/// Every regular file under `dir` (symbolic links are not followed), as `(relative path
/// with /, full path)`, sorted; `budget` is what may still be copied, in bytes.
fn gather(
    root: &Path,
    dir: &Path,
    into: &mut Vec<(String, PathBuf)>,
    budget: &mut u64,
) -> Result<(), String> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        if kind.is_dir() {
            gather(root, &path, into, budget)?;
        } else if kind.is_file() {
            let size = e.metadata().map(|m| m.len()).unwrap_or(0);
            *budget = budget
                .checked_sub(size)
                .ok_or_else(|| format!("{}: more than {MAX_PACK_COPY} bytes to copy", root.display()))?;
            let rel = path.strip_prefix(root).unwrap_or(&path);
            into.push((rel.to_string_lossy().replace('\\', "/"), path));
        }
    }
    Ok(())
}

fn write_zip(path: &Path, files: &[(String, PathBuf)], made: &[(&str, String)]) -> Result<(), String> {
    use std::io::Write;
    use zip::write::SimpleFileOptions;
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    for (name, text) in made {
        zip.start_file(*name, options).map_err(|e| fail(&e))?;
        zip.write_all(text.as_bytes()).map_err(|e| fail(&e))?;
    }
    for (rel, full) in files {
        let bytes = std::fs::read(full).map_err(|e| format!("{}: {e}", full.display()))?;
        zip.start_file(rel.as_str(), options).map_err(|e| fail(&e))?;
        zip.write_all(&bytes).map_err(|e| fail(&e))?;
    }
    zip.finish().map_err(|e| fail(&e))?;
    Ok(())
}
