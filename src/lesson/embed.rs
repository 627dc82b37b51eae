//! Embed mode: what an instructor's `<iframe src="…?embed=1&…">` asks for, parsed from
//! the query string (plain Rust, tested natively; `ui` applies it).

use super::route::{query_param, with_query_param};
use crate::vecmap::VecSet;

/// What the embedded page shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    Section,
    Scenario,
    Quiz,
    /// One lab: the one `lab=` names, else the section's first.
    Lab,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub fn attr(self) -> Option<&'static str> {
        match self {
            Theme::Auto => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        }
    }
}

/// The controls a scenario panel can show; `controls=` picks a subset.
pub const CONTROLS: [&str; 9] = [
    "play", "step", "scrub", "speed", "seed", "zoom", "console", "faults", "editor",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbedConfig {
    pub embed: bool,
    pub show: Show,
    pub section: Option<u32>,
    pub theme: Theme,
    /// `None`: every control.
    pub controls: Option<VecSet<String>>,
    pub autoplay: bool,
    /// The only origin messages are sent to and accepted from; without it only `ready`
    /// and `resize` are sent (to any origin) and nothing is accepted.
    pub origin: Option<String>,
    /// With `show=lab`: the lab's id (`lab=`), if it is one a lab can have.
    pub lab: Option<String>,
}

/// A lab id as a link may carry it: lowercase letters, digits and `-`, up to 64.
fn lab_id(id: &str) -> Option<String> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    ok.then(|| id.to_string())
}

impl EmbedConfig {
    pub fn from_query(search: &str) -> EmbedConfig {
        let p = |n: &str| query_param(search, n);
        let truthy = |v: Option<String>| v.is_some_and(|v| matches!(v.as_str(), "1" | "true" | "yes" | ""));
        let show = match p("show").as_deref() {
            Some("scenario") => Show::Scenario,
            Some("quiz") => Show::Quiz,
            Some("lab") => Show::Lab,
            _ => Show::Section,
        };
        let theme = match p("theme").as_deref() {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            _ => Theme::Auto,
        };
        let controls = p("controls").map(|c| {
            c.split(',')
                .map(|s| s.trim().to_ascii_lowercase())
                .filter(|s| CONTROLS.contains(&s.as_str()))
                .collect()
        });
        EmbedConfig {
            embed: truthy(p("embed")),
            show,
            section: p("section").and_then(|s| s.parse().ok()).filter(|&n| n > 0),
            theme,
            controls,
            autoplay: truthy(p("autoplay")),
            origin: p("origin").and_then(|o| valid_origin(&o)),
            lab: p("lab").and_then(|l| lab_id(&l)),
        }
    }

    pub fn shows(&self, control: &str) -> bool {
        self.controls.as_ref().is_none_or(|c| c.contains(control))
    }
}

/// What an instructor picks in the Share dialog for the embed snippet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbedChoice {
    pub show: Show,
    pub theme: Theme,
    /// The scenario controls offered (all of [`CONTROLS`]: no `controls=` at all).
    pub controls: VecSet<String>,
    /// With [`Show::Lab`]: which lab (the section's, when it has one).
    pub lab: Option<String>,
}

impl Default for EmbedChoice {
    fn default() -> EmbedChoice {
        EmbedChoice {
            show: Show::Section,
            theme: Theme::Auto,
            controls: CONTROLS.iter().map(|c| c.to_string()).collect(),
            lab: None,
        }
    }
}

impl EmbedChoice {
    /// The embed URL for the page at `href`: its query (`lang=`…) and hash (section,
    /// scenario state) kept, `embed=1` and the choices added; defaults are left out.
    pub fn url(&self, href: &str) -> String {
        let (before_hash, hash) = href.split_once('#').map_or((href, ""), |(a, b)| (a, b));
        let (base, search) = before_hash
            .split_once('?')
            .map_or((before_hash, String::new()), |(a, b)| (a, format!("?{b}")));
        let mut search = with_query_param(&search, "embed", "1");
        let show = match self.show {
            Show::Section => None,
            Show::Scenario => Some("scenario"),
            Show::Quiz => Some("quiz"),
            Show::Lab => Some("lab"),
        };
        if let Some(show) = show {
            search = with_query_param(&search, "show", show);
        }
        if let (Show::Lab, Some(lab)) = (self.show, &self.lab) {
            search = with_query_param(&search, "lab", lab);
        }
        if let Some(theme) = self.theme.attr() {
            search = with_query_param(&search, "theme", theme);
        }
        if CONTROLS.iter().any(|c| !self.controls.contains(*c)) {
            // In the panel's order, whatever order they were ticked in.
            let list: Vec<&str> = CONTROLS
                .iter()
                .copied()
                .filter(|c| self.controls.contains(*c))
                .collect();
            search = with_query_param(&search, "controls", &list.join(","));
        }
        let hash = if hash.is_empty() {
            String::new()
        } else {
            format!("#{hash}")
        };
        format!("{base}{search}{hash}")
    }
}

/// `https://host[:port]` or `http://…` with nothing after the authority; anything else
/// (a path, `*`, `javascript:`) is refused so messages never go to a wildcard by mistake.
///
/// The result is the origin as a browser serialises it (`MessageEvent.origin`), so the
/// same origin always compares equal: scheme and host in lowercase, the port without
/// leading zeros, and no port at all when it is the scheme's default
/// (`HTTP://Example.com:080` → `http://example.com`, `http://127.0.0.1:08766` →
/// `http://127.0.0.1:8766`). A port that is not a number up to 65535 is refused.
pub fn valid_origin(o: &str) -> Option<String> {
    let o = o.trim().trim_end_matches('/');
    let lower = o.to_ascii_lowercase();
    let (scheme, default_port, rest) = if let Some(r) = lower.strip_prefix("https://") {
        ("https", 443, r)
    } else if let Some(r) = lower.strip_prefix("http://") {
        ("http", 80, r)
    } else {
        return None;
    };
    let ok = !rest.is_empty()
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    if !ok {
        return None;
    }
    // The port is what follows the last `:` after any `]` (an IPv6 literal has colons).
    let host_end = rest.rfind(']').map_or(0, |i| i + 1);
    let (host, port) = match rest[host_end..].rfind(':') {
        Some(i) => (&rest[..host_end + i], Some(&rest[host_end + i + 1..])),
        None => (rest, None),
    };
    if host.is_empty() || (host.contains(':') && !host.starts_with('[')) {
        return None;
    }
    let port = match port {
        None => None,
        Some(p) if p.is_empty() || p.len() > 16 || !p.bytes().all(|b| b.is_ascii_digit()) => return None,
        Some(p) => match p.parse::<u32>() {
            Ok(n) if n <= 65_535 => Some(n).filter(|&n| n != default_port),
            _ => return None,
        },
    };
    Some(match port {
        Some(n) => format!("{scheme}://{host}:{n}"),
        None => format!("{scheme}://{host}"),
    })
}

/// A message a host may send: `{source: "lockstep-host", type: "goto", section, step}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Goto {
    pub section: Option<u32>,
    pub step: Option<usize>,
}

/// What a host's message holds that a `goto` reads: its `source` and `type` texts, and
/// its `section` and `step` where they are whole numbers from 0 (JSON's `as_u64`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostFields {
    pub source: Option<String>,
    pub kind: Option<String>,
    pub section: Option<u64>,
    pub step: Option<u64>,
}

/// The `goto` a host's message asks for: `{source: "lockstep-host", type: "goto"}` with a
/// section from 1 or a step; anything else is `None`. The page reads the posted object's
/// fields itself (`ui::embed`); [`parse_host_message`] reads them from JSON text.
pub fn goto_of(m: &HostFields) -> Option<Goto> {
    if m.source.as_deref() != Some("lockstep-host") || m.kind.as_deref() != Some("goto") {
        return None;
    }
    let section = m.section.and_then(|s| u32::try_from(s).ok()).filter(|&s| s > 0);
    let step = m.step.and_then(|s| usize::try_from(s).ok());
    (section.is_some() || step.is_some()).then_some(Goto { section, step })
}

/// Parses a host message (JSON text of the posted object); anything else is `None`.
pub fn parse_host_message(json: &str) -> Option<Goto> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let whole = |k: &str| v.get(k).and_then(serde_json::Value::as_u64);
    goto_of(&HostFields {
        source: text("source"),
        kind: text("type"),
        section: whole("section"),
        step: whole("step"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_everything_an_instructor_can_set() {
        let c = EmbedConfig::from_query(
            "?embed=1&show=scenario&section=3&theme=dark&controls=play,step,bogus&autoplay=1&origin=https://course.example.edu/",
        );
        assert!(c.embed && c.autoplay);
        assert_eq!(
            (c.show, c.section, c.theme),
            (Show::Scenario, Some(3), Theme::Dark)
        );
        assert!(c.shows("play") && c.shows("step") && !c.shows("console") && !c.shows("bogus"));
        assert_eq!(c.origin.as_deref(), Some("https://course.example.edu"));
        let plain = EmbedConfig::from_query("");
        assert!(!plain.embed && plain.shows("console") && plain.origin.is_none());
    }

    #[test]
    fn origins_are_normalised_as_browsers_serialise_them() {
        for (given, expected) in [
            ("http://127.0.0.1:08766", Some("http://127.0.0.1:8766")),
            ("http://127.0.0.1:8766/", Some("http://127.0.0.1:8766")),
            (
                "HTTPS://Course.Example.EDU:443",
                Some("https://course.example.edu"),
            ),
            ("http://example.com:80", Some("http://example.com")),
            ("http://example.com:0080", Some("http://example.com")),
            ("https://example.com:80", Some("https://example.com:80")),
            ("http://[::1]:08080", Some("http://[::1]:8080")),
            ("http://[::1]", Some("http://[::1]")),
            ("http://example.com:65536", None),
            ("http://example.com:", None),
            ("http://example.com:99999999999999999999", None),
            ("http://:8080", None),
            ("http://a:b:8080", None),
        ] {
            assert_eq!(valid_origin(given).as_deref(), expected, "{given}");
        }
        let c = EmbedConfig::from_query("?embed=1&origin=http://127.0.0.1:08766");
        assert_eq!(c.origin.as_deref(), Some("http://127.0.0.1:8766"));
    }

    #[test]
    fn the_share_dialogs_choices_make_an_embed_url_that_reads_them_back() {
        let href = "http://127.0.0.1:8080/?lang=nb#/distributed-locks/3?scenario=unsafe-del&seed=7";
        let plain = EmbedChoice::default().url(href);
        assert_eq!(
            plain,
            "http://127.0.0.1:8080/?lang=nb&embed=1#/distributed-locks/3?scenario=unsafe-del&seed=7"
        );
        let mut choice = EmbedChoice {
            show: Show::Scenario,
            theme: Theme::Dark,
            ..EmbedChoice::default()
        };
        choice.controls.remove("console");
        choice.controls.remove("editor");
        let url = choice.url(href);
        let (query, hash) = url.split_once('#').expect("the hash is kept");
        assert_eq!(hash, "/distributed-locks/3?scenario=unsafe-del&seed=7");
        let search = &query[query.find('?').expect("a query")..];
        let c = EmbedConfig::from_query(search);
        assert!(c.embed);
        assert_eq!((c.show, c.theme), (Show::Scenario, Theme::Dark));
        assert!(c.shows("play") && c.shows("faults") && !c.shows("console") && !c.shows("editor"));
        assert_eq!(query_param(search, "lang").as_deref(), Some("nb"));
        // One lab, by id; an id a lab cannot have is not read back.
        let lab = EmbedChoice {
            show: Show::Lab,
            lab: Some("safe-release".into()),
            ..EmbedChoice::default()
        }
        .url(href);
        let c = EmbedConfig::from_query(&lab[lab.find('?').unwrap_or(0)..lab.find('#').unwrap_or(lab.len())]);
        assert_eq!((c.show, c.lab.as_deref()), (Show::Lab, Some("safe-release")));
        for bad in ["../x", "Safe", "", "a b"] {
            let c = EmbedConfig::from_query(&format!("?embed=1&show=lab&lab={bad}"));
            assert_eq!((c.show, c.lab), (Show::Lab, None), "{bad}");
        }
        // No query, no hash: still a well-formed URL.
        assert_eq!(EmbedChoice::default().url("http://h/"), "http://h/?embed=1");
    }

    #[test]
    fn only_real_origins_are_accepted() {
        for bad in [
            "*",
            "javascript:alert(1)",
            "https://a.example/path",
            "ftp://x",
            "https://",
            "https://a b",
        ] {
            assert_eq!(valid_origin(bad), None, "{bad}");
        }
        assert_eq!(
            valid_origin("http://127.0.0.1:8080").as_deref(),
            Some("http://127.0.0.1:8080")
        );
    }

    #[test]
    fn host_messages() {
        let g = parse_host_message(r#"{"source":"lockstep-host","type":"goto","section":5,"step":12}"#);
        assert_eq!(
            g,
            Some(Goto {
                section: Some(5),
                step: Some(12)
            })
        );
        assert_eq!(
            parse_host_message(r#"{"source":"someone","type":"goto","section":5}"#),
            None
        );
        assert_eq!(
            parse_host_message(r#"{"source":"lockstep-host","type":"goto"}"#),
            None
        );
        assert_eq!(parse_host_message("not json"), None);
        assert_eq!(
            parse_host_message(r#"{"source":"lockstep-host","type":"goto","section":-1}"#),
            None
        );
    }
}
