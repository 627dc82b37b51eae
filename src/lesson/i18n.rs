//! The app's own texts (buttons, labels, notices) in every language, from `content/ui.toml`,
//! which `build.rs` compiles into a static table (a broken file fails the build).

use super::content::Lang;

mod compiled {
    use super::Key;
    use crate::text::Txt;
    include!(concat!(env!("OUT_DIR"), "/ui_texts.rs"));
}

pub use compiled::k;

/// A key of `content/ui.toml`: a constant of [`k`] (`k::NEXT`), so a key the file lacks
/// fails the build, or one of the names the app makes as it runs ([`Key::named`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key(u16);

impl Key {
    /// The key of a name the app made as it runs (`lab_msg_<code>`, `prop_<kind>`, …:
    /// `build.rs`'s `NAMED_PREFIXES`), if ui.toml has it.
    pub fn named(name: &str) -> Option<Key> {
        let i = compiled::NAMED.binary_search_by(|(n, _)| n.cmp(&name)).ok()?;
        Some(compiled::NAMED[i].1)
    }
}

/// Where each text of a language's block starts (`build.rs`'s `write_ui_texts`), found
/// on first use once the block's part is here.
static STARTS: [std::sync::OnceLock<Vec<u32>>; compiled::UI.len()] =
    [const { std::sync::OnceLock::new() }; compiled::UI.len()];

/// The text of `key` in `lang`'s table, if it has one (empty while its part is missing).
fn lookup(lang: Lang, key: Key) -> Option<&'static str> {
    let i = usize::from(key.0);
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

    /// The text for `key`; the English one if this language lacks it.
    pub fn t(&self, key: Key) -> String {
        lookup(self.lang, key)
            .or_else(|| lookup(Lang::En, key))
            .unwrap_or_default()
            .to_string()
    }

    /// The text of a name the app made as it runs ([`Key::named`]); the name itself as a
    /// last resort, so a missing text is visible but never a crash.
    pub fn t_named(&self, name: &str) -> String {
        Key::named(name).map_or_else(|| name.to_string(), |key| self.t(key))
    }

    /// `t(key)` with `{name}` placeholders replaced.
    pub fn fmt(&self, key: Key, args: &[(&str, String)]) -> String {
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

    /// ui.toml's keys, sorted: key `i`'s name is the `i`th.
    fn names() -> Vec<String> {
        let parsed: Table = toml::from_str(UI_TOML).expect("content/ui.toml is valid TOML");
        parsed["en"].keys().cloned().collect()
    }

    #[test]
    fn the_compiled_table_is_ui_toml() {
        let parsed: Table = toml::from_str(UI_TOML).expect("content/ui.toml is valid TOML");
        let names = names();
        let compiled: Table = compiled::UI
            .iter()
            .map(|(code, _)| {
                let lang = Lang::from_code(code).expect("a language of the lesson");
                let texts = names.iter().enumerate().map(|(i, name)| {
                    let key = Key(u16::try_from(i).expect("under 65 536 keys"));
                    let text = lookup(lang, key).expect("a text per key");
                    (name.clone(), text.to_string())
                });
                (code.to_string(), texts.collect())
            })
            .collect();
        assert_eq!(compiled, parsed);
        assert_eq!(
            k::NEXT,
            Key(names.iter().position(|n| n == "next").expect("next") as u16)
        );
    }

    #[test]
    fn only_the_families_made_at_run_time_are_named_and_each_names_its_key() {
        let names = names();
        assert!(
            compiled::NAMED.windows(2).all(|w| w[0].0 < w[1].0),
            "sorted, for the search"
        );
        for (name, key) in compiled::NAMED {
            assert_eq!(names[usize::from(key.0)], *name);
            assert_eq!(Key::named(name), Some(*key));
        }
        assert_eq!(
            Key::named("lab_msg_timeout").map(|k| names[usize::from(k.0)].as_str()),
            Some("lab_msg_timeout")
        );
        assert_eq!(
            Key::named("next"),
            None,
            "a key the app never makes has no name in it"
        );
        assert_eq!(Key::named("lab_msg_no_such_code"), None);
        assert!(compiled::NAMED.len() < names.len() / 2);
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
        assert_eq!(Texts::new(Lang::Nb).t(k::NEXT), "Neste");
        assert_eq!(Texts::new(Lang::En).t_named("no-such-key"), "no-such-key");
        assert_eq!(
            Texts::new(Lang::Nb).t_named("prop_overlap"),
            Texts::new(Lang::Nb).t(k::PROP_OVERLAP)
        );
        let s = Texts::new(Lang::En).fmt(k::PROGRESS, &[("read", "3".into()), ("total", "12".into())]);
        assert_eq!(s, "3 of 12 sections read");
    }
}
