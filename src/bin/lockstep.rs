//! The `lockstep` command-line tool. Subcommands live in the library; this file only parses
//! arguments and supplies what the library must not read itself (the wall clock, stdin).

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use std::io::IsTerminal;
    use std::process::ExitCode;
    use std::time::{SystemTime, UNIX_EPOCH};

    use clap::{Parser, Subcommand};
    use lockstep::store::repl::{self, ReplConfig};

    #[derive(Parser)]
    #[command(
        name = "lockstep",
        version,
        about = "Learn distributed locks and Redlock, interactively"
    )]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Subcommand)]
    enum Command {
        /// A Redis-compatible console on the store: command lines in, redis-cli replies out.
        Repl {
            /// Seed for math.random in scripts.
            #[arg(long, default_value_t = 0)]
            seed: u64,
        },
        /// List the built-in simulator scenarios.
        Scenarios,
        /// Run a scenario (built-in name or .toml file) and print its timeline and outcome.
        Run {
            scenario: String,
            /// Seed (decimal or 0x hex); a fresh one is drawn and printed when absent.
            #[arg(long, allow_hyphen_values = true)]
            seed: Option<String>,
            /// Print JSON: scenario, seed, outcome, trace.
            #[arg(long)]
            json: bool,
        },
        /// Run many trials with random faults; report the violation rate and the smallest
        /// counterexample.
        Explore {
            scenario: String,
            /// Number of trials.
            #[arg(long, allow_hyphen_values = true)]
            trials: String,
            /// Seed (decimal or 0x hex); a fresh one is drawn and printed when absent.
            #[arg(long, allow_hyphen_values = true)]
            seed: Option<String>,
        },
        /// Labs: run a learner's JavaScript against the simulator and grade it.
        Lab {
            #[command(subcommand)]
            command: LabCommand,
        },
        /// Validate a lesson pack (a folder, its pack.toml, or a single-file pack): every
        /// mistake as `file:line: field: message`, or a one-line summary.
        CheckPack { path: String },
        /// Write the lesson as packages a learning platform imports (SCORM 1.2, SCORM 2004
        /// 4th edition, cmi5) from a built app (`make build`'s dist/). docs/lms.md.
        Package {
            /// The built app's folder.
            dist: String,
            /// Where the zips go.
            #[arg(long, default_value = "packages")]
            out: String,
            /// scorm12, scorm2004, cmi5 or all.
            #[arg(long, default_value = "all")]
            format: String,
            /// The sections included (what progress and completion count), e.g. 1,3-5.
            #[arg(long)]
            sections: Option<String>,
            /// The lesson's language: en or nb.
            #[arg(long, default_value = "en")]
            lang: String,
            /// A lesson pack (folder or pack.toml) to package instead of the built-in lesson.
            #[arg(long)]
            pack: Option<String>,
            /// Passing needs at least this percent right in the final quick check.
            #[arg(long, allow_hyphen_values = true)]
            pass_quiz: Option<String>,
            /// Passing needs these labs passed (comma-separated lab ids).
            #[arg(long)]
            pass_labs: Option<String>,
            /// The title the platform shows (default: the lesson's or the pack's).
            #[arg(long)]
            title: Option<String>,
        },
    }

    #[derive(Subcommand)]
    enum LabCommand {
        /// List the labs.
        List,
        /// Run a learner's file (ES module or CommonJS defining the lab's functions) as the
        /// browser does. Exit 0: every check held; 1: a check broke; 2: the code failed.
        Run {
            lab: String,
            file: String,
            /// Seed (decimal or 0x hex); a fresh one is drawn and printed when absent.
            #[arg(long, allow_hyphen_values = true)]
            seed: Option<String>,
            /// 1 (default): the lab's run; more: "Try to break it" with that many trials.
            #[arg(long, allow_hyphen_values = true)]
            trials: Option<String>,
            /// Replay one trial by its seed (as a counterexample names it).
            #[arg(long, allow_hyphen_values = true)]
            trial: Option<String>,
            /// Print JSON: passed, checks, counterexample, code_error.
            #[arg(long)]
            json: bool,
            /// A lesson pack (folder or pack.toml) whose own labs (labs/<id>/) can be run.
            #[arg(long)]
            pack: Option<String>,
            /// Live: run on real redis-servers instead of the simulator, with real
            /// node-redis and real time: redis://host:port, comma-separated, one per node
            /// of the lab (5 for redlock). The servers' data is flushed.
            #[arg(long)]
            redis: Option<String>,
        },
        /// Grade a class's files: every file (or every .js/.mjs/.cjs in each folder) with
        /// the same seed, each in its own sandboxed Node host, on all cores. One line per
        /// file: the verdict, the broken checks, the trial that breaks it and its replay
        /// command. Exit 0: every file passed; 1: a file failed; 2: nothing was graded.
        Grade {
            lab: String,
            #[arg(required = true)]
            paths: Vec<String>,
            /// Trials per file (default: the lab's own, 200).
            #[arg(long, allow_hyphen_values = true)]
            trials: Option<String>,
            /// Seed (decimal or 0x hex); a fresh one is drawn and printed when absent.
            #[arg(long, allow_hyphen_values = true)]
            seed: Option<String>,
            /// table (default), csv, json or junit.
            #[arg(long, default_value = "table")]
            format: String,
            /// A lesson pack whose own labs can be graded.
            #[arg(long)]
            pack: Option<String>,
            /// Files graded at once (default: the machine's cores).
            #[arg(long)]
            jobs: Option<usize>,
        },
    }

    fn lab(command: LabCommand) -> ExitCode {
        use lockstep::sim::cli::parse_u64;
        match command {
            LabCommand::List => sim_output("lab list", lockstep::labs::list_text()),
            LabCommand::Run {
                lab,
                file,
                seed,
                trials,
                trial,
                json,
                pack,
                redis,
            } => {
                let parsed = (|| -> Result<(u64, u32, Option<u64>), String> {
                    let trials = match trials.as_deref() {
                        Some(t) => u32::try_from(parse_u64("--trials", t)?)
                            .map_err(|_| "--trials: too many".to_string())?,
                        None => 1,
                    };
                    // The Run has a fixed seed (the browser's); many trials draw one.
                    let seed = match seed.as_deref() {
                        Some(s) => parse_u64("--seed", s)?,
                        None if trials == 1 => lockstep::sim::lab::RUN_SEED,
                        None => fresh_seed(),
                    };
                    if trials == 0 || trials > lockstep::sim::lab::MAX_TRIALS {
                        return Err(format!(
                            "--trials: between 1 and {}",
                            lockstep::sim::lab::MAX_TRIALS
                        ));
                    }
                    let trial = trial.as_deref().map(|t| parse_u64("--trial", t)).transpose()?;
                    Ok((seed, trials, trial))
                })();
                let redis = match redis.as_deref().map(lockstep::labs::live::parse_urls).transpose() {
                    Ok(r) => r,
                    Err(e) => {
                        eprintln!("lockstep lab run: {e}");
                        return ExitCode::from(2);
                    }
                };
                let (seed, trials, trial) = match parsed {
                    Ok(p) => p,
                    Err(e) => {
                        eprintln!("lockstep lab run: {e}");
                        return ExitCode::from(2);
                    }
                };
                let lab = match lockstep::lesson::pack_cli::find_lab(pack.as_deref(), &lab) {
                    Ok(l) => l,
                    Err(e) => {
                        eprintln!("lockstep lab run: {e}");
                        return ExitCode::from(2);
                    }
                };
                let (text, code) = lockstep::labs::run_command(&lockstep::labs::RunRequest {
                    lab: &lab,
                    file: &file,
                    seed,
                    trials,
                    trial,
                    json,
                    pack: pack.as_deref(),
                    redis,
                });
                lab_output(&text, code, !json && text.starts_with("lockstep lab run:"))
            }
            LabCommand::Grade {
                lab,
                paths,
                trials,
                seed,
                format,
                pack,
                jobs,
            } => grade(&lab, &paths, trials, seed, &format, pack, jobs),
        }
    }

    fn package(dist: &str, out: &str, req: lockstep::lms::Request) -> ExitCode {
        let written = lockstep::lms::plan(&req)
            .and_then(|plan| lockstep::lms::write(&plan, dist.as_ref(), out.as_ref()));
        match written {
            Ok(zips) => {
                for z in zips {
                    println!("{}: {} files, {} bytes", z.path.display(), z.files, z.bytes);
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("lockstep package: {e}");
                ExitCode::from(2)
            }
        }
    }

    fn grade(
        lab: &str,
        paths: &[String],
        trials: Option<String>,
        seed: Option<String>,
        format: &str,
        pack: Option<String>,
        jobs: Option<usize>,
    ) -> ExitCode {
        use lockstep::labs::grade::{grade_command, Format, GradeRequest};
        use lockstep::sim::cli::parse_u64;
        let parsed = (|| -> Result<(u64, Option<u32>, Format), String> {
            let seed = match seed.as_deref() {
                Some(s) => parse_u64("--seed", s)?,
                None => fresh_seed(),
            };
            let trials = match trials.as_deref() {
                Some(t) => match u32::try_from(parse_u64("--trials", t)?) {
                    Ok(n) if (1..=lockstep::sim::lab::MAX_TRIALS).contains(&n) => Some(n),
                    _ => {
                        return Err(format!(
                            "--trials: between 1 and {}",
                            lockstep::sim::lab::MAX_TRIALS
                        ))
                    }
                },
                None => None,
            };
            let format = Format::from_name(format)
                .ok_or_else(|| format!("--format: `{format}` is not table, csv, json or junit"))?;
            Ok((seed, trials, format))
        })();
        let (seed, trials, format) = match parsed {
            Ok(p) => p,
            Err(e) => {
                eprintln!("lockstep lab grade: {e}");
                return ExitCode::from(2);
            }
        };
        let lab = match lockstep::lesson::pack_cli::find_lab(pack.as_deref(), lab) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("lockstep lab grade: {e}");
                return ExitCode::from(2);
            }
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let (text, code) = grade_command(&GradeRequest {
            lab: &lab,
            paths,
            seed,
            trials,
            format,
            pack: pack.as_deref(),
            jobs: jobs.unwrap_or(cores).max(1),
        });
        lab_output(&text, code, text.starts_with("lockstep lab grade:"))
    }

    /// A lab command's text and exit code: the command's own failure (exit 2, a line
    /// naming it) on stderr, a report on stdout (a closed pipe is not worth a panic).
    fn lab_output(text: &str, code: u8, own_failure: bool) -> ExitCode {
        use std::io::Write as _;
        if code == 2 && own_failure {
            eprint!("{text}");
        } else {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
        ExitCode::from(code)
    }

    /// A fresh seed for the simulator: entropy is read here, never in `lockstep::sim`.
    fn fresh_seed() -> u64 {
        let mut b = [0u8; 8];
        match getrandom::getrandom(&mut b) {
            Ok(()) => u64::from_le_bytes(b),
            Err(_) => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0),
        }
    }

    /// Print a simulator command's output; one error line and a failure code otherwise.
    fn sim_output(name: &str, result: Result<String, String>) -> ExitCode {
        use std::io::Write as _;
        match result {
            Ok(text) => {
                // A closed pipe (`| head`) is not an error worth a panic.
                let _ = std::io::stdout().lock().write_all(text.as_bytes());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("lockstep {name}: {e}");
                ExitCode::FAILURE
            }
        }
    }

    pub fn main() -> ExitCode {
        let cli = Cli::parse();
        match cli.command {
            Command::Scenarios => sim_output("scenarios", Ok(lockstep::sim::cli::scenarios_text())),
            Command::Run { scenario, seed, json } => sim_output(
                "run",
                lockstep::sim::cli::run_command(&scenario, seed.as_deref(), json, fresh_seed()),
            ),
            Command::Explore {
                scenario,
                trials,
                seed,
            } => sim_output(
                "explore",
                lockstep::sim::cli::explore_command(&scenario, &trials, seed.as_deref(), fresh_seed()),
            ),
            Command::Lab { command } => lab(command),
            Command::Package {
                dist,
                out,
                format,
                sections,
                lang,
                pack,
                pass_quiz,
                pass_labs,
                title,
            } => package(
                &dist,
                &out,
                lockstep::lms::Request {
                    format,
                    sections,
                    lang,
                    pack: pack.map(Into::into),
                    pass_quiz,
                    pass_labs,
                    title,
                },
            ),
            Command::CheckPack { path } => match lockstep::lesson::pack_cli::check_pack(&path) {
                Ok(summary) => sim_output("check-pack", Ok(summary)),
                Err(lines) => {
                    for line in lines {
                        eprintln!("{line}");
                    }
                    ExitCode::FAILURE
                }
            },
            Command::Repl { seed } => {
                let start_ms = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                    .unwrap_or(0);
                let stdin = std::io::stdin();
                let config = ReplConfig {
                    interactive: stdin.is_terminal(),
                    start_ms,
                    seed,
                };
                match repl::run(stdin.lock(), std::io::stdout().lock(), config) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("lockstep repl: {e}");
                        ExitCode::FAILURE
                    }
                }
            }
        }
    }
}
