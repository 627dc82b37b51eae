//! The built-in lesson's words: section bodies, questions, the app's own texts, and the
//! built-in scenarios and labs. `build.rs` writes them as one text,
//! `lesson-text-<hash>.txt`, and its generated tables name each string by its place in
//! that text ([`Txt`]).
//!
//! With the `inline-text` feature (native code, the engine's module, the browser tests)
//! the text is part of the module. The page's module is built without it: the page
//! fetches the file beside itself before it draws anything ([`FILE`], [`take`]; static
//! `boot.js` asks for it beside the wasm), so the module carries code, not prose.

mod generated {
    include!(concat!(env!("OUT_DIR"), "/text_blob.rs"));
}

/// The text's file name, beside the page; its FNV-1a hash is in it, so a changed text
/// is a new file for every cache.
pub use generated::FILE;
/// The text's length in bytes.
pub use generated::LEN;

/// One string of the lesson's text: its byte offset and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Txt(pub u32, pub u32);

impl Txt {
    /// The string; empty until a fetched text has been [`take`]n.
    pub fn get(self) -> &'static str {
        let at = self.0 as usize;
        blob().get(at..at.saturating_add(self.1 as usize)).unwrap_or("")
    }
}

#[cfg(feature = "inline-text")]
fn blob() -> &'static str {
    generated::INLINE
}

#[cfg(not(feature = "inline-text"))]
static FETCHED: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

#[cfg(not(feature = "inline-text"))]
fn blob() -> &'static str {
    FETCHED.get().copied().unwrap_or("")
}

use crate::fnv::fnv1a;

/// Checks that `text` is the one this module was built with (its length and hash); a
/// module built without `inline-text` then keeps it for [`Txt::get`].
pub fn take(text: String) -> Result<(), String> {
    if text.len() != LEN || fnv1a(text.as_bytes()) != generated::HASH {
        return Err(format!(
            "{FILE} is not the text this app was built with ({} bytes, {} expected)",
            text.len(),
            LEN
        ));
    }
    #[cfg(not(feature = "inline-text"))]
    {
        let _ = FETCHED.set(Box::leak(text.into_boxed_str()));
    }
    Ok(())
}

#[cfg(all(test, feature = "inline-text"))]
mod tests {
    use super::*;

    #[test]
    fn the_inline_text_is_the_named_file() {
        assert_eq!(generated::INLINE.len(), generated::LEN);
        assert_eq!(
            FILE,
            format!("lesson-text-{:016x}.txt", fnv1a(generated::INLINE.as_bytes()))
        );
        assert!(take(generated::INLINE.to_string()).is_ok());
    }

    #[test]
    fn another_text_is_refused() {
        let mut other = generated::INLINE.to_string();
        other.replace_range(0..1, if other.starts_with('x') { "y" } else { "x" });
        assert!(take(other).unwrap_err().contains(FILE));
        assert!(take(String::new()).is_err());
    }

    #[test]
    fn a_string_is_read_by_its_place() {
        let at = generated::INLINE.find("SET").expect("the lesson names SET") as u32;
        assert_eq!(Txt(at, 3).get(), "SET");
        assert_eq!(Txt(u32::MAX, 3).get(), "");
    }
}
