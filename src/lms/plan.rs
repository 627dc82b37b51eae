//! What a package will hold, checked: its formats, sections, language, pack and passing
//! rule ([`Plan`]), from what the instructor asked for ([`Request`]); every mistake names
//! the option.

use crate::lesson::content::{builtin, Lesson};
use crate::lesson::lang::Lang;
use crate::lesson::pack::{load_dir, section_labs};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The launch page's template, as `lms/` has it.
const LAUNCH_HTML: &str = include_str!("../../lms/lms.html");
/// The folder a pack is copied to inside a package (`?pack=pack/pack.toml`).
pub(super) const PACK_DIR: &str = "pack";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Scorm12,
    Scorm2004,
    Cmi5,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Scorm12, Format::Scorm2004, Format::Cmi5];

    pub fn name(self) -> &'static str {
        match self {
            Format::Scorm12 => "scorm12",
            Format::Scorm2004 => "scorm2004",
            Format::Cmi5 => "cmi5",
        }
    }

    pub fn zip_name(self) -> String {
        format!("lockstep-{}.zip", self.name())
    }
}

/// What the instructor asked for, as the command line gave it.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// `scorm12`, `scorm2004`, `cmi5` or `all`.
    pub format: String,
    /// `1,3-5`; none: every section.
    pub sections: Option<String>,
    /// `en` or `nb`.
    pub lang: String,
    /// A lesson pack's folder (or its `pack.toml`).
    pub pack: Option<PathBuf>,
    /// The quick check's share, in percent, that passing needs.
    pub pass_quiz: Option<String>,
    /// Labs passing needs, comma-separated.
    pub pass_labs: Option<String>,
    pub title: Option<String>,
}

/// A package's content, checked: what `lms.html` carries and the manifests name.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    #[serde(skip)]
    pub formats: Vec<Format>,
    pub lesson: String,
    pub lang: &'static str,
    pub title: String,
    /// `pack/pack.toml` when the package carries a pack.
    pub pack: Option<String>,
    #[serde(skip)]
    pub pack_dir: Option<PathBuf>,
    /// The included sections, in order.
    pub sections: Vec<SectionRef>,
    /// The labs of the included sections.
    pub labs: Vec<String>,
    /// The quick check's share passing needs (0 to 1), if it counts.
    #[serde(rename = "passQuiz")]
    pub pass_quiz: Option<f64>,
    /// The labs passing needs.
    #[serde(rename = "passLabs")]
    pub pass_labs: Vec<String>,
    /// Whether the lesson's final quick check is among the included sections.
    #[serde(rename = "quickCheck")]
    pub quick_check: bool,
    /// What tells this package from another of the same lesson: `<lesson>-<lang>-<sections>`
    /// (a platform may take a second upload with the same identifier as an update).
    #[serde(skip)]
    pub key: String,
    /// The cmi5 course's and assignable unit's IRIs.
    pub course: String,
    pub au: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SectionRef {
    pub order: u32,
    pub id: String,
    pub title: String,
}

impl Plan {
    /// Whether passing asks for anything: without a rule, a package reports completion only.
    pub fn has_rule(&self) -> bool {
        self.pass_quiz.is_some() || !self.pass_labs.is_empty()
    }

    /// The configuration `lms.html` hands `lms.js`, for one format.
    pub fn config_json(&self, format: Format) -> String {
        #[derive(Serialize)]
        struct Config<'a> {
            format: Format,
            #[serde(flatten)]
            plan: &'a Plan,
        }
        serde_json::to_string(&Config { format, plan: self }).unwrap_or_default()
    }

    /// The launch page: the template with the language, title and configuration in it.
    pub fn launch_html(&self, format: Format) -> String {
        // In a <script> element only `</` could end it early; JSON allows `<\/`.
        let config = self.config_json(format).replace("</", "<\\/");
        LAUNCH_HTML
            .replace("{{lang}}", self.lang)
            .replace("{{title}}", &crate::xml::escape(&self.title))
            .replace("{{config}}", &config)
    }
}

/// Checks a request against the lesson (the built-in one, or the pack's): every section,
/// lab and number it names must be there. `Err` names the option and what is wrong.
pub fn plan(req: &Request) -> Result<Plan, String> {
    let formats = match req.format.as_str() {
        "all" => Format::ALL.to_vec(),
        f => vec![Format::ALL
            .into_iter()
            .find(|x| x.name() == f)
            .ok_or_else(|| format!("--format: `{f}` is not scorm12, scorm2004, cmi5 or all"))?],
    };
    let lang = match req.lang.as_str() {
        "en" => Lang::En,
        "nb" => Lang::Nb,
        l => return Err(format!("--lang: `{l}` is not en or nb")),
    };
    let (lesson, pack_title, pack_dir) = match &req.pack {
        None => (
            builtin(lang).map_err(|e| format!("the built-in lesson: {}", e.len()))?,
            None,
            None,
        ),
        Some(path) => {
            let pack = load_dir(path).map_err(|errors| {
                let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
                format!("--pack: the pack has mistakes:\n{}", lines.join("\n"))
            })?;
            let lesson = pack
                .lesson(lang)
                .ok_or_else(|| format!("--pack: the pack has no sections in `{}`", req.lang))?
                .clone();
            let dir = if path.is_dir() {
                path.clone()
            } else {
                path.parent().map(Path::to_path_buf).unwrap_or_default()
            };
            (lesson, Some(pack.title(lang).to_string()), Some(dir))
        }
    };
    let orders = match &req.sections {
        None => lesson.sections.iter().map(|s| s.order).collect(),
        Some(spec) => section_orders(spec, &lesson)?,
    };
    let sections: Vec<SectionRef> = orders
        .iter()
        .filter_map(|o| lesson.section(*o))
        .map(|s| SectionRef {
            order: s.order,
            id: s.id.clone(),
            title: s.title.clone(),
        })
        .collect();
    let labs: Vec<String> = orders.iter().flat_map(|o| section_labs(&lesson, *o)).collect();
    let pass_labs: Vec<String> = req
        .pass_labs
        .as_deref()
        .map(|l| {
            l.split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if let Some(missing) = pass_labs.iter().find(|l| !labs.contains(l)) {
        return Err(format!(
            "--pass-labs: no lab `{missing}` in the included sections (their labs: {})",
            if labs.is_empty() {
                "none".to_string()
            } else {
                labs.join(", ")
            }
        ));
    }
    let last = lesson.sections.last().map_or(0, |s| s.order);
    let quick_check = orders.contains(&last);
    let pass_quiz = match req.pass_quiz.as_deref() {
        None => None,
        Some(p) => {
            let share = p
                .trim()
                .trim_end_matches('%')
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= 100)
                .ok_or_else(|| format!("--pass-quiz: `{p}` is not a whole percent from 0 to 100"))?;
            if !quick_check {
                return Err(format!(
                    "--pass-quiz: the quick check is in section {last}, which --sections leaves out"
                ));
            }
            Some(f64::from(share) / 100.0)
        }
    };
    let title = req.title.clone().unwrap_or_else(|| match (pack_title, lang) {
        (Some(t), _) => t,
        (None, Lang::En) => "Lockstep: distributed locks and Redlock".to_string(),
        (None, Lang::Nb) => "Lockstep: distribuerte låser og Redlock".to_string(),
    });
    let span = match (orders.first(), orders.last()) {
        (Some(a), Some(b)) if orders.len() == lesson.sections.len() => format!("{a}-{b}"),
        _ => orders.iter().map(u32::to_string).collect::<Vec<_>>().join("."),
    };
    let pack_file = pack_dir.as_ref().map(|_| format!("{PACK_DIR}/pack.toml"));
    let key = format!("{}-{}-{span}", lesson.id, lang.code());
    Ok(Plan {
        formats,
        course: format!("urn:lockstep:{}:{}:{span}", lesson.id, lang.code()),
        au: format!("urn:lockstep:{}:{}:{span}:au", lesson.id, lang.code()),
        key,
        lesson: lesson.id.clone(),
        lang: lang.code(),
        title,
        pack: pack_file,
        pack_dir,
        sections,
        labs,
        pass_quiz,
        pass_labs,
        quick_check,
    })
}

/// `1,3-5` as section orders, each one the lesson has, in the lesson's order, once.
fn section_orders(spec: &str, lesson: &Lesson) -> Result<Vec<u32>, String> {
    let bad = |part: &str| format!("--sections: `{part}` is not a section number or a range like 3-5");
    let mut wanted = std::collections::BTreeSet::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let a: u32 = a.trim().parse().map_err(|_| bad(part))?;
        let b: u32 = b.trim().parse().map_err(|_| bad(part))?;
        if a > b {
            return Err(bad(part));
        }
        for o in a..=b.min(a.saturating_add(1000)) {
            if lesson.section(o).is_none() {
                let n = lesson.sections.len();
                return Err(format!("--sections: the lesson has no section {o} (it has {n})"));
            }
            wanted.insert(o);
        }
    }
    if wanted.is_empty() {
        return Err("--sections: no section named".to_string());
    }
    Ok(lesson
        .sections
        .iter()
        .map(|s| s.order)
        .filter(|o| wanted.contains(o))
        .collect())
}
