//! The one form in which values cross between the page and the engine's worker, and in
//! which the built-in scenarios and labs reach the page (`builtins.wire`): bincode
//! (varints), in base64 so that it travels inside the worker's JSON envelopes and in the
//! lesson's text file.
//!
//! The page reads no JSON for any of these values: JSON's readers, one per type and
//! generic over the reader, were the largest part of the page's module that was not the
//! page itself (BENCHMARKS.md, issue #16, seventh step). bincode's are a fraction of it.
//!
//! bincode is not self-describing, so a type that crosses must not need its reader to
//! guess (`#[serde(untagged)]`, `serde_json::Value`) and must not skip fields when it
//! writes (`skip_serializing_if`): [`crate::sim::scenario`]'s fixed-or-range numbers and a
//! lab's parameters are written one way for people (TOML, JSON) and another here
//! (`is_human_readable`). `crate::builtins`'s tests round-trip every built-in scenario,
//! lab and pack. This module depends on no other of the crate's.

use serde::{de::DeserializeOwned, Serialize};

/// The most bytes one value may take to read (a long run's piece is a few MB).
const LIMIT: u64 = 64 << 20;

fn options() -> impl bincode::Options {
    use bincode::Options;
    bincode::DefaultOptions::new().with_limit(LIMIT)
}

/// `value` in the wire's form. Written in one pass, without a limit (what is written is
/// ours; the reader has the limit): bincode's `serialize` measures a value first, which
/// compiles every written type's `Serialize` a second time, for the measuring.
pub fn to_text<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    use base64::Engine as _;
    use bincode::Options as _;
    let mut bytes = Vec::new();
    bincode::DefaultOptions::new()
        .serialize_into(&mut bytes, value)
        .map_err(|e| e.to_string())?;
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// The value `text` holds, as [`to_text`] wrote it; what is wrong with it otherwise.
pub fn from_text<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    use base64::Engine as _;
    use bincode::Options as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| e.to_string())?;
    options().deserialize(&bytes).map_err(|e| e.to_string())
}

/// The value in `text` whose every char stands for one byte (U+0000 to U+00FF): the form
/// in which `build.rs` puts the built-ins of `src/builtins.wire` into the lesson's text
/// file. Their strings stay readable there, so the file compresses as text does (base64
/// made the built-ins half as large again, gzip'd).
pub fn from_byte_text<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    use bincode::Options as _;
    let bytes = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)))
        .collect::<Result<Vec<u8>, _>>()
        .map_err(|_| "a char beyond U+00FF".to_string())?;
    options().deserialize(&bytes).map_err(|e| e.to_string())
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

    /// Written in one pass, the bytes are what the limited reader's options write.
    #[test]
    fn the_writer_and_the_reader_agree_on_the_form() {
        use base64::Engine as _;
        let v = (vec![1u64, 300, u64::MAX], "å".to_string(), [0.25f64, -1.0]);
        let measured = bincode::Options::serialize(options(), &v).unwrap();
        let text = to_text(&v).unwrap();
        assert_eq!(
            base64::engine::general_purpose::STANDARD.decode(&text).unwrap(),
            measured
        );
    }

    #[test]
    fn a_value_in_byte_text_is_read() {
        let v = ("blåbær".to_string(), vec![0u64, 255, 1 << 40], Some(-2.5f64));
        let bytes = bincode::Options::serialize(options(), &v).unwrap();
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
        assert!(from_text::<String>("").is_err());
    }
}
