//! Loading a lesson pack in the browser: `?pack=<url>` (same origin or CORS), or files the
//! learner chose (`?pack=local`, kept in sessionStorage so a reload keeps the pack).
//! Validation is `lesson::pack::load_files`, made in the engine's worker (`calls`): every
//! mistake is reported, none panics.

use crate::calls::{Answer, PackFile, PackFiles, Request};
use crate::lesson::pack::{Pack, PackError, MAX_FILE_BYTES, MAX_PACK_BYTES};
use crate::ui::engine_worker;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// sessionStorage key for chosen files: JSON `[[path, text], …]`, the pack file first.
pub const LOCAL_KEY: &str = "lockstep.pack.files";
/// sessionStorage key for chosen files too large to read: JSON `[[path, reason], …]`.
pub const SKIPPED_KEY: &str = "lockstep.pack.skipped";

/// Why a file was not taken: the server's or the network's failure, or the size limit.
#[derive(Debug)]
pub enum FetchError {
    Failed(String),
    /// Larger than the limit: reading stopped after `read` bytes, the rest never came.
    TooBig {
        read: usize,
    },
}

/// Fetches `url` as text, reading at most `limit` bytes: a larger body is cancelled after
/// the chunk that passes the limit, so a hostile or mistaken address (a huge file, an
/// endless stream) costs the page at most `limit` plus one chunk of memory.
pub async fn fetch_text(url: &str, limit: usize) -> Result<String, FetchError> {
    let failed = |m: String| FetchError::Failed(m);
    let window = web_sys::window().ok_or_else(|| failed("no window".into()))?;
    let resp = JsFuture::from(window.fetch_with_str(url)).await.map_err(|_| {
        failed(crate::lesson::pack::unfetchable(
            url,
            &window.location().href().unwrap_or_default(),
        ))
    })?;
    let resp: web_sys::Response = resp
        .dyn_into()
        .map_err(|_| failed(format!("{url}: not a response")))?;
    match resp.status() {
        _ if resp.ok() => {}
        404 | 410 => {
            return Err(failed(format!(
                "{url}: there is no file at this address (HTTP {})",
                resp.status()
            )))
        }
        status => return Err(failed(format!("{url}: the server answered HTTP {status}"))),
    }
    let bytes = read_bounded(&resp, limit)
        .await
        .map_err(|e| e.unwrap_or_else(|| failed(format!("{url}: unreadable body"))))?;
    String::from_utf8(bytes).map_err(|_| failed(format!("{url}: not UTF-8 text")))
}

/// The body of `resp`, chunk by chunk, up to `limit` bytes (`Err(None)`: unreadable).
pub async fn read_bounded(resp: &web_sys::Response, limit: usize) -> Result<Vec<u8>, Option<FetchError>> {
    // A declared length over the limit is refused before a byte is read.
    let declared = resp
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(Some(FetchError::TooBig { read: 0 }));
    }
    let Some(body) = resp.body() else {
        return Ok(Vec::new());
    };
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut out = Vec::new();
    loop {
        let chunk: web_sys::ReadableStreamReadResult = JsFuture::from(reader.read())
            .await
            .map_err(|_| None)?
            .unchecked_into();
        if chunk.get_done().unwrap_or(true) {
            return Ok(out);
        }
        let bytes = js_sys::Uint8Array::new(&chunk.get_value());
        if out.len() + bytes.length() as usize > limit {
            let read = out.len() + bytes.length() as usize;
            let _ = reader.cancel();
            return Err(Some(FetchError::TooBig { read }));
        }
        out.extend(bytes.to_vec());
    }
}

/// The message for a file over its limit, in the loader's words (as `check-pack` says it).
fn too_big_reason(limit: usize) -> String {
    format!("it is larger than {limit} bytes, the most a pack file may be; not downloaded further")
}

fn resolve(base: &str, rel: &str) -> Option<String> {
    web_sys::Url::new_with_base(rel, base).ok().map(|u| u.href())
}

/// Fetches the pack file at `url`, then every file it lists, and validates the lot. Each
/// file is read up to the loader's size limit and the whole pack up to its own: what
/// would pass them is not downloaded, and the validation names it.
pub async fn from_url(url: &str) -> Result<Pack, Vec<String>> {
    let (files, unreadable) = fetch_pack(url, MAX_FILE_BYTES, MAX_PACK_BYTES).await?;
    load(PackFiles { files, unreadable }).await
}

/// The pack `files` make, validated in the engine's worker (the loader reads TOML and
/// Markdown and checks scenarios and labs, none of which the page needs otherwise).
async fn load(files: PackFiles) -> Result<Pack, Vec<String>> {
    let pack = match engine_worker::call(Request::PackLoad(files)).await {
        Some(Answer::PackLoad(r)) => r,
        _ => Err(vec![NO_READER.to_string()]),
    }?;
    // The page parses no Markdown: the engine parses the pack's texts for it.
    crate::ui::components::learn_trees(pack.markdown_texts()).await;
    Ok(pack)
}

/// The files the pack file `name` lists, read in the engine's worker.
async fn listed(name: &str, text: &str) -> Result<Vec<String>, Vec<String>> {
    let file = PackFile {
        name: name.to_string(),
        text: text.to_string(),
    };
    match engine_worker::call(Request::PackList(file)).await {
        Some(Answer::PackList(r)) => r,
        _ => Err(vec![NO_READER.to_string()]),
    }
}

/// Why a pack could not be read where the engine could not start.
const NO_READER: &str = "The pack could not be read: its reader is the simulator's, which could not start in this browser (its worker did not run).";

/// The files of the pack at `url` (the pack file first) and those that were not taken,
/// each with its reason; `Err` when the pack file itself cannot be had.
async fn fetch_pack(
    url: &str,
    file_limit: usize,
    pack_limit: usize,
) -> Result<(Vec<(String, String)>, Vec<(String, String)>), Vec<String>> {
    let page = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    let pack_url = resolve(&page, url).ok_or_else(|| vec![format!("{url}: not a valid address")])?;
    let name = pack_url.rsplit('/').next().unwrap_or("pack.toml").to_string();
    let text = match fetch_text(&pack_url, file_limit).await {
        Ok(t) => t,
        Err(FetchError::Failed(m)) => return Err(vec![m]),
        Err(FetchError::TooBig { .. }) => {
            return Err(vec![
                PackError::unreadable(&name, &too_big_reason(file_limit)).to_string()
            ])
        }
    };
    let mut total = text.len();
    let mut files = vec![(name.clone(), text.clone())];
    let mut unreadable = Vec::new();
    let rest = listed(&name, &text).await?;
    for rel in rest {
        if total > pack_limit {
            unreadable.push((rel, "not read: the pack is already over its size limit".into()));
            continue;
        }
        // A file that cannot be fetched is left out; the validation names it.
        if let Some(u) = resolve(&pack_url, &rel) {
            match fetch_text(&u, file_limit).await {
                Ok(t) => {
                    total += t.len();
                    files.push((rel, t));
                }
                Err(FetchError::TooBig { .. }) => unreadable.push((rel, too_big_reason(file_limit))),
                Err(FetchError::Failed(_)) => {}
            }
        }
    }
    Ok((files, unreadable))
}

/// The files a learner chose earlier in this tab.
pub async fn from_session() -> Result<Pack, Vec<String>> {
    let storage = web_sys::window().and_then(|w| w.session_storage().ok().flatten());
    let raw = storage
        .as_ref()
        .and_then(|s| s.get_item(LOCAL_KEY).ok().flatten())
        .ok_or_else(|| vec!["No chosen pack files are kept in this tab; choose them again.".to_string()])?;
    let files: Vec<(String, String)> = crate::wire::from_text(&raw)
        .map_err(|_| vec!["The chosen pack files could not be read back.".to_string()])?;
    let skipped: Vec<(String, String)> = storage
        .and_then(|s| s.get_item(SKIPPED_KEY).ok().flatten())
        .and_then(|j| crate::wire::from_text(&j).ok())
        .unwrap_or_default();
    load(PackFiles {
        files,
        unreadable: skipped,
    })
    .await
}

/// Orders chosen files for `load_files`: the pack file (a `.toml` at the top, `pack.toml`
/// preferred) first, paths made relative to the chosen folder.
pub fn arrange(mut files: Vec<(String, String)>) -> Vec<(String, String)> {
    // A chosen folder gives "folder/pack.toml", "folder/sections/en/…": drop "folder/".
    let common = files.iter().all(|(p, _)| p.contains('/'))
        && files
            .iter()
            .map(|(p, _)| p.split('/').next().unwrap_or(""))
            .collect::<Vec<_>>()
            .windows(2)
            .all(|w| w[0] == w[1]);
    if common {
        for (p, _) in &mut files {
            if let Some((_, rest)) = p.split_once('/') {
                *p = rest.to_string();
            }
        }
    }
    crate::sorting::sort_by_key(&mut files, |(p, _)| {
        (p != "pack.toml", p.contains('/'), p.clone())
    });
    files
}

/// Keeps chosen files (and those too large to read) for this tab and reloads with
/// `?pack=local`.
pub fn open_local(files: Vec<(String, String)>, skipped: Vec<(String, String)>) {
    let Some(w) = web_sys::window() else { return };
    let json = crate::wire::to_text(&arrange(files)).unwrap_or_default();
    if let Some(s) = w.session_storage().ok().flatten() {
        let _ = s.set_item(LOCAL_KEY, &json);
        let _ = s.set_item(SKIPPED_KEY, &crate::wire::to_text(&skipped).unwrap_or_default());
    }
    let _ = w.location().set_search("?pack=local");
}

/// Reads every chosen file (a single pack file, or a whole folder) and opens them.
pub fn open_chosen(input: &web_sys::HtmlInputElement) {
    let Some(list) = input.files() else { return };
    let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
    wasm_bindgen_futures::spawn_local(async move {
        let mut out = Vec::new();
        let mut skipped = Vec::new();
        for f in files {
            let rel = js_sys::Reflect::get(&f, &"webkitRelativePath".into())
                .ok()
                .and_then(|v| v.as_string())
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| f.name());
            // A chosen file over the limit is not read into the page; the validation
            // names it (kept beside the files for this tab).
            if f.size() > MAX_FILE_BYTES as f64 {
                skipped.push((rel, too_big_reason(MAX_FILE_BYTES)));
                continue;
            }
            if let Ok(text) = JsFuture::from(f.text()).await {
                out.push((rel, text.as_string().unwrap_or_default()));
            }
        }
        if !out.is_empty() || !skipped.is_empty() {
            open_local(out, skipped);
        }
    });
}
