//! The one channel between the page and its engine worker, declared once: a
//! [`Request`] the page sends, the [`Answer`]s the engine makes of it one [`Steps::next`]
//! at a time, both in the wire's form (`crate::wire`). `src/bin/engine.rs` exports
//! `Steps` as `EngineJob`; `static/engine-worker.js` only carries the texts, with the
//! request's id, yields between two answers (so a cancel is heard) and says when a
//! request is done: it knows no kind of request by name. The page writes requests and
//! reads answers in `ui::engine_worker`. A mistake in what a request holds is an answer
//! ([`Answer::Error`], or the call's own `Result`), not a failure of the worker.

use crate::lesson::generate::{Instance, InstanceJob};
use crate::lesson::pack::Pack;
use crate::sim::explore::{explore_batch, BatchSummary};
use crate::sim::scenario::Scenario;
use crate::sim::sweep::{ttl_point, TtlPoint};
use crate::timeline::panel::{run_job, split_answer, RunAnswer, RunJob, RunPart};
use crate::timeline::ScriptError;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What the page asks of the engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// A scenario panel's run, a console line's fork or a lab's replay: its long lists
    /// in pieces ([`Answer::RunPart`]), then the rest ([`Answer::Ran`]).
    Run(RunJob),
    /// "Can this break?": `batches` batches of the explorer (at most 1 000), one
    /// [`Answer::Batch`] each.
    Explore {
        scenario: Scenario,
        seed: u64,
        batches: u32,
    },
    /// §4's trade-off table: a row per TTL (at most 100), one [`Answer::Row`] each.
    Sweep {
        scenario: Scenario,
        seed: u64,
        ttls: Vec<f64>,
    },
    /// The files a pack file lists, to fetch.
    PackList(PackFile),
    /// The pack its files make, validated.
    PackLoad(PackFiles),
    /// §2's console exercise: the reply to the last of these lines, each run in turn on
    /// a fresh store whose clock starts at 0 (it moves only with `DEBUG SLEEP`), so the
    /// same lines always give the same replies.
    Console(Vec<String>),
    /// A learner's release or extend script, before it replaces the scenario's.
    ScriptCheck(ScriptCheck),
    /// A generated or "what happens next?" question's instance.
    Question(InstanceJob),
    /// Each text's Markdown tree, encoded (`lesson::docs`: the page parses no Markdown).
    Markdown(Vec<String>),
}

/// One of the engine's answers to a [`Request`], each request's in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    RunPart(RunPart),
    /// Boxed, as the largest (the run's model without its long lists).
    Ran(Box<RunAnswer>),
    Batch {
        batch: u32,
        report: BatchSummary,
    },
    Row {
        index: u32,
        row: TtlPoint,
    },
    PackList(Result<Vec<String>, Vec<String>>),
    PackLoad(Result<Pack, Vec<String>>),
    Console(String),
    /// The script compiles, and the scenario run once with it (`scenario`, the script
    /// already in it, and `seed`) does not fail on a node.
    ScriptCheck(Result<(), ScriptError>),
    Question(Box<Instance>),
    /// One tree per text.
    Markdown(Vec<String>),
    /// The engine's own error (the scenario cannot run, too much Markdown): the
    /// request ends with it.
    Error(String),
}

impl Request {
    /// Its name for people (the worker's message carries it, for a reader of the
    /// traffic); nothing is dispatched on it.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Run(_) => "run",
            Request::Explore { .. } => "explore",
            Request::Sweep { .. } => "sweep",
            Request::PackList(_) => "pack_list",
            Request::PackLoad(_) => "pack_load",
            Request::Console(_) => "console",
            Request::ScriptCheck(_) => "script_check",
            Request::Question(_) => "question",
            Request::Markdown(_) => "markdown",
        }
    }

    /// The language whose words it needs (`crate::text`), if any: a question's.
    pub fn lang(&self) -> Option<crate::lesson::lang::Lang> {
        match self {
            Request::Question(job) => Some(job.lang),
            _ => None,
        }
    }

    /// Whether the authoring module answers it (a pack, Markdown: the TOML and Markdown
    /// readers, the pack loader), not the engine's module, which a learner of the built-in
    /// lesson runs: its texts are trees already, or plain (`lesson::markdown::is_plain`).
    pub fn for_authoring(&self) -> bool {
        matches!(
            self,
            Request::PackList(_) | Request::PackLoad(_) | Request::Markdown(_)
        )
    }
}

/// What a module built without `authoring` answers a pack's or Markdown's request.
pub const NOT_AUTHORING: &str =
    "this module loads no packs and parses no Markdown: the authoring module does";

/// The most batches one `Explore` and rows one `Sweep` make.
pub const MAX_BATCHES: u32 = 1_000;
pub const MAX_ROWS: usize = 100;

/// A request made into its answers, one at a time, so that the worker can yield (and
/// hear a cancel) between two.
pub struct Steps {
    request: Request,
    /// The next batch or row.
    next: u32,
    /// Answers made and not yet taken (a run's pieces).
    ready: VecDeque<Answer>,
    over: bool,
}

impl Steps {
    pub fn new(request: Request) -> Steps {
        Steps {
            request,
            next: 0,
            ready: VecDeque::new(),
            over: false,
        }
    }

    /// The request being answered.
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// The next answer, or `None` when the request is answered.
    pub fn next_answer(&mut self) -> Option<Answer> {
        if let Some(a) = self.ready.pop_front() {
            return Some(a);
        }
        if self.over {
            return None;
        }
        let i = self.next;
        self.next = self.next.saturating_add(1);
        let answer = match &self.request {
            Request::Explore {
                scenario,
                seed,
                batches,
            } => {
                if i >= (*batches).min(MAX_BATCHES) {
                    self.over = true;
                    return None;
                }
                explore_batch(scenario, *seed, u64::from(i)).map(|report| Answer::Batch { batch: i, report })
            }
            Request::Sweep { scenario, seed, ttls } => {
                let Some(&ttl) = ttls.get(i as usize).filter(|_| (i as usize) < MAX_ROWS) else {
                    self.over = true;
                    return None;
                };
                ttl_point(scenario, *seed, ttl).map(|row| Answer::Row { index: i, row })
            }
            one => {
                self.over = true;
                Ok(answer_once(one, &mut self.ready))
            }
        };
        Some(answer.unwrap_or_else(|e| {
            self.over = true;
            Answer::Error(e)
        }))
    }
}

/// A pack's or Markdown's answer ([`Request::for_authoring`]).
#[cfg(feature = "authoring")]
fn authored(request: &Request) -> Answer {
    use crate::lesson::pack::{files_to_fetch, load_with_unreadable};
    match request {
        Request::PackList(p) => Answer::PackList(files_to_fetch(&p.name, &p.text).map_err(texts)),
        Request::PackLoad(p) => {
            Answer::PackLoad(load_with_unreadable(&p.files, &p.unreadable).map_err(texts))
        }
        Request::Markdown(texts) => {
            if texts.iter().map(String::len).sum::<usize>() > MAX_MARKDOWN_BYTES {
                return Answer::Error(format!(
                    "more than {MAX_MARKDOWN_BYTES} bytes of Markdown in one request"
                ));
            }
            Answer::Markdown(crate::lesson::docs::encode_all(texts))
        }
        _ => Answer::Error("not a pack's or Markdown's request".into()),
    }
}

#[cfg(feature = "authoring")]
fn texts<E: std::fmt::Display>(errors: Vec<E>) -> Vec<String> {
    errors.iter().map(|e| e.to_string()).collect()
}

/// Without `authoring` (the engine's module), a pack's and Markdown's requests are refused.
#[cfg(not(feature = "authoring"))]
fn authored(_: &Request) -> Answer {
    Answer::Error(NOT_AUTHORING.into())
}

/// The answer to a request answered at once (all but `Explore` and `Sweep`); a run's
/// pieces go to `ready`, before its last answer, which is returned first.
fn answer_once(request: &Request, ready: &mut VecDeque<Answer>) -> Answer {
    match request {
        Request::Run(job) => {
            let (parts, rest) = split_answer(run_job(job));
            ready.extend(parts.into_iter().map(Answer::RunPart));
            ready.push_back(Answer::Ran(Box::new(rest)));
            ready
                .pop_front()
                .unwrap_or(Answer::Error("the run made no answer".into()))
        }
        Request::PackList(_) | Request::PackLoad(_) | Request::Markdown(_) => authored(request),
        Request::Console(lines) => Answer::Console(console_reply(lines)),
        Request::ScriptCheck(c) => Answer::ScriptCheck(script_check(c)),
        Request::Question(job) => Answer::Question(Box::new(job.make())),
        Request::Explore { .. } | Request::Sweep { .. } => {
            Answer::Error("not a request answered at once".into())
        }
    }
}

/// Every answer to `request`, as the worker makes them (natively: the CLI's tests and
/// the engine's own).
pub fn answers(request: Request) -> Vec<Answer> {
    let mut steps = Steps::new(request);
    std::iter::from_fn(|| steps.next_answer()).collect()
}

/// What `PackLoad` is given: the pack's files as fetched (the pack file first) and
/// those that were not taken, each with its reason.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PackFiles {
    pub files: Vec<(String, String)>,
    #[serde(default)]
    pub unreadable: Vec<(String, String)>,
}

/// What `PackList` is given: the pack file's name and text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PackFile {
    pub name: String,
    pub text: String,
}

/// The most Markdown one `Markdown` request parses: a whole pack's texts (its files are
/// at most `MAX_PACK_BYTES` together) fit.
pub const MAX_MARKDOWN_BYTES: usize = 2 * crate::lesson::pack::MAX_PACK_BYTES;

/// What `ScriptCheck` is given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptCheck {
    pub source: String,
    pub scenario: crate::sim::scenario::Scenario,
    pub seed: u64,
}

/// Does the script compile, and does the scenario with it run without a node failing it?
pub fn script_check(c: &ScriptCheck) -> Result<(), ScriptError> {
    use crate::timeline::{build, check_script, first_script_error};
    check_script(&c.source)?;
    match build(&c.scenario, c.seed) {
        Ok(m) => first_script_error(&m.trace).map_or(Ok(()), Err),
        Err(message) => Err(ScriptError { line: None, message }),
    }
}

/// The most lines a console exercise replays (each call runs them all again).
pub const MAX_CONSOLE_LINES: usize = 500;

/// The reply to the last of `lines`, run one after another on a fresh store.
pub fn console_reply(lines: &[String]) -> String {
    if lines.len() > MAX_CONSOLE_LINES {
        return format!("(error) this console keeps {MAX_CONSOLE_LINES} commands at most: reload the page to start a new one");
    }
    let mut store = crate::store::Store::new(1);
    lines
        .iter()
        .filter_map(|line| store.answer_line(line))
        .last()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::pack::{files_to_fetch, load_with_unreadable};

    /// `request`'s answers as the page gets them: the request and each answer through
    /// the wire, as the worker carries them.
    fn through(request: Request) -> Vec<Answer> {
        let sent: Request = crate::wire::from_text(&crate::wire::to_text(&request).unwrap()).unwrap();
        assert_eq!(sent, request);
        answers(sent)
            .into_iter()
            .map(|a| crate::wire::from_text(&crate::wire::to_text(&a).unwrap()).unwrap())
            .collect()
    }

    /// The one answer of a request answered at once.
    fn only(request: Request) -> Answer {
        let mut all = through(request);
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0)
    }

    /// A pack's files, the pack file first, as the page fetches them.
    fn pack_files(dir: &str) -> Vec<(String, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut files = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else {
                    let rel = p
                        .strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/");
                    files.push((rel, std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
        crate::sorting::sort_by_key(&mut files, |(p, _)| (p != "pack.toml", p.clone()));
        files
    }

    /// Only a pack's two requests and Markdown need the authoring module; the others a
    /// learner's built-in lesson makes are the engine's (the page names the module by this).
    #[test]
    fn only_a_packs_requests_and_markdown_are_the_authoring_modules() {
        let pack = [
            Request::PackList(PackFile {
                name: "pack.toml".into(),
                text: String::new(),
            }),
            Request::PackLoad(PackFiles {
                files: Vec::new(),
                unreadable: Vec::new(),
            }),
        ];
        assert!(pack.iter().all(Request::for_authoring));
        assert!(Request::Markdown(vec!["*a*".into()]).for_authoring());
        let learner = [
            Request::Console(vec!["PING".into()]),
            Request::Explore {
                scenario: crate::sim::scenario::builtin("double-charge-no-lock")
                    .expect("a built-in scenario")
                    .expect("it reads"),
                seed: 1,
                batches: 1,
            },
        ];
        assert!(!learner.iter().any(Request::for_authoring));
    }

    /// Packs loaded through the channel are the packs the loader makes of their files
    /// directly, labs included; a mistake comes back as its text.
    #[test]
    fn a_pack_loaded_through_the_channel_is_the_one_loaded_here() {
        for dir in ["packs/example", "tests/fixtures/packs/lab-ok"] {
            let files = pack_files(dir);
            let (name, text) = files[0].clone();
            let listed = only(Request::PackList(PackFile {
                name: name.clone(),
                text: text.clone(),
            }));
            assert_eq!(
                listed,
                Answer::PackList(files_to_fetch(&name, &text).map_err(texts)),
                "{dir}"
            );
            let got = only(Request::PackLoad(PackFiles {
                files: files.clone(),
                unreadable: Vec::new(),
            }));
            let here = load_with_unreadable(&files, &[]).map_err(texts);
            assert!(
                here.as_ref()
                    .is_ok_and(|p| dir.ends_with("example") || !p.labs.is_empty()),
                "{dir}: {here:?}"
            );
            assert_eq!(got, Answer::PackLoad(here), "{dir}");
        }
        let bad = only(Request::PackLoad(PackFiles {
            files: vec![("pack.toml".into(), "id = 3".into())],
            unreadable: Vec::new(),
        }));
        assert!(
            matches!(&bad, Answer::PackLoad(Err(e)) if !e.is_empty()),
            "{bad:?}"
        );
        assert!(crate::wire::from_text::<Request>("not the wire!").is_err());
    }

    /// §2's console: every line so far on a fresh store whose clock moves only with
    /// DEBUG SLEEP; the reply is the last line's.
    #[test]
    fn the_console_replies_to_its_last_line_on_a_store_of_its_own() {
        let reply = |ls: &[&str]| match only(Request::Console(ls.iter().map(|l| l.to_string()).collect())) {
            Answer::Console(r) => r,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            reply(&["SET lock:a t1 NX PX 1000", "DEBUG SLEEP 0.25", "PTTL lock:a"]),
            "(integer) 750"
        );
        assert_eq!(
            reply(&["SET lock:a t1 NX PX 1000", "SET lock:a t2 NX PX 1000"]),
            "(nil)"
        );
        assert_eq!(reply(&["SET lock:a t1 NX PX 1000", "", "GET lock:a"]), "\"t1\"");
        assert!(reply(&["SET \"unclosed"]).starts_with("(error)"));
        let many: Vec<&str> = vec!["INCR n"; MAX_CONSOLE_LINES + 1];
        assert!(reply(&many).contains("at most"), "{}", reply(&many));
    }

    /// A learner's script is refused if it does not compile (with its line) or fails on
    /// a node when the scenario runs with it, and taken otherwise.
    #[test]
    fn a_script_is_checked_by_compiling_it_and_running_the_scenario_once() {
        let scenario = crate::sim::scenario::builtin("safe-release").unwrap().unwrap();
        let check = |source: &str, release: bool| {
            let variant = crate::timeline::Variant {
                release_script: release.then(|| source.to_string()),
                ..Default::default()
            };
            let c = ScriptCheck {
                source: source.into(),
                scenario: variant.apply(&scenario),
                seed: 1,
            };
            match only(Request::ScriptCheck(c)) {
                Answer::ScriptCheck(r) => r,
                other => panic!("{other:?}"),
            }
        };
        let good = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
        assert_eq!(check(good, true), Ok(()));
        let broken = check("if then end", true).unwrap_err();
        assert_eq!(broken.line, Some(1), "{broken:?}");
        let failing = check("return redis.call('nosuchcommand')", true);
        assert!(
            failing.is_err(),
            "a script that fails on the nodes is refused: {failing:?}"
        );
    }

    /// A generated question's instance through the channel is the one made here.
    #[test]
    fn a_question_made_through_the_channel_is_the_one_made_here() {
        use crate::lesson::generate::{instance_in, needs_engine};
        let questions = crate::lesson::content::compiled_questions();
        let mut made = 0;
        for q in questions.iter().filter(|q| needs_engine(q)) {
            let job = InstanceJob {
                question: q.clone(),
                lang: crate::lesson::content::Lang::Nb,
                seed: 99,
                scenarios: Vec::new(),
            };
            let got = only(Request::Question(job.clone()));
            assert_eq!(
                got,
                Answer::Question(Box::new(instance_in(q, job.lang, 99, &[]))),
                "{}",
                q.id
            );
            made += 1;
        }
        assert!(made >= 5, "{made} questions need the engine");
    }

    /// A run comes in pieces then the rest, and put together it is the run made here;
    /// "Can this break?" and §4's table answer batch by batch and row by row, as made
    /// here, and stop at their caps; a scenario that cannot run ends with its error.
    #[test]
    fn runs_batches_and_rows_come_one_answer_at_a_time() {
        use crate::timeline::panel::Parts;
        let scenario = crate::sim::scenario::builtin("ttl-workers").unwrap().unwrap();
        let job = RunJob::Run {
            scenario: scenario.clone(),
            seed: 3,
            injections: Vec::new(),
        };
        let all = through(Request::Run(job.clone()));
        assert!(all.len() >= 2, "pieces, then the rest: {}", all.len());
        let mut parts = Parts::default();
        let mut ran = None;
        for (i, a) in all.into_iter().enumerate() {
            match a {
                Answer::RunPart(p) if ran.is_none() => parts.add(p),
                Answer::Ran(r) => ran = Some((i, r)),
                other => panic!("answer {i}: {other:?}"),
            }
        }
        let (_, rest) = ran.expect("the run's answer");
        assert_eq!(parts.finish(*rest), run_job(&job));
        let batches = through(Request::Explore {
            scenario: scenario.clone(),
            seed: 5,
            batches: 2,
        });
        let expected: Vec<Answer> = (0..2)
            .map(|b| Answer::Batch {
                batch: b,
                report: explore_batch(&scenario, 5, u64::from(b)).unwrap(),
            })
            .collect();
        assert_eq!(batches, expected);
        let ttls = vec![300.0, 30_000.0];
        let rows = through(Request::Sweep {
            scenario: scenario.clone(),
            seed: 1,
            ttls: ttls.clone(),
        });
        assert_eq!(
            rows,
            vec![
                Answer::Row {
                    index: 0,
                    row: ttl_point(&scenario, 1, 300.0).unwrap()
                },
                Answer::Row {
                    index: 1,
                    row: ttl_point(&scenario, 1, 30_000.0).unwrap()
                },
            ]
        );
        // At most MAX_ROWS rows, however many TTLs are asked for.
        let capped = answers(Request::Sweep {
            scenario,
            seed: 1,
            ttls: vec![300.0; MAX_ROWS + 5],
        });
        assert_eq!(capped.len(), MAX_ROWS);
        assert!(capped.iter().all(|a| matches!(a, Answer::Row { .. })));
        assert_eq!(Request::Markdown(Vec::new()).name(), "markdown");
        // An error ends the request: nothing comes after it.
        let big = Request::Markdown(vec!["x".repeat(MAX_MARKDOWN_BYTES + 1)]);
        assert!(matches!(only(big), Answer::Error(e) if e.contains("Markdown")));
    }
}
