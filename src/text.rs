//! The built-in lesson's words: section bodies, questions, the app's own texts, and the
//! built-in scenarios and labs. `build.rs` writes them in parts: one that every reader
//! needs (the scenarios, the labs, code) and one per language, each a file,
//! `lesson-text-<hash>.txt` and `lesson-text-<lang>-<hash>.txt` ([`PARTS`]); its
//! generated tables name each string by its part and place ([`Txt`]).
//!
//! With the `inline-text` feature (native code, the browser tests) every part is in the
//! module. The page's and the engine's modules are built without it, and get the parts
//! their reader's language needs ([`missing`], [`take`]): the page fetches them beside
//! itself before it draws (static `boot.js` asks for them beside the wasm) and before it
//! changes language; the engine's worker fetches them before a request in a language it
//! lacks. So a module carries code, not prose, and a reader downloads one language's words.

mod generated {
    include!(concat!(env!("OUT_DIR"), "/text_blob.rs"));
}

use crate::fnv::fnv1a;

/// The parts' language codes (empty: the common part), files, lengths in bytes and
/// FNV-1a hashes (a hash is in its file's name, so a changed text is a new file for
/// every cache): the common part, then each language's.
pub use generated::PARTS;

/// Where a part's offset ends in a [`Txt`]'s `at` and its part begins (`build.rs`).
const PART_SHIFT: u32 = 30;

/// One string of the lesson's text: its part (`at`'s top two bits), its byte offset in
/// that part, and its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Txt(pub u32, pub u32);

impl Txt {
    /// Its part: 0, the common one, then each language's ([`PARTS`]).
    pub fn part(self) -> usize {
        (self.0 >> PART_SHIFT) as usize
    }

    /// The string; empty until its part has been [`take`]n. (Not inlined: it is called
    /// in many places, and one copy keeps the page's module small.)
    #[inline(never)]
    pub fn get(self) -> &'static str {
        let at = (self.0 & ((1 << PART_SHIFT) - 1)) as usize;
        part((self.0 >> PART_SHIFT) as usize)
            .get(at..at.saturating_add(self.1 as usize))
            .unwrap_or("")
    }
}

/// The parts a reader of the language with code `lang` needs: the common one and that
/// language's (the first language's, for a code the lesson lacks).
fn parts_of(lang: &str) -> [usize; 2] {
    let own = PARTS.iter().rposition(|p| p.0 == lang).filter(|&i| i > 0);
    [0, own.unwrap_or(1)]
}

/// The files of the parts that a reader of the language with code `lang` needs and that
/// are not here yet: each to fetch and [`take`].
pub fn missing(lang: &str) -> Vec<&'static str> {
    parts_of(lang)
        .into_iter()
        .filter(|&i| !has(i))
        .map(|i| PARTS[i].1)
        .collect()
}

/// The common part's file, when it is not here yet: what every reader needs, whatever
/// their language (the engine's worker fetches it at start).
pub fn missing_common() -> Option<&'static str> {
    (!has(0)).then_some(PARTS[0].1)
}

/// The files of every part not here yet (the authoring module's: a pack may name any).
pub fn missing_all() -> Vec<&'static str> {
    (0..PARTS.len())
        .filter(|&i| !has(i))
        .map(|i| PARTS[i].1)
        .collect()
}

#[cfg(feature = "inline-text")]
fn part(i: usize) -> &'static str {
    generated::INLINE.get(i).copied().unwrap_or("")
}

#[cfg(feature = "inline-text")]
fn has(_: usize) -> bool {
    true
}

#[cfg(not(feature = "inline-text"))]
static FETCHED: [std::sync::OnceLock<&'static str>; PARTS.len()] =
    [const { std::sync::OnceLock::new() }; PARTS.len()];

#[cfg(not(feature = "inline-text"))]
fn part(i: usize) -> &'static str {
    FETCHED.get(i).and_then(|p| p.get()).copied().unwrap_or("")
}

#[cfg(not(feature = "inline-text"))]
fn has(i: usize) -> bool {
    FETCHED.get(i).is_some_and(|p| p.get().is_some())
}

/// Checks that `text` is one of the parts this module was built with (by its length and
/// hash); a module built without `inline-text` then keeps it for [`Txt::get`].
pub fn take(text: String) -> Result<(), String> {
    let hash = fnv1a(text.as_bytes());
    let i = PARTS
        .iter()
        .position(|&(_, _, len, h)| len == text.len() && h == hash)
        .ok_or_else(|| {
            format!(
                "a text of {} bytes is none of this app's lesson texts ({})",
                text.len(),
                PARTS.map(|p| p.1).join(", ")
            )
        })?;
    keep(i, text);
    Ok(())
}

/// Keeps part `i` (the first copy of it) for [`Txt::get`].
#[cfg(not(feature = "inline-text"))]
fn keep(i: usize, text: String) {
    if !has(i) {
        let _ = FETCHED[i].set(Box::leak(text.into_boxed_str()));
    }
}

/// Every part is in the module already.
#[cfg(feature = "inline-text")]
fn keep(_: usize, _: String) {}

#[cfg(all(test, feature = "inline-text"))]
mod tests {
    use super::*;

    #[test]
    fn each_inline_part_is_its_named_file() {
        for (i, (code, file, len, hash)) in PARTS.iter().enumerate() {
            let text = generated::INLINE[i];
            assert_eq!((text.len(), fnv1a(text.as_bytes())), (*len, *hash));
            let lang = if code.is_empty() {
                String::new()
            } else {
                format!("{code}-")
            };
            assert_eq!(*file, format!("lesson-text-{lang}{hash:016x}.txt"));
            assert!(take(text.to_string()).is_ok());
        }
    }

    #[test]
    fn another_text_is_refused() {
        let mut other = generated::INLINE[0].to_string();
        other.replace_range(0..1, if other.starts_with('x') { "y" } else { "x" });
        assert!(take(other).unwrap_err().contains(PARTS[0].1));
        assert!(take(String::new()).is_err());
    }

    #[test]
    fn a_string_is_read_by_its_part_and_place() {
        let at = generated::INLINE[0]
            .find("SET")
            .expect("the common part names SET") as u32;
        assert_eq!(Txt(at, 3).get(), "SET");
        let nb = generated::INLINE[2]
            .find("låse")
            .expect("the Norwegian part names låse") as u32;
        assert_eq!(Txt(2 << PART_SHIFT | nb, "låse".len() as u32).get(), "låse");
        assert_eq!(Txt(u32::MAX, 3).get(), "");
    }

    #[test]
    fn a_reader_needs_the_common_part_and_their_language_s() {
        let codes: Vec<&str> = PARTS.iter().map(|p| p.0).collect();
        assert_eq!(codes, ["", "en", "nb"]);
        assert_eq!(parts_of("nb"), [0, 2]);
        assert_eq!(parts_of("en"), [0, 1]);
        // A code the lesson lacks reads the first language.
        assert_eq!(parts_of("xx"), [0, 1]);
        assert_eq!(parts_of(""), [0, 1]);
        assert!(missing("nb").is_empty(), "all here with inline-text");
        assert_eq!(missing_common(), None, "all here with inline-text");
    }
}
