//! The parts of the lesson's text the page fetches (`crate::text`): the common one and the
//! reader's language's, before the app first draws and before it changes language.

use crate::lesson::content::Lang;
use wasm_bindgen::JsCast;

/// Takes the parts of the lesson's text a reader of `lang` needs and the page lacks
/// (`crate::text::missing`), each from `window.lockstepTextPart(file)` (`static/boot.js`,
/// which started the page's language's beside the wasm), or where the page has no
/// boot.js (`trunk serve`, the prerendering), a fetch beside the page. Whether it took any.
pub async fn load_texts(lang: Lang) -> Result<bool, String> {
    let window = web_sys::window().ok_or("no window")?;
    let part = js_sys::Reflect::get(&window, &"lockstepTextPart".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let missing = crate::text::missing(lang.code());
    for &file in &missing {
        // Each a promise of the text; a failed fetch, or a page the server sent in its
        // place, is an error here or in `take`, which names the file.
        let promise = match &part {
            Some(part) => part.call1(&window, &file.into()).map(js_sys::Promise::from),
            None => wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(file))
                .await
                .and_then(|r| r.unchecked_into::<web_sys::Response>().text()),
        };
        let text = match promise {
            Ok(promise) => wasm_bindgen_futures::JsFuture::from(promise).await,
            Err(e) => Err(e),
        };
        let text = text
            .map_err(|e| format!("{file}: {}", error_text(&e)))?
            .as_string()
            .ok_or(format!("{file}: not a text"))?;
        crate::text::take(text)?;
    }
    Ok(!missing.is_empty())
}

fn error_text(e: &wasm_bindgen::JsValue) -> String {
    crate::json::error_message(e).unwrap_or_else(|| "the lesson's text did not come".to_string())
}
