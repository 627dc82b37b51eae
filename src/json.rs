//! JSON text for what the page keeps and reads as JSON: the learner's stored progress and
//! a lab's parameters (any JSON). Natively it is `serde_json`; in a wasm module it is the
//! browser's own `JSON.parse` and `JSON.stringify`, read into and written from our types by
//! `serde-wasm-bindgen` (JSON-compatible: maps as objects, a missing value as `null`), so
//! the page's module carries no JSON parser or writer of its own (BENCHMARKS.md, #16:
//! `serde_json` was 11 KB gzip of it). Both read the same texts into the same values and
//! write texts that read back equal; `tests/web_reader.rs` holds the browser's to the
//! native one on a stored progress.

use serde::{de::DeserializeOwned, Serialize};

/// The value `text` holds; what is wrong with it otherwise.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    #[cfg(target_arch = "wasm32")]
    {
        let value = js_sys::JSON::parse(text).map_err(|e| describe(&e))?;
        serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }
}

/// `value` as JSON text.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    #[cfg(target_arch = "wasm32")]
    {
        let value = value
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| e.to_string())?;
        js_sys::JSON::stringify(&value)
            .map(String::from)
            .map_err(|e| describe(&e))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        serde_json::to_string(value).map_err(|e| e.to_string())
    }
}

#[cfg(target_arch = "wasm32")]
fn describe(e: &wasm_bindgen::JsValue) -> String {
    error_message(e).unwrap_or_else(|| "not JSON".to_string())
}

/// What a thrown JavaScript value says: an `Error`'s message, or a thrown string.
#[cfg(target_arch = "wasm32")]
pub fn error_message(e: &wasm_bindgen::JsValue) -> Option<String> {
    use wasm_bindgen::JsCast;
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
}

#[cfg(test)]
mod tests {
    /// Natively it is serde_json, texts and errors alike.
    #[test]
    fn natively_it_is_serde_json() {
        let v: std::collections::BTreeMap<String, Vec<u32>> = super::from_str(r#"{"b":[2],"a":[]}"#).unwrap();
        assert_eq!(super::to_string(&v).unwrap(), r#"{"a":[],"b":[2]}"#);
        assert!(super::from_str::<u32>("[").is_err());
    }
}
