//! The app's own texts (buttons, labels, notices) in every language, from `content/ui.toml`,
//! which `build.rs` compiles into a static table (a broken file fails the build).

use super::content::Lang;

mod compiled {
    use crate::text::Txt;
    include!(concat!(env!("OUT_DIR"), "/ui_texts.rs"));
}

/// The text of `key` in `lang`'s table, if it has one.
fn lookup(lang: Lang, key: &str) -> Option<&'static str> {
    let i = compiled::KEYS.binary_search(&key).ok()?;
    let (_, texts) = compiled::UI.iter().find(|(code, _)| *code == lang.code())?;
    texts.get(i).map(|t| t.get())
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
            .map(|(lang, texts)| {
                assert_eq!(texts.len(), compiled::KEYS.len(), "[{lang}] has a text per key");
                let texts = compiled::KEYS.iter().zip(texts.iter());
                let texts = texts.map(|(k, v)| (k.to_string(), v.get().to_string()));
                (lang.to_string(), texts.collect())
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
