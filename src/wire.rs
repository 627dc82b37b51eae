//! The one form in which values cross between the page and the engine's worker, and in
//! which the built-in scenarios and labs reach the page (`builtins.wire`): postcard
//! (varints), in base64 so that it travels inside the worker's JSON envelopes and in the
//! lesson's text file.
//!
//! The page reads no JSON for any of these values: JSON's readers, one per type and
//! generic over the reader, were the largest part of the page's module that was not the
//! page itself (BENCHMARKS.md, issue #16, seventh step). postcard's are a fraction of it,
//! and smaller than bincode's: 4 KB gzip less in the page's module, 5 KB in the engine's.
//!
//! postcard is not self-describing, so a type that crosses must not need its reader to
//! guess (`#[serde(untagged)]`, `serde_json::Value`) and must not skip fields when it
//! writes (`skip_serializing_if`): [`crate::sim::scenario`]'s fixed-or-range numbers and a
//! lab's parameters are written one way for people (TOML, JSON) and another here
//! (`is_human_readable`). `crate::builtins`'s tests round-trip every built-in scenario,
//! lab and pack. This module depends on no other of the crate's.
//!
//! A reader takes no more than its text: postcard reads from the bytes it is given, a
//! length is checked against the bytes left before anything is copied, and serde
//! reserves at most 1 MiB ahead for a list whatever length it claims.

use serde::{de::DeserializeOwned, Serialize};

/// `value` in the wire's form.
pub fn to_text<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    use base64::Engine as _;
    let bytes = postcard::to_allocvec(value).map_err(|e| e.to_string())?;
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// The value `text` holds, as [`to_text`] wrote it; what is wrong with it otherwise.
pub fn from_text<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| e.to_string())?;
    read(&bytes)
}

/// The value in `text` whose every char stands for one byte (U+0000 to U+00FF): the form
/// in which `build.rs` puts the built-ins of `src/builtins.wire` into the lesson's text
/// file. Their strings stay readable there, so the file compresses as text does (base64
/// made the built-ins half as large again, gzip'd).
pub fn from_byte_text<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let bytes = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)))
        .collect::<Result<Vec<u8>, _>>()
        .map_err(|_| "a char beyond U+00FF".to_string())?;
    read(&bytes)
}

/// One value that takes all of `bytes`: bytes left over mean the text is not this type's.
fn read<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    match postcard::take_from_bytes(bytes) {
        Ok((value, [])) => Ok(value),
        Ok((_, rest)) => Err(format!("{} bytes left over after the value", rest.len())),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_comes_back_as_it_went() {
        let v: (String, Vec<Option<u64>>, f64) = ("x\"y".into(), vec![Some(u64::MAX), None], -0.5);
        assert_eq!(
            from_text::<(String, Vec<Option<u64>>, f64)>(&to_text(&v).unwrap()),
            Ok(v)
        );
    }

    /// The form is postcard's: varints, so small numbers take one byte.
    #[test]
    fn the_form_is_postcards() {
        use base64::Engine as _;
        let v = (vec![1u64, 300], "å".to_string(), -1.0f64);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(to_text(&v).unwrap())
            .unwrap();
        let mut want = vec![2, 1, 0xac, 0x02, 2, 0xc3, 0xa5];
        want.extend((-1.0f64).to_le_bytes());
        assert_eq!(bytes, want);
    }

    #[test]
    fn a_value_in_byte_text_is_read() {
        let v = ("blåbær".to_string(), vec![0u64, 255, 1 << 40], Some(-2.5f64));
        let bytes = postcard::to_allocvec(&v).unwrap();
        let text: String = bytes.iter().map(|&b| char::from(b)).collect();
        assert_eq!(from_byte_text(&text), Ok(v));
        assert!(from_byte_text::<String>("\u{100}").is_err());
        assert!(from_byte_text::<Vec<String>>("\u{ff}\u{ff}\u{ff}").is_err());
    }

    #[test]
    fn broken_text_is_an_error_not_a_panic() {
        assert!(from_text::<Vec<String>>("not base64!").is_err());
        // Valid base64 of a length far beyond the text: refused, not allocated.
        let huge = to_text(&u64::MAX).unwrap();
        assert!(from_text::<Vec<String>>(&huge).is_err());
        assert!(from_text::<Vec<u64>>(&to_text(&(u32::MAX as u64)).unwrap()).is_err());
        assert!(from_text::<String>("").is_err());
        // A value with bytes after it is not that value.
        assert!(from_text::<u8>(&to_text(&(1u8, 2u8)).unwrap()).is_err());
    }
}
