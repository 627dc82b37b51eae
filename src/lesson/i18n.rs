//! The app's own texts (buttons, labels, notices) in every language, from `content/ui.toml`,
//! which `build.rs` compiles into a static table (a broken file fails the build).

use super::content::Lang;

mod compiled {
    use crate::text::Txt;
    include!(concat!(env!("OUT_DIR"), "/ui_texts.rs"));
}

/// Where each text of a language's block starts (`build.rs`'s `write_ui_texts`), found
/// on first use once the block's part is here.
static STARTS: [std::sync::OnceLock<Vec<u32>>; compiled::UI.len()] =
    [const { std::sync::OnceLock::new() }; compiled::UI.len()];

/// The text of `key` in `lang`'s table, if it has one (empty while its part is missing).
fn lookup(lang: Lang, key: &str) -> Option<&'static str> {
    let i = compiled::KEYS.binary_search(&key).ok()?;
    let table = compiled::UI.iter().position(|(code, _)| *code == lang.code())?;
    let block = compiled::UI[table].1.get();
    if block.is_empty() {
        return Some("");
    }
    let starts = STARTS[table].get_or_init(|| {
        let ends = block.match_indices('\0').map(|(at, _)| at as u32 + 1);
        std::iter::once(0).chain(ends).collect()
    });
    let from = *starts.get(i)? as usize;
    let to = starts.get(i + 1).map_or(block.len(), |&next| next as usize - 1);
    block.get(from..to)
}

/// The texts of one language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texts {
    pub lang: Lang,
}

impl Texts {
    pub fn new(lang: Lang) -> Texts {
        Texts { lang }
    }

    /// The text for `key`; the English one if this language lacks it; the key itself as
    /// a last resort, so a missing text is visible but never a crash.
    pub fn t(&self, key: &str) -> String {
        lookup(self.lang, key)
            .or_else(|| lookup(Lang::En, key))
            .map_or_else(|| key.to_string(), str::to_string)
    }

    /// Whether the app has a text for `key` (in English, so in every language).
    pub fn has(&self, key: &str) -> bool {
        lookup(Lang::En, key).is_some()
    }

    /// `t(key)` with `{name}` placeholders replaced.
    pub fn fmt(&self, key: &str, args: &[(&str, String)]) -> String {
        args.iter().fold(self.t(key), |s, (name, value)| {
            s.replace(&format!("{{{name}}}"), value)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const UI_TOML: &str = include_str!("../../content/ui.toml");
    type Table = BTreeMap<String, BTreeMap<String, String>>;

    #[test]
    fn the_compiled_table_is_ui_toml() {
        let parsed: Table = toml::from_str(UI_TOML).expect("content/ui.toml is valid TOML");
        let compiled: Table = compiled::UI
            .iter()
            .map(|(code, _)| {
                let lang = Lang::from_code(code).expect("a language of the lesson");
                let texts = compiled::KEYS.iter().map(|k| {
                    let text = lookup(lang, k).expect("a text per key");
                    (k.to_string(), text.to_string())
                });
                (code.to_string(), texts.collect())
            })
            .collect();
        assert_eq!(compiled, parsed);
        // The keys are sorted, as `lookup`'s binary search needs.
        assert!(compiled::KEYS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn ui_toml_parses_and_every_language_has_every_key() {
        let parsed: Table = toml::from_str(UI_TOML).expect("content/ui.toml is valid TOML");
        let en: Vec<&String> = parsed.get("en").expect("en table").keys().collect();
        assert!(en.len() > 20);
        for lang in Lang::ALL {
            let keys: Vec<&String> = parsed
                .get(lang.code())
                .expect("table per language")
                .keys()
                .collect();
            assert_eq!(keys, en, "keys of [{}] differ from [en]", lang.code());
        }
    }

    #[test]
    fn lookup_and_format() {
        assert_eq!(Texts::new(Lang::Nb).t("next"), "Neste");
        assert_eq!(Texts::new(Lang::En).t("no-such-key"), "no-such-key");
        let s = Texts::new(Lang::En).fmt("progress", &[("read", "3".into()), ("total", "12".into())]);
        assert_eq!(s, "3 of 12 sections read");
    }
}
