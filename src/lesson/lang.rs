//! The languages the lesson is written in.

/// A language the lesson is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lang {
    En,
    Nb,
}

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
        match primary {
            "en" | "eng" => Some(Lang::En),
            "nb" | "no" | "nob" | "nn" => Some(Lang::Nb),
            _ => None,
        }
    }
}
