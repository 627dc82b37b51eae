//! The app's own texts (buttons, labels, notices) in every language, from `content/ui.toml`.

use super::content::Lang;
use std::collections::BTreeMap;
use std::sync::OnceLock;

const UI_TOML: &str = include_str!("../../content/ui.toml");

type Table = BTreeMap<String, BTreeMap<String, String>>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    // A broken ui.toml is caught by the native tests; at run time it degrades to keys.
    TABLE.get_or_init(|| toml::from_str(UI_TOML).unwrap_or_default())
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
        let t = table();
        t.get(self.lang.code())
            .and_then(|m| m.get(key))
            .or_else(|| t.get(Lang::En.code()).and_then(|m| m.get(key)))
            .cloned()
            .unwrap_or_else(|| key.to_string())
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
