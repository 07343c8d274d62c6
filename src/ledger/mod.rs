//! The ledger: an append-only, BLAKE3 hash-chained log of events: chunks of
//! records in segment files, their places and the head in sled (the
//! writer's store), and a published view of them ([`published`]) that
//! every read goes through.
//!
//! This module (and its children) is the only code that touches sled.
//!
//! Guarantees: those the crate's [invariants](crate#invariants) give (nothing
//! lost once reported, all or nothing, tamper-evident, one writer and readers
//! that never wait), and **bounded memory**: reading, verifying and folding
//! stream chunk by chunk; nothing holds the whole log (the index holds a few
//! dozen bytes a chunk).
//!
//! Byte layout: see [`chunk`], [`segment`] for where chunks are stored, and
//! [`published`] for `HEAD`, `index` and `fps`.
//! Canonical form and hashing: see [`canonical`].
//! Each chunk has a [`summary`] (in its index entry) and its records' key
//! fingerprints ([`idem`], in `fps`) written with it (same append; `verify`
//! checks both); the append's check fold reads and writes projection
//! [`checkpoint`]s, a cache that `drop_beyond` and the head binding keep out of
//! reach of failed appends.

mod append;
pub mod canonical;
pub mod checkpoint;
pub mod chunk;
pub mod grammar;
pub mod idem;
pub(crate) mod lanes;
mod open;
mod parse;
mod pending;
pub(crate) mod published;
mod read;
pub mod segment;
pub mod summary;
mod verify;

pub(crate) use append::Lent;

use std::cell::{Cell, RefCell};
use std::io::BufRead;
use std::path::PathBuf;

use crate::error::{Error, Result};

use open::{fsync_path, remove_files};

/// Stored chunks as (first seq, bytes), in key order.
type ChunkBatch = Vec<(u64, Stored)>;

/// The ledger's digest: the seq and hash of the last record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Head {
    pub seq: u64,
    pub hash: [u8; 32],
}

impl std::fmt::Display for Head {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.seq, canonical::hex(&self.hash))
    }
}

/// One input of an append: a name for messages, and the bytes.
pub struct Input<'a> {
    pub name: String,
    /// `Send`: the append reads it on its parser thread.
    pub reader: Box<dyn BufRead + Send + 'a>,
    /// The number messages give its first line: 1, but for a part of a
    /// file (each run of `laurel restore`), whose lines are the file's.
    pub first_line: u64,
}

/// How many exact copies of voided records an append names one by one.
pub const COPIES_SHOWN: usize = 5;

/// What an append did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendReport {
    pub appended: u64,
    /// Events whose idempotency key was already recorded with identical
    /// content, before this append.
    pub already_recorded: u64,
    /// How many of those are copies of voided records (nothing is added for
    /// them either: see the append's idempotency rule).
    pub already_voided: u64,
    /// The first [`COPIES_SHOWN`] of those: `(file, line, the voided record's seq)`.
    pub voided_copies: Vec<(String, u64, u64)>,
    /// Events that copy an earlier event of the same input (the same line
    /// given twice, as a paste may): added once; and the first such pair,
    /// `[(file, line) of the event copied, (file, line) of its copy]`.
    pub repeated: u64,
    pub first_repeat: Option<[(String, u64); 2]>,
    pub head: Head,
    /// How many events of each type were appended (new records only).
    pub kinds: std::collections::BTreeMap<String, u64>,
    /// The names its records are the first to mention, in order (the check
    /// fold finds them; storage only carries them).
    pub new_players: Vec<String>,
}

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    pub records: u64,
    pub head: Head,
    /// `(seq, what is wrong)`, in seq order; empty when the chain verifies.
    pub problems: Vec<(u64, String)>,
    /// The seq after the head, when a segment is named after it: an
    /// append running now, or killed before it published (the next append
    /// clears it), or a `HEAD` put back by one append (the next append
    /// refuses the directory), which a reader cannot tell apart.
    pub unfinished: Option<u64>,
    /// How many checkpoints were compared with the fold of the records (none
    /// when the chain does not verify): see the fold's `checkpoint::verify`.
    pub checkpoints: usize,
    /// How many checkpoints are unusable: a header or a section that does
    /// not read back or decode, its own or its parent's. No fold uses them,
    /// so no answer depends on them.
    pub damaged_checkpoints: usize,
}

/// An open ledger: the writer's (from [`Ledger::open`] or [`Ledger::init`],
/// holding `laurel.lock` and sled) or a reader's ([`Ledger::read`]: no lock,
/// no sled, nothing opened for writing). Both read records the same way:
/// through `index`, the published entries up to the head (and, for the
/// writer during an append, the entries of its pending chunks).
pub struct Ledger {
    /// sled's open handles: `None` for a reader.
    handles: RefCell<Option<Handles>>,
    /// What `HEAD` says (the head, the lengths and checksum it commits), read
    /// once when the ledger was opened (a reader's is pinned for its whole
    /// command); the writer's moves with each append it publishes.
    published: Cell<published::Published>,
    /// One entry per chunk up to the head, then the pending chunks of an
    /// append being written, in seq order ([`published`]).
    index: RefCell<Vec<published::Entry>>,
    /// Checkpoint headers by key, read from their files when first wanted.
    checkpoints: RefCell<Option<checkpoint::Headers>>,
    /// The checkpoints an append's check fold made, their files written
    /// under their unfinished names: put in place once every check of the
    /// append passed, else deleted ([`Ledger::settle_checkpoints`]), so a
    /// refused append replaces no checkpoint of the old head.
    unfinished: RefCell<Vec<checkpoint::Header>>,
    /// Reads chunks out of their segment files.
    segments: RefCell<segment::Reader>,
    /// The writer's: where an append's entries go.
    out: RefCell<Option<published::Out>>,
    /// The writer's exclusive lock on `laurel.lock`, held for the ledger's
    /// lifetime, so no other writer can take the database.
    _lock: Option<std::fs::File>,
    path: PathBuf,
}

/// The open database and its trees.
struct Handles {
    db: sled::Db,
    chunks: sled::Tree,
    meta: sled::Tree,
}

/// sled's errors: damaged or missing files are corruption (exit 1), the rest storage errors.
fn storage(e: sled::Error) -> Error {
    match e {
        sled::Error::Corruption { .. } => Error::Corrupt(e.to_string()),
        sled::Error::Io(ref io) if io.kind() == std::io::ErrorKind::NotFound => {
            Error::Corrupt(format!("a file of the database is missing ({e})"))
        }
        sled::Error::Io(io) => Error::Storage(format!("sled's database: {io}")),
        _ => Error::Storage(e.to_string()),
    }
}

/// A chunk's stored (packed) bytes, read from its segment ([`segment`]).
type Stored = Vec<u8>;

#[cfg(test)]
mod tests;
