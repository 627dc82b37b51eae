//! Loading a lesson pack in the browser: `?pack=<url>` (same origin or CORS), or files the
//! learner chose (`?pack=local`, kept in sessionStorage so a reload keeps the pack).
//! Validation is `lesson::pack::load_files`: every mistake is reported, none panics.

use crate::lesson::pack::{files_to_fetch, load_files, Pack};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// sessionStorage key for chosen files: JSON `[[path, text], …]`, the pack file first.
pub const LOCAL_KEY: &str = "lockstep.pack.files";

async fn fetch_text(url: &str) -> Result<String, String> {
    let window = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|_| format!("{url}: could not be fetched"))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| format!("{url}: not a response"))?;
    match resp.status() {
        _ if resp.ok() => {}
        404 | 410 => {
            return Err(format!(
                "{url}: there is no file at this address (HTTP {})",
                resp.status()
            ))
        }
        status => return Err(format!("{url}: the server answered HTTP {status}")),
    }
    let text = JsFuture::from(resp.text().map_err(|_| format!("{url}: no body"))?)
        .await
        .map_err(|_| format!("{url}: unreadable body"))?;
    text.as_string().ok_or_else(|| format!("{url}: not text"))
}

fn resolve(base: &str, rel: &str) -> Option<String> {
    web_sys::Url::new_with_base(rel, base).ok().map(|u| u.href())
}

/// Fetches the pack file at `url`, then every file it lists, and validates the lot.
pub async fn from_url(url: &str) -> Result<Pack, Vec<String>> {
    let page = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    let pack_url = resolve(&page, url).ok_or_else(|| vec![format!("{url}: not a valid address")])?;
    let name = pack_url.rsplit('/').next().unwrap_or("pack.toml").to_string();
    let text = fetch_text(&pack_url).await.map_err(|e| vec![e])?;
    let mut files = vec![(name.clone(), text.clone())];
    let rest = files_to_fetch(&name, &text)
        .map_err(|errs| errs.iter().map(|e| e.to_string()).collect::<Vec<_>>())?;
    for rel in rest {
        // A file that cannot be fetched is left out; the validation names it.
        if let Some(u) = resolve(&pack_url, &rel) {
            if let Ok(t) = fetch_text(&u).await {
                files.push((rel, t));
            }
        }
    }
    validate(&files)
}

/// The files a learner chose earlier in this tab.
pub fn from_session() -> Result<Pack, Vec<String>> {
    let raw = web_sys::window()
        .and_then(|w| w.session_storage().ok().flatten())
        .and_then(|s| s.get_item(LOCAL_KEY).ok().flatten())
        .ok_or_else(|| vec!["No chosen pack files are kept in this tab; choose them again.".to_string()])?;
    let files: Vec<(String, String)> = serde_json::from_str(&raw)
        .map_err(|_| vec!["The chosen pack files could not be read back.".to_string()])?;
    validate(&files)
}

pub fn validate(files: &[(String, String)]) -> Result<Pack, Vec<String>> {
    load_files(files).map_err(|errs| errs.iter().map(|e| e.to_string()).collect())
}

/// Orders chosen files for `load_files`: the pack file (a `.toml` at the top, `pack.toml`
/// preferred) first, paths made relative to the chosen folder.
pub fn arrange(mut files: Vec<(String, String)>) -> Vec<(String, String)> {
    // A chosen folder gives "folder/pack.toml", "folder/sections/en/…": drop "folder/".
    let common = files.iter().all(|(p, _)| p.contains('/'))
        && files
            .iter()
            .map(|(p, _)| p.split('/').next().unwrap_or(""))
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            == 1;
    if common {
        for (p, _) in &mut files {
            if let Some((_, rest)) = p.split_once('/') {
                *p = rest.to_string();
            }
        }
    }
    files.sort_by_key(|(p, _)| (p != "pack.toml", p.contains('/'), p.clone()));
    files
}

/// Keeps chosen files for this tab and reloads with `?pack=local`.
pub fn open_local(files: Vec<(String, String)>) {
    let Some(w) = web_sys::window() else { return };
    let json = serde_json::to_string(&arrange(files)).unwrap_or_default();
    if let Some(s) = w.session_storage().ok().flatten() {
        let _ = s.set_item(LOCAL_KEY, &json);
    }
    let _ = w.location().set_search("?pack=local");
}

/// Reads every chosen file (a single pack file, or a whole folder) and opens them.
pub fn open_chosen(input: &web_sys::HtmlInputElement) {
    let Some(list) = input.files() else { return };
    let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
    wasm_bindgen_futures::spawn_local(async move {
        let mut out = Vec::new();
        for f in files {
            let rel = js_sys::Reflect::get(&f, &"webkitRelativePath".into())
                .ok()
                .and_then(|v| v.as_string())
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| f.name());
            if let Ok(text) = JsFuture::from(f.text()).await {
                out.push((rel, text.as_string().unwrap_or_default()));
            }
        }
        if !out.is_empty() {
            open_local(out);
        }
    });
}
