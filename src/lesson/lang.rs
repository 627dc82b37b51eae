//! The languages the lesson is written in.

/// A language the lesson is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub enum Lang {
    En,
    Nb,
}

/// The codes each language answers to (matched on the part before `-` or `_`,
/// case-insensitive), wherever a language is read: `?lang=`, storage, the browser's. The
/// first page reads them too (`lesson/boot_rules.rs`).
pub const LANG_ALIASES: &[(Lang, &[&str])] =
    &[(Lang::En, &["en", "eng"]), (Lang::Nb, &["nb", "no", "nob", "nn"])];

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Nb];

    /// The BCP 47 code, as used in `?lang=`, `<html lang>` and the content folder.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Nb => "nb",
        }
    }

    /// The language's own name, for the language switch.
    pub fn native_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Nb => "Norsk bokmål",
        }
    }

    /// Accepts `en`, `nb`, and the common aliases `no`, `nob`, `nb-NO` (case-insensitive).
    pub fn from_code(code: &str) -> Option<Lang> {
        let code = code.trim().to_ascii_lowercase();
        let primary = code.split(['-', '_']).next().unwrap_or("");
        LANG_ALIASES
            .iter()
            .find(|(_, codes)| codes.contains(&primary))
            .map(|(lang, _)| *lang)
    }
}
