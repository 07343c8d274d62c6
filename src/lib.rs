//! laurel: an event-sourced, tamper-evident ratings ledger for game communities.
//!
//! Results go in as domain events ([`events`]); every event is appended to a BLAKE3
//! hash-chained log ([`ledger`]) and never changed; ratings and standings are projections
//! ([`systems`]), pure folds over the log ([`fold`]). [`app`] holds the commands the
//! `laurel` binary calls. README.md is the user's guide; these notes are the design: the
//! map, the invariants, the on-disk format. Each module's docs hold its details and name
//! private items too: read them with `cargo doc --no-deps --document-private-items --open`
//! (CI builds them that way with warnings as errors, so every link resolves).
//!
//! # Bird's-eye view
//!
//! ```text
//!  JSON Lines / array ──► input (streaming, limits) ──► events (typed, validated,
//!                                                        canonical bytes)
//!                                                              │
//!  append: records chained and packed into chunks in a new segment file; their places
//!  into sled, their index entries and key fingerprints into `index` and `fps`; all
//!  beyond the head
//!                                                              │
//!  check fold: every record in (at, seq) order from the latest valid checkpoint, with
//!  every system's checks, writing checkpoints ──► sled's head, flush, fsync ──► rename
//!  `HEAD` (the commit point; readers read only what it names)
//!                                                              │
//!  query (--as-of, --known-at, --rules) ──► fold: from a checkpoint (--as-of, a
//!  known-at seq or none) or from nothing, one worker per group of namespaces ──►
//!  systems::State (one projection per community) ──► output (text / json / csv)
//! ```
//!
//! An append writes on two threads: the parser thread reads the input and turns each line
//! into canonical bytes, a content key and the first blocks of its record's hash; the
//! chaining thread finishes each hash, packs and stores.
//! The check fold then reads the new records back with the old ones, in fold order.
//!
//! # Code map
//!
//! - `src/main.rs`: the binary. Parses the command line (clap), calls [`app`], maps errors
//!   to exit codes; sets mimalloc as the allocator. The library never imports clap.
//! - [`app`]: one function per command, over plain arguments.
//! - [`input`]: the streaming reader of JSON Lines and JSON arrays, with the size limits.
//! - [`events`]: the envelope, the `ledger.*` events, the payload toolkit every system's
//!   `events.rs` uses (`payload.rs`), and [`events::LineParser`], which says what a
//!   valid event is: one pass of serde_json's parser writes a line's canonical bytes
//!   and notes its problems (`canon.rs`), and the payload is decoded from those bytes;
//!   generic in the vocabulary ([`events::Vocabulary`]), which the
//!   registry in [`systems`] implements ([`systems::Event`], [`systems::TYPES`]) and
//!   which events never names. Stored events are decoded by serde
//!   ([`events::decode_stored`]); `scan.rs` reads a stored event's layout (where its
//!   `type` lies, and its header for `verify`), `skip.rs` hides the envelope's
//!   fields from a payload's decoding. `text.rs` says what an event's text may hold, [`events::key`]
//!   what two spellings of one name share (players', a game's powers), and
//!   [`events::schema`] derives each type's JSON Schema for `laurel events`.
//! - [`ledger`]: the only code that touches sled. [`ledger::chunk`] is the byte layout of
//!   records, [`ledger::segment`] the files chunks are stored in, [`ledger::canonical`] a
//!   record's canonical form and hash (an event's is `events/canon.rs`'s), [`ledger::summary`] and [`ledger::idem`] what each
//!   chunk's index entry and fingerprints hold, `published.rs` the read view (`HEAD`,
//!   `index`, `fps`) every reader goes through, [`ledger::checkpoint`] the checkpoints (named sections of bytes it
//!   does not read); `verify.rs` is `verify` (a reading thread, two
//!   checking workers), `lanes.rs` BLAKE3 of many short inputs across the SIMD lanes;
//!   `open.rs` opens a ledger for writing (lock, sled) or reading (the view alone) and
//!   makes an append durable, `append.rs`, `pending.rs` and `parse.rs` are
//!   the append (a parser thread; a chaining one, which holds the records being
//!   added, `pending.rs`), `read.rs` reads records and exports;
//!   [`ledger::grammar`] is what storage asks of the event layer (lines read into
//!   canonical bytes and header fields, a stored event's header read back).
//! - [`fold`]: the engine: `(at, seq)` order, known-at, voids, as-of, rule changes,
//!   append-time checks; `checkpoint.rs` resumes from a checkpoint and says what its
//!   sections are (the rules, then each system's state), and its `verify.rs` folds the
//!   records again to check every stored checkpoint for `verify`; `view.rs` reads the ledger
//!   as a [`fold::Source`]; `lend.rs` gives [`ledger::Ledger::append`] and
//!   [`ledger::Ledger::verify`]: the ledger's append lent the event grammar of the
//!   registry's vocabulary ([`systems::GRAMMAR`]) and the check fold, its verify
//!   lent the grammar. `parallel.rs` folds with a worker
//!   thread per group of namespaces (a check fold goes on past each refusal:
//!   `refused.rs` merges the workers'); [`fold::stream`] reads the chunks once, in seq order,
//!   and hands records on in fold order as the chunk summaries allow.
//! - [`systems`]: one folder per rating system (below), the registry that lists them
//!   (the [`systems::RatingSystem`] trait and the `registry!` line that generates
//!   [`systems::State`], [`systems::Event`] and their dispatch), the fold's context
//!   ([`systems::Cx`], `cx.rs`: rules in force, audit trail), and what their compact
//!   states share ([`systems::compact`]: interners, kept bytes; `places.rs`: ranks and
//!   places shared by equal keys; [`systems::twins`]: tournament
//!   ids by case, derived, never stored), and the tables a system
//!   fills ([`systems::table`]: a [`systems::table::Table`] of packed rows,
//!   [`systems::rows`], holding only the rows asked for: [`systems::table::Table::keep`]
//!   lets a system format no row that `--limit` or `--table` leaves out, and count
//!   them). A system's folder holds
//!   everything about it, its event payload types (`events.rs`) at the bottom: events
//!   and the fold reach a system only through the registry. [`codec`]: the one LEB128
//!   varint codec.
//! - [`systems::params`]: rule parameters, declared by each system with its community's
//!   defaults, gathered by the registry ([`systems::PARAM_GROUPS`]); [`num`]: exact rationals and the one rounding helper (half away from zero); [`time`]:
//!   instants as microseconds UTC; [`error`]: the one error type, which decides exit codes.
//! - [`players`]: the ledger's players (the namespaces' players indexes,
//!   [`systems::players`], merged): the near-duplicate check of an append (an
//!   index of the new names' hashes, [`events::near`], that every known name is
//!   probed against, [`players::check_append`]), `laurel players`, the names
//!   `history` resolves.
//! - [`output`]: the systems' tables rendered as text, JSON or CSV, streamed from their
//!   packed rows; the columns' readable titles, for text and the site ([`output::title`]); how a
//!   command prints (`print.rs`: `--format`, `--limit`, `--table`, the state line, the
//!   one CSV table).
//! - [`site`]: the static site: its pages are pure functions from tables and changes
//!   to HTML and SVG (maud templates, which escape every value), and `site/write.rs`
//!   writes them into a directory built beside `DIR` and swapped in whole
//!   ([`beside`], which `laurel restore` builds its ledger with too);
//!   [`spill`]: its audit trail on disk, in buckets by subject.
//! - [`demo`]: the `events/` files compiled in and the stops of `laurel demo`'s tour;
//!   [`systems::gen`] (`laurel gen`: the driver and its toolkit; each system's planner is
//!   its folder's `gen.rs`) and [`bench`](mod@bench) (`laurel bench`); [`sysinfo`]: the environment's switches (on unless unset, empty or `0`) and peak RSS (`LAUREL_PEAK_RSS=1` prints it on exit).
//! - `events/`: sample streams. `tests/it/`: the integration tests (one binary; a module
//!   each) through the built binary, named
//!   after what they pin (`ledger.rs`, one per system and `mepbm_seed.rs`, `mepbm_output.rs`,
//!   `cfr_entry.rs`, `diplomacy_tournament.rs`, `diplomacy_variants.rs`, `sbr_groups.rs`,
//!   `timetravel.rs`, `players.rs`, `names.rs`,
//!   `cards_rules.rs`, `cli.rs`, `shell.rs`, `params.rs`, `replay.rs`, `corrections.rs`,
//!   `check.rs`, `refusals.rs`, `events.rs`, `log.rs`, `restore.rs`, `blanks.rs`,
//!   `ckpt.rs` and `again.rs` (checkpoints), `crash.rs`, `corrupt.rs`, `corpus.rs` with
//!   `tests/corpus/`, `props.rs`, `extremes.rs`, `fuzz.rs`, `readers.rs`,
//!   `storage.rs`, `trust.rs`, `streaming.rs`, `memory.rs`, `site.rs`,
//!   `site_browser.rs`, `perf.rs`, `demo.rs`, `readme.rs` running the README's tour;
//!   `common/`: their helpers, `common/sbr.rs` the Space Base Race's).
//!   `snapshots/`:
//!   insta snapshots of the tables of the sample streams.
//!
//! # Invariants
//!
//! - **Append-only.** Records are never rewritten. A correction is a `ledger.voided` event
//!   and the corrected event, in one append (`laurel correct`); a voided record gives up
//!   its idempotency key to a replacement with other content.
//! - **Hash chain.** Record n's hash is BLAKE3 of its canonical form,
//!   `{"event":…,"prev":hash(n-1),"recorded_at":…,"seq":n}` (RFC 8785), the `prev` of
//!   record 1 being 64 zeros; `verify` recomputes every hash, the links between chunks and
//!   the head. The export's lines are those forms with their hashes, so a ledger made
//!   of them (`laurel restore`: each run of one `recorded_at` appended again at that
//!   time) has the same chain and head.
//! - **All or nothing.** An append writes its chunks beyond the head, into a segment file
//!   named after its first seq; only the final write of the head publishes them. A failed
//!   append gives back what it wrote (segment and checkpoint files first, then sled's
//!   keys, so a full disk gets its space back); a killed one leaves chunks and a segment
//!   nobody reads, which the next append removes.
//! - **Durable on success.** The append's segment and checkpoint files are fsynced by
//!   their writers before the head is written, so a power loss cannot leave a head
//!   pointing into unwritten bytes; then sled is flushed and its files (`db`, `conf`,
//!   `snap.*`, `blobs/*`) and the directories naming laurel's files are fsynced. Nothing
//!   else in the ledger directory is opened or followed.
//! - **Damage is never folded.** Every stored chunk carries a CRC-32 that every read
//!   checks; a damaged chunk is an error naming its first seq (exit 1), in a query as in
//!   `verify`. `verify` also recomputes every record's hash, and folds the records again
//!   to check that every checkpoint a fold may start from holds their fold (no hash
//!   covers a checkpoint: one laurel did not write would change answers unseen).
//! - **Valid at every step.** An append is accepted only if the whole ledger, new events
//!   included, folds in `(at, seq)` order with every check passing: a late event that
//!   would break later ones is refused, and so is a void that others depend on. The first
//!   problem in input order is the one reported. The rules of input (how a new player name
//!   or a rules change's table is written, a system's `check_input`: a board's size) bind
//!   the append's own records: stored ones are read as they were accepted. So a release
//!   may tighten them, or narrow a parameter's range, and no ledger becomes unreadable: a
//!   stored rules change outside the range it is read against changes nothing.
//! - **The published view agrees with its chunks.** Every chunk up to the head has
//!   exactly one index entry (its place and summary) and one fingerprint per record,
//!   written in the same append before the head moves and cut off with it; `verify`
//!   recomputes both from the chunk. A fingerprint match is only a candidate: the stored
//!   record's full key decides.
//! - **Recorded once it happened.** An appended event's `at` is at most
//!   [`time::AHEAD_MAX`] (14 hours, for dates east of UTC) after its record's
//!   `recorded_at`: a mistyped year would count in every table at once. A
//!   rule of input, checked as records are chained (`ledger/pending.rs`).
//! - **Projections cannot fail.** [`systems::Projection::apply`] returns nothing: `check`
//!   ran at append time, and a fold cut by as-of or known-at only drops a suffix of what
//!   was checked. An append's `recorded_at` is never before the head's (`verify` checks
//!   it), so a known-at time is the last seq recorded by then
//!   ([`ledger::Ledger::seq_recorded_by`]): the fold knows only seqs.
//! - **An audit only watches.** A fold that keeps an audit trail, of everyone or of one
//!   subject (`history PLAYER`), leaves the same state as a plain fold, and one subject's
//!   trail is exactly the full trail's changes to it.
//! - **Deterministic folds.** Ordered maps and sets, interners with a fixed hash, exact
//!   rational arithmetic and one rounding helper; no floating point in any rule.
//! - **Checkpoints are a cache.** A checkpoint is used only if the chain still holds the
//!   head it was made at and nothing recorded between that head and the fold's last
//!   seq (the head, or a `--known-at` seq before or after it) sorts at or before its
//!   position or voids a record that does; otherwise, or if it is damaged, the fold
//!   starts from nothing. Both answer the same.
//! - **One writer, any number of readers, readers never wait.** A writer (`init`,
//!   `append`, `import`, `void`, `correct`, `players add`, `players rename`)
//!   holds an exclusive lock on `laurel.lock` in
//!   the ledger directory (sled's own lock is behind it); a second
//!   writer gets "ledger is in use by another process" at once (exit 2). Every other
//!   command is a reader: it takes no lock, never opens sled's files (`verify` and
//!   `check` open a copy, in a temporary directory, to see what the next append's
//!   open would refuse), opens every file read-only
//!   and writes nothing in the ledger, and reads the head once, so it runs beside a writer and other
//!   readers, on a read-only copy and on a full disk, and sees one committed head
//!   throughout.
//!
//! # Boundaries
//!
//! - Only [`ledger`] knows sled and the byte layout; folds read through [`fold::Source`].
//!   The ledger imports neither the event layer nor the systems, and calls no fold:
//!   an append is lent the event grammar and its check fold, `verify` the grammar
//!   ([`ledger::grammar`]); it knows an event's header fields, never its payload.
//! - Only [`events`] turns event JSON into typed events; systems see typed structs
//!   (`app` reads stored JSON only to print it: `log`, `laurel events`' examples).
//! - Only `src/main.rs` knows clap and exit codes ([`error`] decides them); the library
//!   reads its `LAUREL_*` settings from the environment where they apply.
//! - Systems know nothing of each other, the ledger or the clocks: they fold what the
//!   engine hands them, which is why each namespace can fold on a thread of its own.
//! - Systems fill tables ([`systems::table`]) and never print them: [`output`] and
//!   [`site`] render what they fill, and no system imports either.
//!
//! # On disk
//!
//! A ledger is a directory: sled's files (`db`, `conf`, `snap.*`, `blobs/`), the
//! published view (`HEAD`, `index`, `fps`), `laurel.lock`, `segments/<first seq>.lseg`
//! (one per append: its packed chunks, back to back) and `checkpoints/<position>.lcp`
//! (one per checkpoint: its header, then its sections named by the fold; written beside and
//! renamed into place). sled is the writer's store, two trees:
//!
//! - `meta`: `format`, the marker `laurel-ledger-6` (any other is refused), `head`,
//!   the last seq and its hash, and `published`, the last seq `HEAD` was seen to name.
//! - `chunks`: key the chunk's first seq (u64 big-endian), value a 24-byte pointer to the
//!   chunk in a segment file ([`ledger::segment`]). A chunk holds up to 1024 records, closed
//!   at the first record that takes it to 256 KiB or more, LZ4-packed with a CRC-32 that every read checks (a damaged chunk is an
//!   error naming its seq, never a table); its layout is in [`ledger::chunk`]. Records share chunks because
//!   sled costs tens of microseconds a key; each stores its hash, `at`, void target,
//!   idempotency key and content hash beside the event's canonical bytes, so the fold's
//!   order, its voids and the idempotency index need no JSON.
//!
//! The published view is what readers read, and what the writer reads its chunks
//! through ([`ledger::published`]):
//!
//! - `HEAD`: the format marker, the head (seq and hash), how many bytes of `index` it
//!   commits and a CRC-32 of the `fps` bytes it commits, with a checksum; replaced by
//!   rename, after everything it points to is fsynced: the commit point of an append.
//! - `index`: append-only, one checksummed entry per chunk: its first seq, its pointer
//!   and its summary (last seq, `at` range, voids), so a query reads only the chunks that
//!   can matter ([`ledger::summary`]).
//! - `fps`: append-only, an 8-byte fingerprint of each record's idempotency key at
//!   `8 · (seq − 1)`, from which an append builds its index without reading chunks
//!   ([`ledger::idem`]).
//!
//! An append moves sled's head, then publishes, then marks it `published`; a writer
//! that finds sled ahead of `HEAD` by one append never marked (killed in between: never
//! acknowledged) sets sled back, and cuts off bytes of `index` and `fps` beyond what
//! `HEAD` commits; further ahead, or past a mark, `HEAD` is an older copy and is
//! refused. sled holds one small key per chunk (the chunks
//! themselves live in segments), so its cache stays small. Before opening sled, the writer deletes any `snap.*.generating` file a kill
//! left: sled 0.34.7 would take it for its latest snapshot and refuse the database as
//! corrupt.
//!
//! **Checkpoints.** The check fold of every append stores the rules in force
//! (`ledger.rules`), every projection state (under its system's name) and each
//! namespace's players index (`players.<ns>`): a section each,
//! named with the sections' layout version (`cfr@<layout>`: a checkpoint of
//! another layout is read by no fold), every `N/20` records of fold order (in steps of 5,000,
//! at least 10,000 apart): an append that brings the count folded to no new
//! multiple writes none. Every fifth is whole, one zstd frame a section; the others are
//! deltas on the latest whole one: each section compressed with the parent's as zstd
//! prefix. An append of late records of one system (its events, rule changes of its
//! parameters, voids of those: a correction) folds that system alone from the
//! checkpoint before its cut and makes each later checkpoint again where it stands,
//! with that system's sections (and the rules in force, after a rule change) new and
//! the others kept (`fold/checkpoint/late.rs`); one of players registered or renamed
//! dated back makes only their players sections again (`fold/checkpoint/named.rs`).
//! A query with `--as-of`, a `--known-at` seq, both or neither starts from the latest
//! checkpoint at or before the as-of that serves its cut (`fold/checkpoint.rs`) and
//! decodes only the sections it needs: the rules, its own namespace's state and
//! players index. `history PLAYER` starts from the latest
//! one before the player's first record (a player's values change only from it on), or
//! from nothing when a grudge team shares the name; `--rules`
//! folds from nothing (`replay --rules` refolds only the namespaces the rules
//! file sets parameters of, and takes the others from the ledger as it stands).
//! `LAUREL_NO_CHECKPOINTS=1` forces the full fold,
//! `LAUREL_CHECKPOINT_EVERY=N` sets the spacing, `LAUREL_CHECKPOINT_TRACE=1` prints where a
//! fold started (and when an append's check fold is of one system or of players alone).
//!
//! # Adding a rating system
//!
//! Say its namespace is `ns` (and its state `Ns`):
//!
//! 1. **The folder** `src/systems/ns/`, which holds everything about the system:
//!    - `events.rs`, at the bottom: a struct per event type deriving `Debug, Clone,
//!      PartialEq, Deserialize, JsonSchema` with `#[serde(deny_unknown_fields)]` (its doc
//!      comments are what `laurel events TYPE` prints: first line, then the rules), and
//!      one `payload_table!` naming them, which makes `Event`, `TYPES`, `parse` and
//!      `schema`.
//!    - the rules as pure functions (`math.rs`; the card league's `points.rs`), then the validation (`check.rs`,
//!      naming the rule broken) and `State` in `mod.rs`: `Debug + Default + Clone`,
//!      implementing [`systems::Projection`] (`check`, and `apply`, which never fails),
//!      with its `standings` and tables; for a bincode checkpoint section, `Serialize +
//!      Deserialize` and an inherent `checkpoint_bytes() -> bincode::Result<Vec<u8>>`.
//!    - `params.rs`: every constant, as typed groups declared with
//!      `systems::params::rule_params!` and read through `Cx::params`. A group's name is
//!      unique across all systems: [`systems::namespace_of_group`] takes the first.
//!    - `system.rs`: `impl RatingSystem for State`, whose `system_items!(bincode)` (or
//!      `system_items!()` and a `checkpoint`/`restore` of its own) writes `Event`,
//!      `TYPES`, `parse`, `schema`, `standings` and the section; then `NAME`, `TABLES`,
//!      `PARAM_GROUPS`, `SAMPLES` (`samples!`), `EXAMPLES` (event types no sample shows,
//!      for `laurel events TYPE`), `WORKER` (the fold thread it shares; see
//!      `fold/parallel.rs`), `names` (every player name an event mentions, for the players
//!      index), `idents` (every identifier, which an append refuses padded) and, where
//!      they apply: `tournaments` and `SHOWN_PER_TOURNAMENT`;
//!      `RATES_NON_PLAYERS`, `rates_non_player` and `team_of` (subjects that are not
//!      players, and the event that registers one);
//!      `CHANGES_UNNAMED` (a record may change players it does not name: say so, or
//!      `history` misses what a voided record of it changed); `audit_rules` (what a rule
//!      change moves at once where tables compute values as shown: the CFR window);
//!      `check_input` (bounds that bind new input only: Diplomacy's 150 powers);
//!      `CHARTED` (`false` where a value starts again, so the site charts none).
//!    - `gen.rs`: its planner for `laurel gen`.
//!
//!    Its module docs define its events and state every decision its rules leave open.
//! 2. **Its samples.** Streams `events/ns_*.jsonl` with the worked examples, named in its
//!    `SAMPLES` (so `laurel demo` appends them).
//! 3. **Registration.** `pub mod ns;` beside the others in [`systems`] and one line
//!    `ns: Ns` in its `registry!`; the macro generates the field of [`systems::State`],
//!    the variant of [`systems::Event`], the dispatch of `check`, `apply`, `absorb`,
//!    `standings`, checkpoint sections and payload parsing, [`systems::NAMESPACES`],
//!    [`systems::TYPES`], [`systems::PARAM_GROUPS`], [`systems::NON_PLAYER_NAMESPACES`],
//!    [`systems::UNNAMED_NAMESPACES`] and [`systems::UNCHARTED_NAMESPACES`].
//! 4. **The places that name systems by hand** (lists a person reads, or a driver's
//!    mix): [`systems::gen`]'s `System` (a variant, `ALL` and the per-system counters,
//!    arrays sized by the number of systems, `parse`, its share in `shape`, taken
//!    relative to the others', and `plan`); a stop of `laurel demo`'s tour (`STOPS` in
//!    `src/demo.rs`: one sentence on what its first table means; a test asks for one per
//!    system); in `src/main.rs`, the tables named in `standings`' help (the command's line
//!    and `table`'s), the tournament systems in `replay`'s `--tournament`, the namespaces
//!    in `gen`'s `--systems`; its per-tournament tables in `bench/daily.rs`; its columns'
//!    readable titles (`output/titles.rs`, optional); the heading of the site's subjects
//!    that are not players (`site/pages.rs`, "Teams and nations") if it rates such
//!    subjects; the README's systems table.
//! 5. **Checkpoints.** The state is one more checkpoint section, under the system's
//!    name, and the generator's stream holds its events: the sections' bytes change, so
//!    raise `LAYOUT` in `fold/checkpoint.rs` and add its line to `LAYOUTS` in
//!    `fold/checkpoint/tests.rs` (its test names the digest). Checkpoints of the old
//!    layout are then read by no fold, as a cache: the first append after the upgrade
//!    folds from nothing and stores new ones.
//! 6. **Tests.** `tests/it/ns.rs` (a `mod ns;` line in `tests/it/main.rs`: the
//!    integration tests are one binary) with insta snapshots of its tables;
//!    `tests/corpus/systems/ns_<rule>.jsonl` breaking each rule once (with `.expect`,
//!    and `.setup.jsonl` where needed) and `ns` in `SYSTEMS` of `tests/it/corpus.rs`, with
//!    a test of its own there (`SYSTEMS` is an array sized by the number of systems);
//!    its namespace in the list of `gen_output_appends_cleanly_verifies_and_every_table_answers`
//!    (`tests/it/perf.rs`). The demo's and the README tour's snapshots change.

pub mod app;
pub mod bench;
pub mod beside;
pub mod codec;
pub mod demo;
pub mod error;
pub mod events;
pub mod fold;
pub mod input;
pub mod ledger;
pub mod num;
pub mod output;
pub mod players;
pub mod site;
pub mod spill;
pub mod sysinfo;
pub mod systems;
pub mod time;

pub use error::{Error, Result};
