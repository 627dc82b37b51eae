//! Routes live in the URL hash, so a static file server is enough and the back button
//! works: `#/distributed-locks/7` is section 7 of the built-in lesson.

/// Where the URL points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// No route: resume where the learner was, or start at the beginning.
    Home,
    Section {
        lesson: String,
        order: u32,
    },
    /// The learner's progress page: `#/distributed-locks/progress`.
    Progress {
        lesson: String,
    },
    /// Something we cannot show; kept so the page can say what was asked for.
    NotFound(String),
}

impl Route {
    /// Parses `location.hash` (with or without the leading `#`).
    pub fn parse(hash: &str) -> Route {
        let h = hash.strip_prefix('#').unwrap_or(hash);
        // Anything after `?` in the hash is reserved for later state (scenario, seed…).
        let h = h.split('?').next().unwrap_or("");
        let trimmed = h.trim_matches('/');
        if trimmed.is_empty() {
            return Route::Home;
        }
        let mut parts = trimmed.split('/');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(lesson), Some("progress"), None) if !lesson.is_empty() => Route::Progress {
                lesson: lesson.to_string(),
            },
            (Some(lesson), Some(order), None) if !lesson.is_empty() => match order.parse::<u32>() {
                Ok(order) if order > 0 => Route::Section {
                    lesson: lesson.to_string(),
                    order,
                },
                _ => Route::NotFound(hash.to_string()),
            },
            (Some(lesson), None, None) => Route::Section {
                lesson: lesson.to_string(),
                order: 1,
            },
            _ => Route::NotFound(hash.to_string()),
        }
    }

    /// The hash of the progress page.
    pub fn progress_hash(lesson: &str) -> String {
        format!("#/{lesson}/progress")
    }

    /// The hash for a section, e.g. `#/distributed-locks/7`.
    pub fn section_hash(lesson: &str, order: u32) -> String {
        format!("#/{lesson}/{order}")
    }
}

/// What an older version of the app appended to the query by mistake (`/?lang=nb?scenario=…`,
/// `?pack=p.toml?scenario=…`): the scenario's state belongs in the hash.
const CORRUPTION: &str = "?scenario=";

/// The query as the visitor meant it: anything from a stray `?scenario=` on (see
/// [`repair_url`]) is cut off, so such a link still opens in its language.
fn clean_query(search: &str) -> &str {
    let s = search.find(CORRUPTION).map_or(search, |i| &search[..i]);
    s.strip_prefix('?').unwrap_or(s)
}

/// The value of `name` in a query string such as `?lang=nb&x=1` (minimal percent-decoding).
/// Read leniently: a link corrupted as `?lang=nb?scenario=…` gives `lang=nb`.
pub fn query_param(search: &str, name: &str) -> Option<String> {
    let q = clean_query(search);
    q.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(k) == name).then(|| percent_decode(v))
    })
}

/// Returns `search` with `name` set to `value` (added or replaced), keeping other params.
pub fn with_query_param(search: &str, name: &str, value: &str) -> String {
    let q = clean_query(search);
    let mut parts: Vec<String> = q
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| percent_decode(p.split('=').next().unwrap_or("")) != name)
        .map(str::to_string)
        .collect();
    parts.push(format!("{name}={value}"));
    format!("?{}", parts.join("&"))
}

/// Returns `search` without `name` (`""` when nothing is left), keeping the other params.
pub fn without_query_param(search: &str, name: &str) -> String {
    let q = clean_query(search);
    let parts: Vec<&str> = q
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| percent_decode(p.split('=').next().unwrap_or("")) != name)
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    }
}

/// The route part of a hash: `#/distributed-locks/3?scenario=x` → `/distributed-locks/3`.
pub fn hash_route(hash: &str) -> &str {
    let h = hash.strip_prefix('#').unwrap_or(hash);
    h.split('?').next().unwrap_or("")
}

/// The hash that keeps `hash`'s route and puts `state` (`scenario=…&seed=…`) after it:
/// the one place a scenario's state is written into the URL. Always starts with `#`.
pub fn hash_with_state(hash: &str, state: &str) -> String {
    let route = hash_route(hash);
    if state.is_empty() {
        format!("#{route}")
    } else {
        format!("#{route}?{}", state.trim_start_matches(['?', '&']))
    }
}

/// A link an older version corrupted (`/?lang=nb?scenario=…&t=0#/distributed-locks/3`):
/// the query the visitor meant, and the hash with the scenario's state moved into it
/// (where it belongs) unless the hash already has some. `None`: nothing to repair.
pub fn repair_url(search: &str, hash: &str) -> Option<(String, String)> {
    let at = search.find(CORRUPTION)?;
    let kept = search[..at].strip_prefix('?').unwrap_or(&search[..at]);
    let state = &search[at + 1..];
    let search = if kept.is_empty() {
        String::new()
    } else {
        format!("?{kept}")
    };
    let route = hash_route(hash);
    let hash = if hash.contains('?') || route.trim_matches('/').is_empty() {
        hash.to_string()
    } else {
        hash_with_state(hash, state)
    };
    Some((search, hash))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sections() {
        let s = |l: &str, o| Route::Section {
            lesson: l.into(),
            order: o,
        };
        assert_eq!(Route::parse("#/distributed-locks/7"), s("distributed-locks", 7));
        assert_eq!(Route::parse("/distributed-locks/12/"), s("distributed-locks", 12));
        assert_eq!(Route::parse("#/distributed-locks"), s("distributed-locks", 1));
        assert_eq!(
            Route::parse("#/distributed-locks/3?scenario=x"),
            s("distributed-locks", 3)
        );
        assert_eq!(
            Route::parse("#/distributed-locks/progress"),
            Route::Progress {
                lesson: "distributed-locks".into()
            }
        );
        assert_eq!(
            Route::parse(&Route::progress_hash("x")),
            Route::Progress { lesson: "x".into() }
        );
        assert_eq!(Route::parse(""), Route::Home);
        assert_eq!(Route::parse("#"), Route::Home);
        assert_eq!(Route::parse("#/"), Route::Home);
    }

    #[test]
    fn bad_routes_are_not_found() {
        for h in [
            "#/distributed-locks/0",
            "#/distributed-locks/x",
            "#/a/1/2",
            "#/a/-1",
            "#/a/99999999999",
        ] {
            assert!(matches!(Route::parse(h), Route::NotFound(_)), "{h}");
        }
    }

    #[test]
    fn round_trip() {
        let h = Route::section_hash("distributed-locks", 4);
        assert_eq!(
            Route::parse(&h),
            Route::Section {
                lesson: "distributed-locks".into(),
                order: 4
            }
        );
    }

    #[test]
    fn query_params() {
        assert_eq!(query_param("?lang=nb&x=1", "lang").as_deref(), Some("nb"));
        assert_eq!(query_param("?x=1&lang=en", "lang").as_deref(), Some("en"));
        assert_eq!(query_param("?x=a%20b", "x").as_deref(), Some("a b"));
        assert_eq!(query_param("?x=%zz%", "x").as_deref(), Some("%zz%"));
        assert_eq!(query_param("", "lang"), None);
        assert_eq!(with_query_param("?x=1&lang=en", "lang", "nb"), "?x=1&lang=nb");
        assert_eq!(with_query_param("", "lang", "nb"), "?lang=nb");
        assert_eq!(without_query_param("?pack=p.toml&lang=nb", "pack"), "?lang=nb");
        assert_eq!(without_query_param("?pack=p.toml", "pack"), "");
    }

    #[test]
    fn a_link_corrupted_by_scenario_state_in_the_query_is_read_leniently() {
        let s = "?lang=nb?scenario=double-charge-no-lock&seed=1&t=0&e=0";
        assert_eq!(query_param(s, "lang").as_deref(), Some("nb"));
        assert_eq!(query_param(s, "seed"), None);
        let p = "?pack=packs/example/pack.toml?scenario=lease-short&seed=1";
        assert_eq!(query_param(p, "pack").as_deref(), Some("packs/example/pack.toml"));
        // A pack address with a query of its own is left alone.
        assert_eq!(
            query_param("?pack=https://x.example/p.toml?v=2", "pack").as_deref(),
            Some("https://x.example/p.toml?v=2")
        );
        assert_eq!(
            repair_url(s, "#/distributed-locks/3"),
            Some((
                "?lang=nb".to_string(),
                "#/distributed-locks/3?scenario=double-charge-no-lock&seed=1&t=0&e=0".to_string()
            ))
        );
        // The hash's own state wins; with nothing kept the query goes.
        assert_eq!(
            repair_url("?scenario=a&seed=1", "#/l/2?scenario=b"),
            Some((String::new(), "#/l/2?scenario=b".to_string()))
        );
        assert_eq!(repair_url("?lang=nb", "#/l/2"), None);
        assert_eq!(repair_url("", ""), None);
    }

    #[test]
    fn scenario_state_is_written_into_the_hash_after_the_route() {
        assert_eq!(
            hash_with_state("#/distributed-locks/3", "scenario=x&seed=1"),
            "#/distributed-locks/3?scenario=x&seed=1"
        );
        assert_eq!(
            hash_with_state("#/distributed-locks/3?scenario=old&t=9", "scenario=x"),
            "#/distributed-locks/3?scenario=x"
        );
        // Never a bare `?…`, which a browser would put in the query.
        assert!(hash_with_state("", "scenario=x").starts_with('#'));
        assert_eq!(hash_route("#/l/3?x=1"), "/l/3");
        assert_eq!(hash_route(""), "");
    }
}
