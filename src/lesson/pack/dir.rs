//! Natively: a pack read from a folder or a pack.toml on disk (`lockstep check-pack`,
//! `lab run --pack`), with every file checked to be a regular file inside the folder.

use super::error::*;
use super::file::*;
use super::limits::*;
use super::load::*;
use super::loaded::Pack;
use std::collections::BTreeSet;

/// Reads a pack folder (its `pack.toml` and the files in `sections/`, `quiz/`,
/// `scenarios/` and `labs/<id>/`, listed or not, so unlisted ones are reported), or a single-file pack,
/// and validates it. A file that cannot be read is an error naming it, never a panic.
///
/// Nothing outside the pack is touched: a listed path is checked (plain, relative, no
/// `..`) before the file system is asked about it, only regular files are opened (never
/// a device or a FIFO), a symbolic link must stay inside the pack's folder, and no file
/// is read past [`MAX_FILE_BYTES`].
pub fn load_dir(path: impl AsRef<std::path::Path>) -> Result<Pack, Vec<PackError>> {
    use std::fs;
    use std::path::Path;
    let path = path.as_ref();
    let shown = |p: &Path| p.to_string_lossy().replace('\\', "/");
    let dir = if path.is_dir() {
        path.to_path_buf()
    } else if path.file_name().is_some_and(|n| n == PACK_FILE) {
        path.parent().map(|p| p.to_path_buf()).unwrap_or_default()
    } else {
        // A single-file pack.
        let name = shown(path);
        return match read_regular(path, None) {
            Ok(text) => load(&[(name, text)], &[], false),
            Err(reason) => Err(vec![PackError::unreadable(&name, &reason)]),
        };
    };
    let root = shown(&dir);
    let root = root.trim_end_matches('/');
    let join = |rel: &str| {
        if root.is_empty() {
            rel.to_string()
        } else {
            format!("{root}/{rel}")
        }
    };
    let pack_name = join(PACK_FILE);
    let folder = if root.is_empty() {
        Path::new(".")
    } else {
        dir.as_path()
    };
    let inside = match fs::canonicalize(folder) {
        Ok(p) => p,
        Err(e) => return Err(vec![PackError::unreadable(&pack_name, &e.to_string())]),
    };
    let pack_text = match read_regular(&dir.join(PACK_FILE), Some(&inside)) {
        Ok(t) => t,
        Err(reason) => return Err(vec![PackError::unreadable(&pack_name, &reason)]),
    };
    // The listed files, and whatever sits in the pack's folders (to report unlisted ones).
    let mut rels: BTreeSet<String> = BTreeSet::new();
    if pack_text.len() <= MAX_FILE_BYTES {
        if let Ok(listed) = toml::from_str::<RawPack>(&pack_text) {
            rels.extend(listed.files.iter().take(MAX_FILES).map(|f| f.get_ref().clone()));
        }
    }
    let listed = rels.clone();
    let names_in = |sub: &Path| -> Vec<String> {
        let mut out: Vec<String> = fs::read_dir(sub)
            .into_iter()
            .flatten()
            .flatten()
            .take(MAX_FILES)
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect();
        crate::sorting::sort(&mut out);
        out
    };
    for lang in names_in(&dir.join("sections")) {
        if dir.join("sections").join(&lang).is_dir() {
            for name in names_in(&dir.join("sections").join(&lang)) {
                rels.insert(format!("sections/{lang}/{name}"));
            }
        }
    }
    for sub in ["quiz", "scenarios"] {
        for name in names_in(&dir.join(sub)) {
            rels.insert(format!("{sub}/{name}"));
        }
    }
    for lab in names_in(&dir.join("labs")) {
        if dir.join("labs").join(&lab).is_dir() {
            for name in names_in(&dir.join("labs").join(&lab)) {
                rels.insert(format!("labs/{lab}/{name}"));
            }
        }
    }
    let mut files = vec![(pack_name, pack_text)];
    let mut unreadable = Vec::new();
    let mut total = files[0].1.len();
    for rel in rels {
        // The path's shape is checked before the file system sees it: a path that is not
        // plain (absolute, `..`, a URL) is reported by `load` and never opened.
        if !is_plain_path(&rel) {
            if !listed.contains(&rel) {
                // A stray file in the folders (`.swp`…): named, not read.
                files.push((join(&rel), String::new()));
            }
            continue;
        }
        let file = dir.join(&rel);
        if fs::symlink_metadata(&file).is_err() {
            continue; // reported as "listed but not found"
        }
        if total > MAX_PACK_BYTES {
            unreadable.push((
                join(&rel),
                "not read: the pack is already over its size limit".into(),
            ));
            continue;
        }
        match read_regular(&file, Some(&inside)) {
            Ok(text) => {
                total += text.len();
                files.push((join(&rel), text));
            }
            Err(reason) => unreadable.push((join(&rel), reason)),
        }
    }
    load(&files, &unreadable, false)
}

/// Reads a pack's file if it is a regular file (not a device, FIFO or folder), inside
/// `inside` when given (a symbolic link may not lead out of the pack), and at most
/// [`MAX_FILE_BYTES`] long; otherwise says why not. Never reads more than the limit.
pub(super) fn read_regular(
    file: &std::path::Path,
    inside: Option<&std::path::Path>,
) -> Result<String, String> {
    use std::io::Read;
    let real = std::fs::canonicalize(file).map_err(|e| e.to_string())?;
    if inside.is_some_and(|dir| !real.starts_with(dir)) {
        return Err("it leads outside the pack's folder (a symbolic link?); it was not opened".into());
    }
    let meta = std::fs::metadata(&real).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file (a folder, device or pipe); it was not opened".into());
    }
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(format!(
            "it is {} bytes; at most {MAX_FILE_BYTES} are allowed",
            meta.len()
        ));
    }
    let mut text = String::new();
    std::fs::File::open(&real)
        .and_then(|f| f.take(MAX_FILE_BYTES as u64 + 1).read_to_string(&mut text))
        .map_err(|e| e.to_string())?;
    if text.len() > MAX_FILE_BYTES {
        return Err(format!(
            "it is more than {MAX_FILE_BYTES} bytes; at most {MAX_FILE_BYTES} are allowed"
        ));
    }
    Ok(text)
}
