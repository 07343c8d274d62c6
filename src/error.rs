//! The library's one error type: what broke and where (file, line, seq, event id).
//!
//! Exit codes are decided here, not in the binary, so that every front end agrees:
//! 1 means "the chain does not verify" (tampering or corruption found by `verify`,
//! or a head `verify --expect` names that the chain lacks) or stored data a command
//! read is damaged,
//! 2 means bad input, bad usage or an I/O / storage failure.

use std::path::PathBuf;

/// Where a bad event came from, for messages that let a person find it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// Input file name (`-` for stdin), if the event came from a file.
    pub file: Option<String>,
    /// 1-based line (JSON Lines) or the line an array element starts on.
    pub line: Option<u64>,
    /// The record's seq, if it has (or would have) one.
    pub seq: Option<u64>,
    /// The event's `id`, if given.
    pub id: Option<String>,
    /// The event's `type`, if it could be read.
    pub kind: Option<String>,
    /// The seq of another record of the same append the event clashes with
    /// (a second result for one match): the append names its file and line.
    pub clashes_with: Option<u64>,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        match (&self.file, self.line) {
            (Some(file), Some(line)) => parts.push(format!("{file}:{line}")),
            (Some(file), None) => parts.push(file.clone()),
            (None, Some(line)) => parts.push(format!("line {line}")),
            (None, None) => {}
        }
        if let Some(seq) = self.seq {
            parts.push(format!("seq {seq}"));
        }
        if let Some(kind) = &self.kind {
            parts.push(kind.clone());
        }
        if let Some(id) = &self.id {
            parts.push(format!("id {}", quoted_id(id)));
        }
        write!(f, "{}", parts.join(", "))
    }
}

/// An event's id as a message names it: JSON-quoted (as the input wrote
/// it), cut after [`ID_SHOWN`] characters (an id may be 4096 bytes).
fn quoted_id(id: &str) -> String {
    quoted_cut(id, ID_SHOWN)
}

/// Text from the input as a message shows it: JSON-quoted (no control
/// character below U+0020 can break the message's line; the binary prints
/// every message through `output::printable`, which escapes the rest that
/// could rewrite a terminal), cut after `max` characters with `…`.
pub(crate) fn quoted_cut(text: &str, max: usize) -> String {
    let mut chars = text.chars();
    let shown: String = chars.by_ref().take(max).collect();
    let quoted = serde_json::to_string(&shown).unwrap_or_default();
    match chars.next() {
        None => quoted,
        Some(_) => format!("{quoted}…"),
    }
}

/// The characters of an id a message shows.
const ID_SHOWN: usize = 80;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An event (or the input stream) broke a rule; nothing was written.
    #[error("{origin}: {msg}")]
    Invalid { origin: Box<Origin>, msg: String },
    /// An append takes away what stored record `record` needs (a void of
    /// what it depends on, or a record dated before it that changes what it
    /// folds on): it is no longer valid. Nothing was written.
    #[error("{origin}: {msg}")]
    Dependent {
        origin: Box<Origin>,
        msg: String,
        record: u64,
    },
    /// An event with this `id` is already in the ledger, not voided, with
    /// other content; `differs` names the first field that differs.
    #[error("{origin}: id {id:?} is already recorded at seq {seq} with different content{differs} (to replace that record: laurel correct {seq} FILE --reason TEXT)")]
    IdConflict {
        origin: Box<Origin>,
        id: String,
        seq: u64,
        differs: String,
    },
    /// Several events of the input were refused: each refusal, in input
    /// and line order, whether the check stopped before the end of the
    /// input (`more`), and which check refused them. Nothing was written.
    #[error("{}", several_text(.errors, *.more, *.stage))]
    Several {
        errors: Vec<Error>,
        more: bool,
        stage: Stage,
    },
    /// A second process holds the ledger.
    #[error("ledger is in use by another process ({0})")]
    Locked(PathBuf),
    /// No ledger where one was expected.
    #[error("no ledger at {0} (run `laurel init` first, or pass --ledger DIR)")]
    NoLedger(PathBuf),
    /// `init` on a path that already holds a ledger.
    #[error("a ledger already exists at {0}")]
    Exists(PathBuf),
    /// The stored chain does not verify (a record was changed, removed or
    /// damaged), or does not hold the head `verify --expect` names. `seq` is
    /// the first record found wrong; `msg` lists every problem found.
    #[error("{msg}")]
    Tampered { seq: u64, msg: String },
    /// Stored bytes that cannot be decoded at all (damaged files).
    #[error("ledger storage is damaged: {0}")]
    Corrupt(String),
    /// Bad command-line usage that clap cannot see (a bad date, an unknown system...).
    #[error("{0}")]
    Usage(String),
    #[error("I/O error on {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("storage error: {0}")]
    Storage(String),
    /// Something laurel's own code should never do (a fold asked for what
    /// it cannot give, a worker thread gone): a bug, not the user's input
    /// nor the disk.
    #[error("internal error (a bug of laurel: please report it with the command): {0}")]
    Internal(String),
}

impl Error {
    /// The seq an [`Error::Invalid`] or [`Error::Dependent`] names, if it
    /// names one (of [`Error::Several`], its first refusal's).
    pub fn origin_seq(&self) -> Option<u64> {
        self.origin().and_then(|o| o.seq)
    }

    /// Where an [`Error::Invalid`] or [`Error::Dependent`] happened (of
    /// [`Error::Several`], its first refusal).
    pub fn origin(&self) -> Option<&Origin> {
        match self {
            Error::Invalid { origin, .. } | Error::Dependent { origin, .. } => Some(origin),
            Error::Several { errors, .. } => errors.first()?.origin(),
            _ => None,
        }
    }

    /// [`Error::origin`], to say more precisely where (a file and line for
    /// a seq, no line for a command's own input).
    pub fn origin_mut(&mut self) -> Option<&mut Origin> {
        match self {
            Error::Invalid { origin, .. } | Error::Dependent { origin, .. } => Some(origin),
            _ => None,
        }
    }

    /// The process exit code for this error: 1 when the chain fails to verify, 2 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Tampered { .. } | Error::Corrupt(_) => 1,
            _ => 2,
        }
    }

    /// A reader of stdout went away (`laurel demo | head`): not a failure of
    /// the command, so the binary ends quietly with exit 0.
    pub fn is_closed_stdout(&self) -> bool {
        matches!(self, Error::Io { path, source }
            if path == "stdout" && source.kind() == std::io::ErrorKind::BrokenPipe)
    }

    pub fn io(path: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn invalid(origin: Origin, msg: impl Into<String>) -> Self {
        Error::Invalid {
            origin: Box::new(origin),
            msg: msg.into(),
        }
    }
}

/// Refusals one error names at most: an append's reading stops at the next.
pub(crate) const REFUSALS_SHOWN: usize = 20;

/// Which check refused the events of an [`Error::Several`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The reading of the input (each line must read as an event): the
    /// ledger's rules are checked once every event reads.
    Reading,
    /// The players check of the names an append brings, which runs once
    /// the ledger's other rules hold.
    Names,
    /// The ledger's rules (the check fold): each event is checked as if
    /// those refused before it in fold order were not there, so a refusal
    /// may follow from another (a game's end after its refused start).
    Rules,
}

impl Error {
    /// The refusal of the events `errors` refused in `stage`, in order: the
    /// one error itself, or [`Error::Several`] (`more`: the check stopped
    /// before the end of the input).
    pub(crate) fn several(mut errors: Vec<Error>, more: bool, stage: Stage) -> Self {
        match (errors.len(), more) {
            (1, false) => errors.remove(0),
            _ => Error::Several {
                errors,
                more,
                stage,
            },
        }
    }

    /// `self`, then `later` (found after it in the input), as one refusal
    /// of the reading: at most [`REFUSALS_SHOWN`].
    pub(crate) fn followed_by(self, later: Error) -> Self {
        let (mut errors, _) = self.into_list();
        let (rest, more) = later.into_list();
        errors.extend(rest);
        let more = more || errors.len() > REFUSALS_SHOWN;
        errors.truncate(REFUSALS_SHOWN);
        Error::several(errors, more, Stage::Reading)
    }

    /// `f` of each refusal `self` names (of itself, if it is one).
    pub(crate) fn each_refusal(self, f: impl Fn(Error) -> Error) -> Self {
        match self {
            Error::Several {
                errors,
                more,
                stage,
            } => Error::Several {
                errors: errors.into_iter().map(f).collect(),
                more,
                stage,
            },
            e => f(e),
        }
    }

    /// `self` with one [`Error::Dependent`] at most, the first: the stored
    /// records an append leaves invalid are one problem, which the first
    /// names (`void` finds the others, [`crate::app`]), not one a record.
    pub(crate) fn one_dependent(self) -> Self {
        let Error::Several {
            errors,
            more,
            stage,
        } = self
        else {
            return self;
        };
        let (n, mut seen) = (errors.len(), false);
        let kept: Vec<Error> = (errors.into_iter())
            .filter(|e| {
                !matches!(e, Error::Dependent { .. }) || !std::mem::replace(&mut seen, true)
            })
            .collect();
        // The check stopped at so many refusals because of the dependents.
        let more = more && kept.len() == n;
        Error::several(kept, more, stage)
    }

    /// The first refusal `self` names (itself, if it is one).
    pub(crate) fn first_refusal(self) -> Self {
        match self {
            Error::Several { errors, .. } => errors
                .into_iter()
                .next()
                .unwrap_or(Error::Internal("a list of refusals without one".into())),
            e => e,
        }
    }

    /// The refusals `self` names, and whether more followed them.
    fn into_list(self) -> (Vec<Error>, bool) {
        match self {
            Error::Several { errors, more, .. } => (errors, more),
            e => (vec![e], false),
        }
    }
}

/// [`Error::Several`] as a message: a line for each refusal.
fn several_text(errors: &[Error], more: bool, stage: Stage) -> String {
    let n = errors.len();
    let events = match (stage, n) {
        (Stage::Reading, 1) => "event",
        (Stage::Reading, _) => "events",
        (Stage::Names, 1) => "name",
        (Stage::Names, _) => "names",
        (Stage::Rules, 1) => "event",
        (Stage::Rules, _) => "events",
    };
    let head = match (more, stage) {
        (false, _) => format!("{n} {events} refused:"),
        (true, Stage::Reading) => format!(
            "{n} {events} refused, then the reading stopped before the end of the input (the \
             lines after are read once these are mended):"
        ),
        (true, Stage::Names) => format!(
            "{n} {events} refused, then the check of names stopped (the names after are \
             checked once these are mended):"
        ),
        (true, Stage::Rules) => format!(
            "{n} {events} refused, then the check stopped (the events after are checked \
             once these are mended):"
        ),
    };
    let lines = errors
        .iter()
        .map(|e| format!("\n  {e}"))
        .collect::<String>();
    let tail = match stage {
        Stage::Reading => {
            "\n(the ledger's rules, such as players' names, are checked once every event reads)"
        }
        Stage::Names => "",
        Stage::Rules => {
            "\n(each event is checked as if those refused before it in time were not there: a \
             refusal may follow from another)"
        }
    };
    format!("{head}{lines}{tail}")
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_names_the_id_json_quoted_and_cut_after_80_characters() {
        let at = |id: &str| Origin {
            file: Some("f.jsonl".into()),
            line: Some(3),
            kind: Some("mepbm.game_ended".into()),
            id: Some(id.into()),
            ..Origin::default()
        };
        assert_eq!(
            at("a b\u{7}").to_string(),
            r#"f.jsonl:3, mepbm.game_ended, id "a b\u0007""#
        );
        let long = at(&"x".repeat(60_000)).to_string();
        assert!(
            long.ends_with(&format!("id \"{}\"…", "x".repeat(80))),
            "{long}"
        );
    }
}
