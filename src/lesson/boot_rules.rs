//! The rules the first page follows before the app has loaded, from their one
//! definition here. `static/boot-head.js` (which page to show: the remembered language,
//! the progress a returning learner resumes from) and `static/boot.js` (which keys start
//! the app and are handed over to it) each carry a copy as one line of JSON,
//! `var RULES = {…};` / `const RULES = {…};`; `tests/boot_rules.rs` fails when a copy
//! differs from [`head_rules`] or [`boot_rules`], and prints the line to paste.

use super::lang::LANG_ALIASES;
use super::progress::{LANG_KEY, PROGRESS_KEY};
use serde_json::{json, Value};

/// Every key the app stores begins with this; any of them marks a returning learner.
pub const STORAGE_PREFIX: &str = "lockstep.";

/// Keys that open the next section, anywhere outside a text field.
pub const NEXT_KEYS: &[&str] = &["n", "N", "]"];
/// Keys that open the previous section.
pub const PREV_KEYS: &[&str] = &["p", "P", "["];
/// Keys a scenario panel answers to: play/pause, one step back and forward, start, end.
pub const PANEL_KEYS: &[&str] = &[" ", "Spacebar", "ArrowLeft", "ArrowRight", "Home", "End"];

/// Where a returning learner's section is in the stored progress: the path under
/// [`PROGRESS_KEY`], with `"<lesson>"` standing for the lesson's id.
pub const PROGRESS_LAST: &[&str] = &["lessons", "<lesson>", "last"];

/// What `static/boot-head.js` needs.
pub fn head_rules() -> Value {
    let aliases: serde_json::Map<String, Value> = LANG_ALIASES
        .iter()
        .map(|(lang, codes)| (lang.code().to_string(), json!(codes)))
        .collect();
    json!({
        "storagePrefix": STORAGE_PREFIX,
        "langKey": LANG_KEY,
        "progressKey": PROGRESS_KEY,
        "progressLast": PROGRESS_LAST,
        "langAliases": aliases,
    })
}

/// What `static/boot.js` needs.
pub fn boot_rules() -> Value {
    json!({
        "nextKeys": NEXT_KEYS,
        "prevKeys": PREV_KEYS,
        "panelKeys": PANEL_KEYS,
    })
}
