//! The `laurel` binary: parse the command line, call the library, map errors to
//! exit codes (0 ok, 1 the chain does not verify or stored data is damaged, 2 bad
//! input / usage / I/O).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use laurel::app::{self, QueryArgs};
use laurel::output::{Format, Print};
use laurel::systems::Selector;

/// An event-sourced, tamper-evident ratings ledger for game communities.
#[derive(Parser)]
#[command(name = "laurel", version, about)]
struct Cli {
    /// The ledger directory.
    #[arg(
        long,
        global = true,
        env = "LAUREL_LEDGER",
        default_value = "laurel.db"
    )]
    ledger: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Clone, Default)]
struct Clocks {
    /// Fold only events that happened by then: YYYY-MM-DD (end of that day, UTC) or RFC 3339.
    #[arg(long)]
    as_of: Option<String>,
    /// Fold only records the ledger held then: a seq (up to the head's), or a date/time compared with recorded_at.
    #[arg(long)]
    known_at: Option<String>,
}

/// How a table answer is printed.
#[derive(Args, Clone, Default)]
struct Out {
    /// How to print: a text table, JSON or CSV (CSV prints one table: a command with several takes --table to name it).
    #[arg(long, value_enum, default_value_t)]
    format: Fmt,
    /// Only the first N rows of each table, or `all` (a text table says how many it left out). Text tables of `standings`, `players` and `replay` show 100 rows unless told.
    #[arg(long, value_name = "N|all", value_parser = parse_limit)]
    limit: Option<Limit>,
}

/// `gen --events` and `bench --events`: at most [`laurel::systems::gen::MAX_EVENTS`].
fn events_range() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(0..=laurel::systems::gen::MAX_EVENTS)
}

/// `--limit`: a number of rows, or every row.
#[derive(Clone, Copy)]
enum Limit {
    Rows(usize),
    All,
}

fn parse_limit(s: &str) -> Result<Limit, String> {
    if s == "all" {
        return Ok(Limit::All);
    }
    (s.parse::<std::num::NonZeroUsize>())
        .map(|n| Limit::Rows(n.get()))
        .map_err(|_| "a number of rows (1 or more), or `all`".into())
}

/// A record's seq as `void` and `correct` take it: 1 or more.
fn parse_seq(s: &str) -> Result<u64, String> {
    (s.parse::<std::num::NonZeroU64>())
        .map(std::num::NonZeroU64::get)
        .map_err(|_| "a record's seq: a whole number from 1 (as `laurel log` shows it)".into())
}

/// The rows a text listing (`standings`, `players`, `replay`) shows without `--limit`:
/// a 1M-event ledger ranks tens of thousands of players and has a row per
/// CFR event score, more than a terminal is for and more than can be
/// formatted in the time a reader waits. JSON and CSV, for scripts, hold
/// every row.
const TEXT_ROWS: usize = 100;

impl Out {
    /// How to print, with `--limit` as given.
    fn print(self, table: Option<String>) -> Print {
        let limit = match self.limit {
            Some(Limit::Rows(n)) => Some(n),
            Some(Limit::All) | None => None,
        };
        Print {
            format: self.format.into(),
            limit,
            table,
        }
    }

    /// [`Out::print`] for a listing: text shows [`TEXT_ROWS`] rows unless told.
    fn listing(mut self, table: Option<String>) -> Print {
        if matches!(self.format, Fmt::Table) {
            self.limit.get_or_insert(Limit::Rows(TEXT_ROWS));
        }
        self.print(table)
    }
}

#[derive(Clone, Copy, ValueEnum, Default)]
enum Fmt {
    #[default]
    Table,
    Json,
    Csv,
}

impl From<Fmt> for Format {
    fn from(f: Fmt) -> Format {
        match f {
            Fmt::Table => Format::Table,
            Fmt::Json => Format::Json,
            Fmt::Csv => Format::Csv,
        }
    }
}

#[derive(Clone, Copy, ValueEnum, Default)]
enum DocFmt {
    #[default]
    Table,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Create an empty ledger.
    Init,
    /// Append the events of FILE (JSON Lines or a JSON array; `-` for stdin), all or nothing.
    Append {
        /// The events: a JSON Lines file, a file holding one JSON array, or `-` for stdin.
        file: String,
    },
    /// Check FILE as `append` would, or DIR as `import` would (same validation, messages
    /// and exit codes), and say what it would append; nothing is written.
    Check {
        /// The events: a JSON Lines file, a file holding one JSON array, `-` for stdin, or a
        /// directory (its *.json and *.jsonl files, as `import` reads them).
        file: String,
    },
    /// The event types and their fields, ranges, rules and examples (JSON Schema with --format json).
    Events {
        /// An event type (e.g. cards.match_result) or a namespace (e.g. cards); none: every type.
        #[arg(value_name = "TYPE")]
        kind: Option<String>,
        /// How to print: text, or JSON Schema (2020-12) for editors.
        #[arg(long, value_enum, default_value_t)]
        format: DocFmt,
    },
    /// Append every *.json / *.jsonl directly under DIR, in name order, as one append.
    Import {
        /// The directory whose *.json and *.jsonl files are appended.
        dir: PathBuf,
    },
    /// Recompute every hash of the chain and fold the records again to check every checkpoint; exit 1 if either fails.
    Verify {
        /// A published head that must still be in the chain: SEQ:HASH, or
        /// SEQ HASH as `laurel head` prints it.
        #[arg(long)]
        expect: Option<String>,
    },
    /// Print the head: "SEQ HASH", once its record's content hashes to it (exit 1 if not)
    Head,
    /// Records, one human line each.
    Log {
        /// Only records from this seq on (e.g. the head a table was published at, plus one).
        #[arg(long, value_parser = parse_seq)]
        from: Option<u64>,
        /// Only records of this event type (e.g. cards.match_result) or namespace (cards,
        /// ledger); the voids of such records are `ledger.voided`.
        #[arg(long = "type", value_name = "TYPE")]
        kind: Option<String>,
    },
    /// Records, one canonical JSON line each (JCS plus "hash"), for outside verification.
    Export,
    /// A new ledger rebuilt from FILE, the lines of `laurel export`, record for record
    /// (the same seqs, times recorded and hashes: the same head), all or nothing.
    Restore {
        /// The lines `laurel export` printed.
        file: PathBuf,
        /// A published head the export must hold (SEQ:HASH, or SEQ HASH as `laurel head`
        /// prints it): an export cut short or of another ledger is refused, exit 1, before
        /// anything is built (with or without it, a line changed after export is refused,
        /// exit 1: its hash is no longer its contents'; a line that is not one `laurel
        /// export` writes is bad input, exit 2).
        #[arg(long)]
        expect: Option<String>,
    },
    /// A standings table: valar maia istari nations ainur council nazgul | cfr | cards | fibonacci carnage dss sos | sbr.
    Standings {
        /// The table (one of the names above).
        table: String,
        /// For `cards`, `sbr` and the diplomacy tables: a tournament.
        #[arg(long)]
        tournament: Option<String>,
        #[command(flatten)]
        clocks: Clocks,
        /// A rules file to fold with (what-if), as in `replay`.
        #[arg(long)]
        rules: Option<PathBuf>,
        /// Only this table of the answer (e.g. `matches`; an unknown name lists them).
        #[arg(long = "table", value_name = "NAME")]
        only: Option<String>,
        #[command(flatten)]
        out: Out,
    },
    /// Every player: the systems they appear in, when they were first named (registered or in an event), the last date an event names them, earlier names.
    Players {
        #[command(subcommand)]
        action: Option<PlayersAction>,
        #[command(flatten)]
        clocks: Clocks,
        #[command(flatten)]
        out: Out,
    },
    /// Every change to PLAYER's values, with its cause and formula.
    History {
        /// The player, exactly as the events name them (any of a renamed player's names),
        /// or another subject with changes (a grudge team).
        player: String,
        /// Only this table (e.g. valar).
        #[arg(long)]
        system: Option<String>,
        #[command(flatten)]
        clocks: Clocks,
        #[command(flatten)]
        out: Out,
    },
    /// Every rule parameter: its default and the value in force.
    Rules {
        /// Print the values in force as a rules file for `replay --rules` (edit one, replay); those a recorded rule change sets are left out and named on stderr.
        #[arg(long, conflicts_with_all = ["format", "limit"])]
        template: bool,
        #[command(flatten)]
        clocks: Clocks,
        #[command(flatten)]
        out: Out,
    },
    /// Recompute everything as if FILE's parameters had always been in force (nothing is appended).
    Replay {
        /// A rules file: one JSON object of parameters by system, e.g. `{"valar": {"base": 45}}`.
        #[arg(long)]
        rules: PathBuf,
        /// Per player: old and new value and rank, largest moves first; a table in which nothing moves is said unchanged.
        #[arg(long)]
        diff: bool,
        /// Only this table (default: every table).
        #[arg(long)]
        system: Option<String>,
        /// With --system cards|sbr: the tournament.
        #[arg(long)]
        tournament: Option<String>,
        /// With --system: only this table of the answer (e.g. `matches`).
        #[arg(long, value_name = "NAME")]
        table: Option<String>,
        #[command(flatten)]
        clocks: Clocks,
        #[command(flatten)]
        out: Out,
    },
    /// Void records (append a ledger.voided for each, all or nothing): projections ignore them from now on.
    Void {
        /// The seqs of the records to void (as `laurel log` shows them).
        #[arg(required = true, num_args = 1.., value_parser = parse_seq)]
        seqs: Vec<u64>,
        /// Why: kept in the ledger with each void, shown by `log` and `history`.
        #[arg(long)]
        reason: String,
        /// Check the voids as they would be appended (same messages and exit codes), writing nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Void record SEQ and append FILE's replacement event(s) in one all-or-nothing append.
    Correct {
        /// The seq of the record to replace (as `laurel log` shows it).
        #[arg(value_parser = parse_seq)]
        seq: u64,
        /// The replacement, of SEQ's type: JSON Lines or a JSON array (`-` for stdin); may reuse SEQ's ids.
        file: String,
        /// Why: kept in the ledger with the void, shown by `log` and `history`.
        #[arg(long)]
        reason: String,
        /// Check the correction as it would be appended (same messages and exit codes), writing nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Load the bundled events/ into a temporary ledger and print a short tour of them (or write them out: --write).
    Demo {
        /// Print every table (and every tournament) instead of the tour.
        #[arg(long)]
        all: bool,
        /// Write the bundled event files (the tour's `events/`) into DIR instead: DIR is made if missing; a file there with other contents is refused, nothing written.
        #[arg(long, value_name = "DIR", conflicts_with = "all")]
        write: Option<std::path::PathBuf>,
    },
    /// Print a realistic synthetic event stream (JSON Lines) for load tests and benchmarks.
    Gen {
        /// How many events (at most 10,000,000).
        #[arg(long, default_value_t = 10_000, value_parser = events_range())]
        events: u64,
        /// The seed: the same seed prints the same stream.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Only these systems (comma-separated: mepbm,cfr,cards,diplomacy,sbr).
        #[arg(long, value_delimiter = ',')]
        systems: Vec<String>,
    },
    /// Generate events, then measure every performance figure (import, verify, every standings
    /// table, history, replay --diff, one appended event, site, memory, disk) beside its target.
    Bench {
        /// How many events to generate (at most 10,000,000).
        #[arg(long, default_value_t = 1_000_000, value_parser = events_range())]
        events: u64,
        /// The seed of the generated stream.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Keep the temporary directory.
        #[arg(long)]
        keep: bool,
        /// Leave out `site` (minutes and gigabytes at a million events); its rows say skipped.
        #[arg(long)]
        skip_site: bool,
    },
    /// Write a static website (no server, no JavaScript) of the tables with results and their players into DIR.
    Site {
        /// Where to write the pages and export.jsonl: created if missing; an earlier site there
        /// is replaced whole; a directory holding anything else is refused.
        dir: PathBuf,
        /// The site's name, shown on every page (default "Ratings ledger").
        #[arg(long)]
        title: Option<String>,
        /// Only these systems or tables, comma-separated (e.g. mepbm or cards,sbr or valar,maia); default every one.
        #[arg(long, value_delimiter = ',')]
        systems: Vec<String>,
        #[command(flatten)]
        clocks: Clocks,
    },
    /// Print a shell completion script (e.g. `laurel completions bash > /etc/bash_completion.d/laurel`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `laurel man | man -l -`; `laurel man COMMAND` a command's.
    Man {
        /// A command (e.g. `append`, or `players add`): its own page, which the main page lists
        /// as laurel-COMMAND(1).
        command: Vec<String>,
    },
    /// Fold every projection and print the seq folded to (used by `bench` for "full replay").
    #[command(hide = true)]
    Fold {
        #[command(flatten)]
        clocks: Clocks,
        /// A rules file to fold with, as in `replay`.
        #[arg(long)]
        rules: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum PlayersAction {
    /// Register NAME (append a ledger.player_registered), so that appends accept it
    /// even if it looks like a typo of a known player's name (not one it looks exactly
    /// like). A name that is already a player's is refused (exit 2) and nothing is appended.
    Add {
        /// The new player's name, exactly as events will write it.
        name: String,
        /// The registration's date: YYYY-MM-DD or RFC 3339 (default: today, UTC).
        #[arg(long)]
        at: Option<String>,
    },
    /// Rename a player (append a ledger.player_renamed): from its date on, tables show TO and
    /// events must write TO. TO may be close to the player's own names (mending a misspelt
    /// name); one close to another player's is refused unless --distinct says it is meant.
    Rename {
        /// The player's name until now.
        from: String,
        /// The player's new name.
        to: String,
        /// The rename's date: YYYY-MM-DD or RFC 3339 (default: today, UTC).
        #[arg(long)]
        at: Option<String>,
        /// TO is meant as written though it looks like a typo of another player's name (not
        /// one it looks exactly like).
        #[arg(long)]
        distinct: bool,
        /// Why the player is renamed: kept with the rename; `laurel log` shows it.
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
    },
}

fn query(clocks: Clocks, rules: Option<PathBuf>) -> QueryArgs {
    QueryArgs {
        as_of: clocks.as_of,
        known_at: clocks.known_at,
        rules,
    }
}

fn run(cli: Cli) -> laurel::Result<()> {
    let path = cli.ledger.as_path();
    let mut out = std::io::stdout().lock();
    let text = match cli.command {
        Command::Init => app::init(path)?,
        Command::Append { file } => app::append(path, &file)?,
        Command::Check { file } => app::check(path, &file)?,
        Command::Events { kind, format } => {
            app::events(kind.as_deref(), matches!(format, DocFmt::Json))?
        }
        Command::Import { dir } => app::import(path, &dir)?,
        Command::Restore { file, expect } => app::restore(path, &file, expect.as_deref())?,
        Command::Verify { expect } => app::verify(path, expect.as_deref())?,
        Command::Head => app::head(path)?,
        Command::Players {
            action: Some(PlayersAction::Add { name, at }),
            ..
        } => app::players_add(path, &name, at.as_deref())?,
        Command::Players {
            action:
                Some(PlayersAction::Rename {
                    from,
                    to,
                    at,
                    distinct,
                    reason,
                }),
            ..
        } => app::players_rename(
            path,
            (&from, &to),
            at.as_deref(),
            (distinct, reason.as_deref()),
        )?,
        Command::Void {
            seqs,
            reason,
            dry_run,
        } => app::void(path, &seqs, &reason, dry_run)?,
        Command::Correct {
            seq,
            file,
            reason,
            dry_run,
        } => app::correct(path, seq, &file, &reason, dry_run)?,
        Command::Demo {
            write: Some(dir), ..
        } => app::write_samples(&dir)?,
        Command::Site {
            dir,
            title,
            systems,
            clocks,
        } => {
            let opts = app::SiteArgs { title, systems };
            app::site(path, &dir, &query(clocks, None), &opts)?
        }
        Command::Fold { clocks, rules } => app::fold_all(path, &query(clocks, rules))?,
        Command::Completions { shell } => completions(shell),
        Command::Man { command } => man_page(&command)?,
        streamed @ (Command::Log { .. }
        | Command::Export
        | Command::Standings { .. }
        | Command::History { .. }
        | Command::Rules { .. }
        | Command::Players { .. }
        | Command::Replay { .. }) => return stream(streamed, path, &mut out),
        Command::Demo { all, .. } => return app::demo(&mut out, all),
        Command::Gen {
            events,
            seed,
            systems,
        } => return app::gen(events, seed, &systems, &mut out),
        Command::Bench {
            events,
            seed,
            keep,
            skip_site,
        } => {
            let exe = std::env::current_exe()
                .map_err(|e| laurel::Error::Usage(format!("current executable: {e}")))?;
            let opts = laurel::bench::Options {
                events,
                seed,
                exe,
                keep,
                skip_site,
            };
            return app::bench(&opts, &mut out);
        }
    };
    out.write_all(text.as_bytes())
        .map_err(|e| laurel::Error::io("stdout", e))
}

/// The commands that write their answer to `out` as they make it.
fn stream(command: Command, path: &Path, out: &mut dyn Write) -> laurel::Result<()> {
    match command {
        Command::Log { from, kind } => app::log(path, (from, kind.as_deref()), out),
        Command::Export => app::export(path, out),
        Command::Standings {
            table,
            tournament,
            clocks,
            rules,
            only,
            out: o,
        } => {
            let sel = Selector::of(tournament);
            let q = query(clocks, rules);
            app::standings(path, &table, &sel, &q, &o.listing(only), out)
        }
        Command::History {
            player,
            system,
            clocks,
            out: o,
        } => {
            let q = query(clocks, None);
            app::history(path, &player, system.as_deref(), &q, &o.print(None), out)
        }
        Command::Rules {
            template: true,
            clocks,
            ..
        } => app::rules_template(path, &query(clocks, None), out),
        Command::Rules { clocks, out: o, .. } => {
            app::rules(path, &query(clocks, None), &o.print(None), out)
        }
        Command::Players { clocks, out: o, .. } => {
            app::players(path, &query(clocks, None), &o.listing(None), out)
        }
        Command::Replay {
            rules,
            diff,
            system,
            tournament,
            table,
            clocks,
            out: o,
        } => {
            let sel = Selector::of(tournament);
            let only = system.as_deref().map(|t| (t, &sel));
            let q = query(clocks, Some(rules));
            app::replay(path, &q, diff, only, &o.listing(table), out)
        }
        // Listed, not `_`: a new command must be placed in one match or the other.
        Command::Init
        | Command::Append { .. }
        | Command::Check { .. }
        | Command::Events { .. }
        | Command::Import { .. }
        | Command::Restore { .. }
        | Command::Verify { .. }
        | Command::Head
        | Command::Void { .. }
        | Command::Correct { .. }
        | Command::Site { .. }
        | Command::Fold { .. }
        | Command::Completions { .. }
        | Command::Man { .. }
        | Command::Demo { .. }
        | Command::Gen { .. }
        | Command::Bench { .. } => unreachable!("`run` answers it"),
    }
}

/// The shell completion script for `shell`.
fn completions(shell: clap_complete::Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "laurel", &mut script);
    String::from_utf8_lossy(&script).into_owned()
}

/// The man page, in roff: laurel's, or that of the (sub)command `path` names
/// (titled `laurel-init`, `laurel-players-add`, as the main page lists them).
fn man_page(path: &[String]) -> laurel::Result<String> {
    let mut cmd = Cli::command();
    cmd.build();
    let mut title = "laurel".to_string();
    for (i, name) in path.iter().enumerate() {
        let known: Vec<String> = (cmd.get_subcommands())
            .filter(|c| !c.is_hide_set())
            .map(|c| c.get_name().to_string())
            .collect();
        let Some(sub) = cmd.find_subcommand(name).filter(|c| !c.is_hide_set()) else {
            let command = ["laurel"]
                .into_iter()
                .chain(path[..i].iter().map(String::as_str));
            let command = command.collect::<Vec<_>>().join(" ");
            return Err(laurel::Error::Usage(match known.is_empty() {
                true => format!(
                    "`{command}` has no subcommands: `laurel man {}` prints its page",
                    path[..i].join(" ")
                ),
                false => format!(
                    "`{command}` has no command {name:?}: it has {}",
                    known.join(", ")
                ),
            }));
        };
        title = format!("{title}-{name}");
        cmd = sub.clone();
    }
    let mut page = Vec::new();
    let source = format!("laurel {}", env!("CARGO_PKG_VERSION"));
    clap_mangen::Man::new(cmd.display_name(title))
        .source(source)
        .render(&mut page)
        .map_err(|e| laurel::Error::io("man page", e))?;
    Ok(String::from_utf8_lossy(&page).into_owned() + MAN_EXIT_AND_SEE_ALSO)
}

/// What every man page ends with: the exit codes (the README's table) and
/// where the pages of the commands listed as `laurel-COMMAND(1)` come from.
const MAN_EXIT_AND_SEE_ALSO: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
success
.TP
\fB1\fR
the chain does not verify (or lacks the head \fBverify \-\-expect\fR names, or a checkpoint
differs from a fold of the records; for \fBrestore\fR, the export's chain or its
\fB\-\-expect\fR), or stored data read by the command is damaged
.TP
\fB2\fR
bad input (nothing was appended), bad usage, ledger in use (by another writer), I/O or
storage error
.SH "SEE ALSO"
\fBlaurel man\fR \fICOMMAND\fR prints the page of \fBlaurel\-\fR\fICOMMAND\fR(1), to read
with \fBman \-l \-\fR; \fBlaurel\fR \fICOMMAND\fR \fB\-\-help\fR says the same.
"#;

/// A sign of life on stderr for the commands that can run for seconds (appends,
/// replays, site builds): a spinner with the elapsed time, drawn only when stderr
/// is a terminal and the command is still running after a second; cleared when
/// it ends. It runs on indicatif's own thread, so the command's work is untouched
/// (the library reports no progress: a spinner needs none).
fn spinner(command: &Command) -> Option<indicatif::ProgressBar> {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    let what = match command {
        Command::Append { .. } => "appending",
        Command::Import { .. } => "importing",
        Command::Restore { .. } => "restoring",
        Command::Replay { .. } => "replaying",
        Command::Site { .. } => "building the site",
        _ => return None,
    };
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})");
    bar.set_style(style.unwrap_or_else(|_| ProgressStyle::default_spinner()));
    bar.set_message(what);
    let shown = bar.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(1));
        if !shown.is_finished() {
            shown.set_draw_target(ProgressDrawTarget::stderr());
            shown.enable_steady_tick(std::time::Duration::from_millis(120));
        }
    });
    Some(bar)
}

fn main() -> ExitCode {
    // An empty LAUREL_LEDGER (how a script unsets it) is no ledger given:
    // clap would take it for `--ledger` with its value missing.
    if std::env::var_os("LAUREL_LEDGER").is_some_and(|v| v.is_empty()) {
        std::env::remove_var("LAUREL_LEDGER");
    }
    let cli = Cli::parse();
    let bar = spinner(&cli.command);
    let result = run(cli);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // LAUREL_PEAK_RSS=1: report peak memory on stderr (used by tests and `bench`).
    if laurel::sysinfo::switch_on("LAUREL_PEAK_RSS") {
        eprintln!(
            "peak_rss_bytes {}",
            laurel::sysinfo::peak_rss_bytes().unwrap_or(0)
        );
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_closed_stdout() => ExitCode::SUCCESS,
        Err(e) => {
            let code = e.exit_code();
            let prefix = match e {
                laurel::error::Error::Tampered { .. } => "verification failed",
                _ => "error",
            };
            let msg = e.to_string();
            let msg = laurel::output::printable(&msg, &['\n', '\t']);
            eprintln!("laurel: {prefix}: {msg}");
            ExitCode::from(code as u8)
        }
    }
}

/// mimalloc rather than glibc's malloc, which lets an import's freed chunk buffers
/// fragment its heap (a large import's peak memory then grows past the bound laurel
/// keeps); mimalloc returns memory promptly. It is built with `no_thp` (Cargo.toml):
/// with transparent huge pages, memory it returned and touched again would be zeroed
/// 2 MiB at a time, a large share of a fold's CPU and more memory in verify and replay.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
