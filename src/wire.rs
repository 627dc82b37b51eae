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
//! (`is_human_readable`). Tests round-trip every built-in scenario, lab and pack.

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

/// `src/builtins.wire` as it must be: every built-in scenario and lab, read from its
/// files and validated, in the wire's form, one per line (`scenario <name> <text>`, `lab
/// <id> <text>`). `build.rs` puts them in the lesson's text for `sim::scenario::builtin`
/// and `labs::shown` ([`from_byte_text`]); `make builtins` writes the file, and a test fails while it differs.
#[cfg(not(target_arch = "wasm32"))]
pub fn builtins_file() -> Result<String, String> {
    use crate::sim::scenario::{builtin_checked, BUILTIN_NAMES};
    let mut out = String::from(
        "# Generated from scenarios/*.toml and labs/*/ by `make builtins`: the built-in scenarios\n\
         # and labs, validated, in the form the page reads (src/wire.rs). Do not edit.\n",
    );
    for name in BUILTIN_NAMES {
        let scenario = builtin_checked(name)
            .ok_or_else(|| format!("no built-in scenario `{name}`"))?
            .map_err(|e| e.to_string())?;
        out.push_str(&format!("scenario {name} {}\n", to_text(&scenario)?));
    }
    for id in crate::labs::IDS {
        let mut lab = crate::labs::shown_checked(id).ok_or_else(|| format!("no built-in lab `{id}`"))??;
        // Its files' texts are in the lesson's text already (`labs::shown` puts them back).
        lab.texts.lab_toml.clear();
        lab.texts.scenario_toml.clear();
        lab.starter.clear();
        out.push_str(&format!("lab {id} {}\n", to_text(&lab)?));
    }
    Ok(out)
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

    /// The file the app reads its built-ins from is what their files make now; with
    /// `LOCKSTEP_WRITE_BUILTINS` set (`make builtins`) it is written instead.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_builtins_file_is_current() {
        let made = builtins_file().unwrap_or_else(|e| panic!("{e}"));
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/builtins.wire");
        if std::env::var_os("LOCKSTEP_WRITE_BUILTINS").is_some() {
            std::fs::write(path, &made).unwrap_or_else(|e| panic!("{path}: {e}"));
            return;
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == made,
            "src/builtins.wire is not what scenarios/ and labs/ make now: run `make builtins`"
        );
    }

    /// Every built-in scenario, lab and the built-in pack cross the wire unchanged.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn every_builtin_crosses_the_wire_unchanged() {
        use crate::sim::scenario::{builtin_checked, BUILTIN_NAMES};
        for name in BUILTIN_NAMES {
            let s = builtin_checked(name).unwrap().unwrap();
            assert_eq!(from_text(&to_text(&s).unwrap()), Ok(s), "{name}");
        }
        for id in crate::labs::IDS {
            let mut lab = crate::labs::find(id).unwrap();
            assert_eq!(from_text(&to_text(&lab).unwrap()), Ok(lab.clone()), "{id}");
            lab.params = serde_json::json!({"n": [1, 2.5, null, {"x": "y"}], "ok": true});
            assert_eq!(from_text(&to_text(&lab).unwrap()), Ok(lab), "{id}");
        }
        let pack = crate::lesson::pack::builtin_compiled();
        assert_eq!(from_text(&to_text(&pack).unwrap()), Ok(pack));
    }
}
