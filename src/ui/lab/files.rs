//! The files a lab panel fetches from `labs/` (the sandbox's page and harness, a built-in
//! lab's driver and solution), each once per page.

use crate::vecmap::VecMap;
use std::cell::RefCell;
use std::rc::Rc;

/// Largest file the panel fetches from `labs/`.
pub(super) const FILE_LIMIT: usize = 1024 * 1024;

thread_local! {
    /// Files fetched from `labs/`, by path: fetched once per page.
    static FILES: RefCell<VecMap<String, Rc<str>>> = const { RefCell::new(VecMap::new()) };
}

/// Puts a lab file in the page's cache, as if fetched from `labs/<path>` (for the browser
/// tests, whose test page has no `labs/` folder).
pub fn preload(path: &str, text: &str) {
    FILES.with(|f| f.borrow_mut().insert(path.to_string(), Rc::from(text)));
}

/// The file `labs/<path>`, fetched the first time it is asked for.
pub(super) async fn lab_file(path: &str) -> Result<Rc<str>, String> {
    if let Some(f) = FILES.with(|f| f.borrow().get(path).cloned()) {
        return Ok(f);
    }
    let text = crate::ui::pack_loader::fetch_text(&format!("labs/{path}"), FILE_LIMIT)
        .await
        .map_err(|e| match e {
            crate::ui::pack_loader::FetchError::Failed(why) => format!("labs/{path}: {why}"),
            crate::ui::pack_loader::FetchError::TooBig { read } => {
                format!("labs/{path}: larger than {read} bytes")
            }
        })?;
    let rc: Rc<str> = Rc::from(text.as_str());
    FILES.with(|f| f.borrow_mut().insert(path.to_string(), rc.clone()));
    Ok(rc)
}
