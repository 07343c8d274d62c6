//! The `laurel` binary: parse the command line, call the library, map errors to
//! exit codes (0 ok, 1 the chain does not verify, 2 bad input / usage / I/O).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use laurel::app::{self, QueryArgs};
use laurel::output::Format;
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
    /// Fold only records the ledger held then: a seq, or a date/time compared with recorded_at.
    #[arg(long)]
    known_at: Option<String>,
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

#[derive(Subcommand)]
enum Command {
    /// Create an empty ledger.
    Init,
    /// Append the events of FILE (JSON Lines or a JSON array; `-` for stdin), all or nothing.
    Append {
        /// The events: a JSON Lines file, a file holding one JSON array, or `-` for stdin.
        file: String,
    },
    /// Append every *.json / *.jsonl directly under DIR, in name order, as one append.
    Import {
        /// The directory whose *.json and *.jsonl files are appended.
        dir: PathBuf,
    },
    /// Recompute every hash of the chain; exit 1 if it does not verify.
    Verify {
        /// A published head that must still be in the chain: SEQ:HASH, or
        /// SEQ HASH as `laurel head` prints it.
        #[arg(long)]
        expect: Option<String>,
    },
    /// Print the head: "SEQ HASH".
    Head,
    /// Records, one human line each.
    Log,
    /// Records, one canonical JSON line each (JCS plus "hash"), for outside verification.
    Export,
    /// A standings table: valar maia istari nations ainur council nazgul | cfr | cards | fibonacci carnage dss sos | sbr.
    Standings {
        /// The table (one of the names above).
        table: String,
        /// For `cards` and `sbr`: the tournament.
        #[arg(long)]
        tournament: Option<String>,
        #[command(flatten)]
        clocks: Clocks,
        /// A rules file to fold with (what-if), as in `replay`.
        #[arg(long)]
        rules: Option<PathBuf>,
        /// How to print: a text table, JSON or CSV.
        #[arg(long, value_enum, default_value_t)]
        format: Fmt,
    },
    /// Every player: the systems they appear in, first and last dates, earlier names.
    Players {
        #[command(subcommand)]
        action: Option<PlayersAction>,
        #[command(flatten)]
        clocks: Clocks,
        /// How to print: a text table, JSON or CSV.
        #[arg(long, value_enum, default_value_t)]
        format: Fmt,
    },
    /// Every change to PLAYER's values, with its cause and formula.
    History {
        /// The player, exactly as the events name them (any of a renamed player's names).
        player: String,
        /// Only this table (e.g. valar).
        #[arg(long)]
        system: Option<String>,
        #[command(flatten)]
        clocks: Clocks,
        /// How to print: a text table, JSON or CSV.
        #[arg(long, value_enum, default_value_t)]
        format: Fmt,
    },
    /// Every rule parameter: its default and the value in force.
    Rules {
        #[command(flatten)]
        clocks: Clocks,
        /// How to print: a text table, JSON or CSV.
        #[arg(long, value_enum, default_value_t)]
        format: Fmt,
    },
    /// Recompute everything as if FILE's parameters had always been in force (nothing is appended).
    Replay {
        /// A rules file: one JSON object of parameters by system, e.g. `{"valar": {"base": 45}}`.
        #[arg(long)]
        rules: PathBuf,
        /// Per player: old and new value and rank, largest moves first.
        #[arg(long)]
        diff: bool,
        /// Only this table (default: every table).
        #[arg(long)]
        system: Option<String>,
        /// With --system cards|sbr: the tournament.
        #[arg(long)]
        tournament: Option<String>,
        #[command(flatten)]
        clocks: Clocks,
        /// How to print: a text table, JSON or CSV.
        #[arg(long, value_enum, default_value_t)]
        format: Fmt,
    },
    /// Void record SEQ (append a ledger.voided): projections ignore it from now on.
    Void {
        /// The seq of the record to void (as `laurel log` shows it).
        seq: u64,
        /// Why: kept in the ledger with the void.
        #[arg(long)]
        reason: String,
    },
    /// Load the bundled events/ into a temporary ledger and print every table.
    Demo,
    /// Print a realistic synthetic event stream (JSON Lines) for load tests and benchmarks.
    Gen {
        /// How many events.
        #[arg(long, default_value_t = 10_000)]
        events: u64,
        /// The seed: the same seed prints the same stream.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Only these systems (comma-separated: mepbm,cfr,cards,diplomacy,sbr).
        #[arg(long, value_delimiter = ',')]
        systems: Vec<String>,
    },
    /// Generate events, then measure import, verify, replay, point-in-time queries,
    /// memory and disk against the same run's floor.
    Bench {
        /// How many events to generate.
        #[arg(long, default_value_t = 1_000_000)]
        events: u64,
        /// The seed of the generated stream.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Keep the temporary directory.
        #[arg(long)]
        keep: bool,
    },
    /// Write a static website (no server, no JavaScript) of every table and player into DIR.
    Site {
        /// Where to write the pages and export.jsonl (created if missing; same-named files are replaced).
        dir: PathBuf,
        #[command(flatten)]
        clocks: Clocks,
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
    /// Register NAME (append a ledger.player_registered): appends then accept it even
    /// if it looks like a typo of a known player's name.
    Add {
        /// The new player's name, exactly as events will write it.
        name: String,
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
        Command::Import { dir } => app::import(path, &dir)?,
        Command::Verify { expect } => app::verify(path, expect.as_deref())?,
        Command::Head => app::head(path)?,
        Command::Log => return app::log(path, &mut out),
        Command::Export => return app::export(path, &mut out),
        Command::Standings {
            table,
            tournament,
            clocks,
            rules,
            format,
        } => {
            let sel = Selector { tournament };
            let q = query(clocks, rules);
            return app::standings(path, &table, &sel, &q, format.into(), &mut out);
        }
        Command::History {
            player,
            system,
            clocks,
            format,
        } => app::history(
            path,
            &player,
            system.as_deref(),
            &query(clocks, None),
            format.into(),
        )?,
        Command::Players {
            action: Some(PlayersAction::Add { name }),
            ..
        } => app::players_add(path, &name)?,
        Command::Players {
            action: None,
            clocks,
            format,
        } => app::players(path, &query(clocks, None), format.into())?,
        Command::Rules { clocks, format } => app::rules(path, &query(clocks, None), format.into())?,
        Command::Replay {
            rules,
            diff,
            system,
            tournament,
            clocks,
            format,
        } => {
            let sel = Selector { tournament };
            let only = system.as_deref().map(|t| (t, &sel));
            let q = query(clocks, Some(rules));
            return app::replay(path, &q, diff, only, format.into(), &mut out);
        }
        Command::Void { seq, reason } => app::void(path, seq, &reason)?,
        Command::Demo => return app::demo(&mut out),
        Command::Gen {
            events,
            seed,
            systems,
        } => return app::gen(events, seed, &systems, &mut out),
        Command::Bench { events, seed, keep } => {
            let exe = std::env::current_exe()
                .map_err(|e| laurel::Error::Usage(format!("current executable: {e}")))?;
            return app::bench(events, seed, exe, keep, &mut out);
        }
        Command::Site { dir, clocks } => app::site(path, &dir, &query(clocks, None))?,
        Command::Fold { clocks, rules } => app::fold_all(path, &query(clocks, rules))?,
    };
    out.write_all(text.as_bytes())
        .map_err(|e| laurel::Error::io("stdout", e))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = run(cli);
    // LAUREL_PEAK_RSS=1: report peak memory on stderr (used by tests and `bench`).
    if std::env::var_os("LAUREL_PEAK_RSS").is_some() {
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
/// fragment its heap (a 1M-event import then peaks near 700 MiB RSS); mimalloc
/// returns memory promptly. It is built with `no_thp` (Cargo.toml): with transparent
/// huge pages, memory it returned and touched again would be zeroed 2 MiB at a time,
/// costing a fifth of a 1M-event fold's CPU and more memory in verify and replay.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
