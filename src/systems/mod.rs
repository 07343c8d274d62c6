//! Rating systems: one module per community, each a projection folded over the log.
//!
//! Every module follows the same shape (after skillratings): pure math functions
//! first, unit-tested against the worked examples of the community's published
//! rules; then a `State` that implements [`Projection`]:
//!
//! - [`Projection::check`] validates an event against the state folded so far and
//!   says which rule it breaks. It runs at append time, in fold order, so a ledger
//!   is valid at every step of its `(at, seq)` order.
//! - [`Projection::apply`] folds an event in. It cannot fail: whatever reaches it
//!   was checked when it was appended (a filtered fold such as `--as-of` only ever
//!   drops a suffix of time or of seqs, which keeps the checked invariants).
//!
//! Rule constants are parameters ([`crate::systems::params`]), never literals in the math, so
//! `ledger.rules_changed` and `replay --rules` reach them: each system declares its
//! groups in its `params.rs`, [`PARAM_GROUPS`] lists them all, and rule code reads
//! typed fields from [`Cx::params`] (`cx.params.get::<Sbr>().advance`).

/// The items every `system.rs` writes alike, inside its `impl RatingSystem`:
/// event types and payloads from its `events` (`TYPES`, `parse`), standings
/// from its `State::standings`; with `bincode`, also its checkpoint section as
/// its `checkpoint_bytes` writes it and bincode reads it back.
macro_rules! system_items {
    () => {
        type Event = events::Event;
        const TYPES: &'static [&'static str] = events::TYPES;

        fn parse(
            name: &str,
            input: impl crate::events::PayloadInput,
        ) -> Result<Option<events::Event>, String> {
            events::parse(name, input)
        }

        fn schema(
            name: &str,
            generator: &mut schemars::SchemaGenerator,
        ) -> Option<schemars::Schema> {
            events::schema(name, generator)
        }

        fn standings(
            &self,
            table: &str,
            sel: &crate::systems::Selector,
            cx: &crate::systems::Cx,
        ) -> Result<crate::systems::table::Report, String> {
            State::standings(self, table, sel, cx)
        }
    };
    (bincode) => {
        system_items!();

        fn checkpoint(&self) -> Result<Vec<u8>, String> {
            self.checkpoint_bytes().map_err(|e| e.to_string())
        }

        fn restore(bytes: &[u8]) -> Option<Self> {
            crate::systems::compact::from_section(bytes)
        }
    };
}

/// A system's sample streams (`RatingSystem::SAMPLES`): each file of the
/// repository's `events/` folder named, with its contents.
macro_rules! samples {
    ($($file:literal),* $(,)?) => {
        &[$(($file, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/events/", $file)))),*]
    };
}

pub mod cards;
pub mod cfr;
pub mod compact;
mod cx;
pub mod diplomacy;
pub mod gen;
pub mod mepbm;
pub mod params;
mod places;
pub mod players;
#[cfg(test)]
mod roundtrip;
pub mod rows;
pub mod sbr;
pub mod table;
pub mod twins;

pub use cx::{Cx, Other};
pub(crate) use places::ranks;
pub use places::shared_places;

use crate::events::{self, Ident, PayloadInput, Vocabulary};
use crate::systems::params::GroupDef;
use crate::systems::table::Report;
use crate::time::Micros;

/// An event as it is folded, of the registry's vocabulary.
pub type Record = events::Record<Event>;
/// A validated input event, of the registry's vocabulary.
pub type Screened = events::Screened<Event>;
/// The input line parser of the registry's vocabulary.
pub type LineParser = events::LineParser<Event>;
/// The event grammar storage is lent: the registry's vocabulary.
pub const GRAMMAR: events::EventGrammar<Event> = events::EventGrammar::new();

/// One change to a subject's value, with the formula that produced it (`laurel history`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Change {
    pub seq: u64,
    pub at: Micros,
    /// The table that changed, e.g. `valar`.
    pub system: String,
    /// Player, team, driver... whose value changed.
    pub subject: String,
    /// Value before (None: first appearance).
    pub old: Option<String>,
    pub new: String,
    /// The inputs of the formula, so anyone can redo the sum:
    /// `+71 = round(45 + (19665 - 15768)/150)`.
    pub formula: String,
}

/// A projection: validation plus fold, over the events of one namespace.
pub trait Projection {
    /// Does `rec` keep the ledger valid, given everything folded before it?
    fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String>;
    /// Fold `rec` in. Never fails; events of other namespaces are ignored.
    fn apply(&mut self, rec: &Record, cx: &mut Cx);
}

/// What `standings` may narrow a table to, and which of its rows are wanted.
#[derive(Debug, Clone, Default)]
pub struct Selector {
    pub tournament: Option<String>,
    /// Only this table of the report is printed: the others are built
    /// without rows ([`crate::systems::table::Table::keep`]).
    pub table: Option<String>,
    /// At most this many rows of each table are built; the others are counted.
    pub rows: Option<usize>,
}

impl Selector {
    /// The whole of `tournament`'s tables (or of the table, for `None`).
    pub fn of(tournament: Option<String>) -> Self {
        Selector {
            tournament,
            ..Selector::default()
        }
    }
}

/// The namespace (its index in [`NAMESPACES`]) whose values `e` may change:
/// a system's event's, or that of the parameter group a rule change sets;
/// `None` for any other `ledger.*` event (a void, a player registered or
/// renamed) or an unknown group.
pub fn concerned_ns(e: &Event) -> Option<usize> {
    match e {
        Event::Ledger(crate::events::ledger::Event::RulesChanged(rc)) => {
            let ns = namespace_of_group(&rc.system)?;
            NAMESPACES.iter().position(|n| *n == ns)
        }
        e => ns_index(e),
    }
}

/// What the crate knows of one rating system, implemented by its `State` (the
/// projection) in `src/systems/<ns>/system.rs`. The `registry!` line lists
/// every implementor; everything outside a system's folder reaches the system
/// through what the registry generates from these items.
pub(crate) trait RatingSystem: Projection + Default + Clone {
    /// The namespace: the prefix of its event types (`mepbm.game_ended`) and
    /// the name of its checkpoint section, `laurel gen --systems` and the fold's `only`.
    const NAME: &'static str;
    /// Its standings tables, in display order.
    const TABLES: &'static [&'static str];
    /// Its groups of rule parameters (declared in its `params.rs`), in `laurel rules` order.
    const PARAM_GROUPS: &'static [GroupDef];
    /// Its event types (its `events::TYPES`, in its `payload_table!` order).
    const TYPES: &'static [&'static str];
    /// Its sample streams under `events/` (`laurel demo`): `(file name, contents)`.
    const SAMPLES: &'static [(&'static str, &'static str)];
    /// Examples of its event types that no sample stream holds (`laurel events
    /// TYPE`): `(sample file the example follows, the event line)`.
    const EXAMPLES: &'static [(&'static str, &'static str)] = &[];
    /// The parallel fold's worker that folds it (systems sharing a worker
    /// share a thread; see `fold::parallel`).
    const WORKER: usize;
    /// Its event payloads (its `events.rs`).
    type Event;

    /// The payload of its event type `<NAME>.<name>`; `None` for a name it does not know.
    fn parse(name: &str, input: impl PayloadInput) -> Result<Option<Self::Event>, String>;
    /// The JSON Schema of its event type `<NAME>.<name>`'s payload (its
    /// `events.rs` struct, derived); `None` for a name it does not know.
    fn schema(name: &str, generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema>;
    /// Hand `f` every player name `event` mentions, mutably (the fold writes a
    /// renamed player's names as the one name the projection knows them by).
    /// Team, game, nation and power names are not players; an empty seat
    /// (`null`) names no one.
    fn names(event: &mut Self::Event, f: &mut dyn FnMut(&mut String));
    /// Hand `f` every identifier `event` holds (a game's, a tournament's,
    /// a match's...) with its field's name: a new one is written as an
    /// identifier must be ([`crate::events::ident_written`]).
    fn idents(event: &Self::Event, f: &mut dyn FnMut(&'static str, &Ident));
    /// The team (a rated subject that is not a player: a grudge team) that
    /// `event` registers, if any. A player and a team never bear one name
    /// (the players check of an append). By default none.
    fn team_of(_event: &Self::Event) -> Option<&str> {
        None
    }
    /// The standings table `table` (one of [`RatingSystem::TABLES`]).
    fn standings(&self, table: &str, sel: &Selector, cx: &Cx) -> Result<Report, String>;
    /// Whether its tables may rate subjects that are not players (grudge
    /// teams), which may bear a player's name: `history` of any name then
    /// folds this namespace too ([`NON_PLAYER_NAMESPACES`]). A system that
    /// sets it says which subjects in [`RatingSystem::rates_non_player`]. By
    /// default `false`: every subject of its tables is a player its events
    /// name.
    const RATES_NON_PLAYERS: bool = false;
    /// Whether a record of it may change subjects it does not name (a
    /// Middle-earth game's end changes the players its start seated, a
    /// monthly tick everyone; a CFR event pushes the drivers of an older one
    /// out of the window): `history` then cannot tell from a voided record's
    /// names whether it changed the player ([`UNNAMED_NAMESPACES`]).
    const CHANGES_UNNAMED: bool = false;
    /// Whether its changes are one value a chart can follow over time (a
    /// rating, a season's total). `false` where a value starts again (a
    /// Space Base Race match score, each match; a card player's points, each
    /// tournament): the site charts none of its
    /// changes ([`UNCHARTED_NAMESPACES`]), which its history lists. By
    /// default `true`.
    const CHARTED: bool = true;
    /// Whether it rates a subject named `name` that is not a player (a
    /// grudge team): such a subject may change before any event names a
    /// player of that name, so `history` of that name folds from the first
    /// record. Always `false` unless [`RatingSystem::RATES_NON_PLAYERS`].
    fn rates_non_player(&self, _name: &str) -> bool {
        false
    }
    /// Rules of input: bounds that bind only the records an append brings,
    /// checked after [`Projection::check`] for those, knowing the system's
    /// players index (its names, and every registration and rename). Stored
    /// records are read as they were accepted, so a bound tightened later
    /// holds for new input only. By default none.
    fn check_input(&self, _rec: &Record, _players: &players::Index) -> Result<(), String> {
        Ok(())
    }
    /// The audit trail of a rule change (`rec`; `before`: the rules it
    /// replaced, `cx` holds the new ones): the changes it makes at once to
    /// values a table computes when shown (a CFR ranking reads its window
    /// and factors then). By default none: a rule change reaches later
    /// events only, which the audit explains as they come.
    fn audit_rules(&mut self, _rec: &Record, _before: &params::Params, _cx: &mut Cx) {}
    /// Why parameter `param` of its group `group` changes no value of the
    /// state as it stands, if it changes none: every subject it would apply
    /// to sets its own (a CFR series' own points table). `replay` and `rules`
    /// say it of a parameter changed in vain. By default `None`.
    fn overridden(&self, _group: &str, _param: &str) -> Option<String> {
        None
    }
    /// The tournaments `--tournament` may name for its tables (`None`: its
    /// tables have no tournaments and take no `--tournament`).
    fn tournaments(&self) -> Option<Vec<String>> {
        None
    }
    /// Whether `demo` and `replay` show its tables once per tournament (cards,
    /// sbr: a table is a tournament's) rather than whole (diplomacy: the
    /// tables span tournaments, and `--tournament` narrows them).
    const SHOWN_PER_TOURNAMENT: bool = true;
    /// Its checkpoint section: the state's bytes.
    fn checkpoint(&self) -> Result<Vec<u8>, String>;
    /// Its state from the bytes of [`RatingSystem::checkpoint`]; `None` if
    /// they are damaged (a checkpoint is a cache: it then reads as absent).
    fn restore(bytes: &[u8]) -> Option<Self>;
}

/// The slices `parts`, one after another, as an array (`N` their total length).
const fn concat<T: Copy, const N: usize>(parts: &[&[T]], fill: T) -> [T; N] {
    let mut out = [fill; N];
    let (mut i, mut k) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            (j, k) = (j + 1, k + 1);
        }
        i += 1;
    }
    assert!(k == N, "concat: N is the total length");
    out
}

/// A bit per `true` entry of `flags`, by index.
const fn bits(flags: &[bool]) -> u32 {
    let (mut out, mut i) = (0, 0);
    while i < flags.len() {
        if flags[i] {
            out |= 1 << i;
        }
        i += 1;
    }
    out
}

/// The registry: from the list of systems (module and `Event` variant), the
/// crate-wide [`State`], [`Event`], the dispatch of check, apply, standings
/// and payload parsing, [`NAMESPACES`], [`TYPES`] and [`PARAM_GROUPS`]. The
/// `match`es are static, so a fold dispatches as a hand-written one does.
macro_rules! registry {
    ($($ns:ident: $variant:ident),* $(,)?) => {
        /// Every namespace with a projection, in a fixed order: `State::absorb` names a
        /// projection by its index here, checkpoints store
        /// their sections in it.
        pub const NAMESPACES: [&str; [$(stringify!($ns)),*].len()] =
            [$(<$ns::State as RatingSystem>::NAME),*];

        /// The namespaces whose tables may rate subjects that are not players
        /// ([`RatingSystem::RATES_NON_PLAYERS`]): a bit per [`NAMESPACES`] entry.
        pub const NON_PLAYER_NAMESPACES: u32 =
            bits(&[$(<$ns::State as RatingSystem>::RATES_NON_PLAYERS),*]);

        /// The namespaces whose records may change subjects they do not
        /// name ([`RatingSystem::CHANGES_UNNAMED`]): a bit per [`NAMESPACES`] entry.
        pub const UNNAMED_NAMESPACES: u32 =
            bits(&[$(<$ns::State as RatingSystem>::CHANGES_UNNAMED),*]);

        /// The namespaces whose changes the site does not chart
        /// ([`RatingSystem::CHARTED`]): a bit per [`NAMESPACES`] entry.
        pub const UNCHARTED_NAMESPACES: u32 =
            bits(&[$(!<$ns::State as RatingSystem>::CHARTED),*]);

        /// Every projection, folded together.
        #[derive(Debug, Clone, Default)]
        pub struct State {
            $(pub $ns: $ns::State,)*
            /// Each namespace's players index, by index in [`NAMESPACES`].
            pub players: players::PerNamespace,
        }

        /// A typed event, by namespace.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Event {
            $($variant($ns::events::Event),)*
            Ledger(crate::events::ledger::Event),
        }

        impl State {
            pub fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String> {
                match &rec.event {
                    $(Event::$variant(_) => self.$ns.check(rec, cx),)*
                    Event::Ledger(_) => Ok(()),
                }
            }

            /// Every identifier of `rec` written as a new one must be
            /// ([`RatingSystem::idents`]): the first that is not, refused.
            pub fn idents_written(rec: &Record) -> Result<(), String> {
                let mut written = Ok(());
                let mut each = |field: &'static str, id: &Ident| {
                    if written.is_ok() {
                        written = crate::events::ident_written(field, id);
                    }
                };
                match &rec.event {
                    $(Event::$variant(e) => <$ns::State as RatingSystem>::idents(e, &mut each),)*
                    Event::Ledger(_) => {}
                }
                written
            }

            /// [`RatingSystem::check_input`] of `rec`'s system, with its
            /// players index.
            pub fn check_input(&self, rec: &Record) -> Result<(), String> {
                // A `ledger.*` record has no system, and binds nothing here;
                // every system has its index (`PerNamespace` holds one each).
                let Some(players) = ns_index(&rec.event).and_then(|i| self.players.0.get(i)) else {
                    return Ok(());
                };
                match &rec.event {
                    $(Event::$variant(_) => <$ns::State as RatingSystem>::check_input(&self.$ns, rec, players),)*
                    Event::Ledger(_) => Ok(()),
                }
            }

            pub fn apply(&mut self, rec: &Record, cx: &mut Cx) {
                match &rec.event {
                    $(Event::$variant(_) => self.$ns.apply(rec, cx),)*
                    Event::Ledger(_) => {}
                }
            }

            /// Every system's [`RatingSystem::audit_rules`] of rule change `rec`.
            pub fn audit_rules(&mut self, rec: &Record, before: &params::Params, cx: &mut Cx) {
                $(<$ns::State as RatingSystem>::audit_rules(&mut self.$ns, rec, before, cx);)*
            }

            /// Move the projection of namespace `NAMESPACES[ns]` from `part` into `self`.
            pub fn absorb(&mut self, part: &mut State, ns: usize) {
                let mut i = 0;
                $(
                    if i == ns {
                        self.$ns = std::mem::take(&mut part.$ns);
                    }
                    i += 1;
                )*
                debug_assert!(ns < i, "no namespace {ns}");
                self.players.absorb(&mut part.players, ns);
            }

            /// Fold the player side of `rec` into the players index of its
            /// namespace (every index for a `ledger.*` event), writing later
            /// names of renamed players as their roots first
            /// ([`players::Index::admit`]).
            pub fn admit(&mut self, rec: &mut Record, check: bool) -> Result<(), String> {
                match ns_index(&rec.event) {
                    Some(ns) => self.players.0[ns].admit(rec, check),
                    None => self.players.0.iter_mut().try_for_each(|p| p.admit(rec, check)),
                }
            }

            /// The standings table `table` (a name from [`tables`]), renamed
            /// players shown by their names now.
            pub fn standings(&self, table: &str, sel: &Selector, cx: &Cx) -> Result<Report, String> {
                $(
                    if <$ns::State as RatingSystem>::TABLES.contains(&table) {
                        let report = RatingSystem::standings(&self.$ns, table, sel, cx)?;
                        return Ok(self.players.show_renamed(report));
                    }
                )*
                let known: Vec<&str> = tables().iter().map(|(t, _)| *t).collect();
                let hint = crate::events::did_you_mean(table, known.iter().copied());
                Err(format!(
                    "unknown standings table {table:?}{hint} (known: {})",
                    known.join(", ")
                ))
            }

            /// The checkpoint section of namespace `NAMESPACES[ns]`.
            pub fn checkpoint_of(&self, ns: usize) -> Result<Vec<u8>, String> {
                let mut i = 0;
                $(
                    if i == ns {
                        return RatingSystem::checkpoint(&self.$ns);
                    }
                    i += 1;
                )*
                Err(format!("no namespace {ns} of {i}"))
            }

            /// Restore namespace `NAMESPACES[ns]` from its checkpoint section;
            /// `None` if the bytes are damaged.
            pub fn restore_of(&mut self, ns: usize, bytes: &[u8]) -> Option<()> {
                let mut i = 0;
                $(
                    if i == ns {
                        self.$ns = <$ns::State as RatingSystem>::restore(bytes)?;
                        return Some(());
                    }
                    i += 1;
                )*
                debug_assert!(ns < i, "no namespace {ns}");
                None
            }

            /// Why parameter `param` of group `group` changes no value of the
            /// state ([`RatingSystem::overridden`]), if it changes none.
            pub fn overridden(&self, group: &str, param: &str) -> Option<String> {
                None $(.or_else(|| RatingSystem::overridden(&self.$ns, group, param)))*
            }

            /// Whether a system rates a subject named `name` that is not a
            /// player ([`RatingSystem::rates_non_player`]).
            pub fn rates_non_player(&self, name: &str) -> bool {
                false $(|| RatingSystem::rates_non_player(&self.$ns, name))*
            }

            /// The tournaments `--tournament` may name for table `table`
            /// (`None`: the table has none).
            pub fn tournaments(&self, table: &str) -> Option<Vec<String>> {
                $(
                    if <$ns::State as RatingSystem>::TABLES.contains(&table) {
                        return RatingSystem::tournaments(&self.$ns);
                    }
                )*
                None
            }

            /// The tournaments table `table` is shown per in `demo` and
            /// `replay` (`None`: shown whole).
            pub fn shown_per(&self, table: &str) -> Option<Vec<String>> {
                $(
                    if <$ns::State as RatingSystem>::TABLES.contains(&table) {
                        if !<$ns::State as RatingSystem>::SHOWN_PER_TOURNAMENT {
                            return None;
                        }
                        return RatingSystem::tournaments(&self.$ns);
                    }
                )*
                None
            }
        }

        /// Every standings table, with the namespace that produces it, in display order.
        pub fn tables() -> Vec<(&'static str, &'static str)> {
            let mut out = Vec::new();
            $(
                let ns = <$ns::State as RatingSystem>::NAME;
                out.extend(<$ns::State as RatingSystem>::TABLES.iter().map(|t| (*t, ns)));
            )*
            out
        }

        /// Every group of rule parameters, system by system: the vocabulary of
        /// `ledger.rules_changed` and rules files, in the order `laurel rules` lists them.
        pub const PARAM_GROUPS: &[GroupDef] = &concat::<GroupDef, { 0 $(+ <$ns::State as RatingSystem>::PARAM_GROUPS.len())* }>(
            &[$(<$ns::State as RatingSystem>::PARAM_GROUPS),*],
            GroupDef::of::<crate::systems::mepbm::params::Valar>(),
        );

        /// The namespace whose rules parameter group `group` belongs to (a
        /// system's rules read only its own groups); `None` for an unknown group.
        pub fn namespace_of_group(group: &str) -> Option<&'static str> {
            $(
                if <$ns::State as RatingSystem>::PARAM_GROUPS.iter().any(|g| g.name == group) {
                    return Some(<$ns::State as RatingSystem>::NAME);
                }
            )*
            None
        }

        /// Every event type laurel accepts: the systems' in registry order, then `ledger.*`.
        pub const TYPES: &[&str] = &concat::<&str, { crate::events::ledger::TYPES.len() $(+ <$ns::State as RatingSystem>::TYPES.len())* }>(
            &[$(<$ns::State as RatingSystem>::TYPES,)* crate::events::ledger::TYPES],
            "",
        );

        /// The vocabulary the event layer parses and decodes.
        impl Vocabulary for Event {
            const TYPES: &'static [&'static str] = TYPES;

            fn ledger(e: events::ledger::Event) -> Self {
                Event::Ledger(e)
            }

            fn as_ledger(&self) -> Option<&events::ledger::Event> {
                match self {
                    Event::Ledger(e) => Some(e),
                    _ => None,
                }
            }

            fn payload(ns: &str, name: &str, input: impl PayloadInput) -> Result<Option<Event>, String> {
                $(
                    if ns == <$ns::State as RatingSystem>::NAME {
                        return <$ns::State as RatingSystem>::parse(name, input).map(|e| e.map(Event::$variant));
                    }
                )*
                Ok(None)
            }

            fn schema(ns: &str, name: &str, generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
                $(
                    if ns == <$ns::State as RatingSystem>::NAME {
                        return <$ns::State as RatingSystem>::schema(name, generator);
                    }
                )*
                None
            }
        }

        /// The index in [`NAMESPACES`] of `event`'s namespace; `None` for `ledger.*`.
        pub fn ns_index(event: &Event) -> Option<usize> {
            let mut i = 0;
            $(
                if let Event::$variant(_) = event {
                    return Some(i);
                }
                i += 1;
            )*
            let _ = i;
            None
        }

        /// The team a system's event registers ([`RatingSystem::team_of`]).
        pub fn team_of(event: &Event) -> Option<&str> {
            $(
                if let Event::$variant(e) = event {
                    return <$ns::State as RatingSystem>::team_of(e);
                }
            )*
            None
        }

        /// Hand `f` every player name a system's event mentions (see
        /// [`RatingSystem::names`]); the event's namespace index in
        /// [`NAMESPACES`], `None` for a `ledger.*` event.
        pub fn names_of(event: &mut Event, f: &mut dyn FnMut(&mut String)) -> Option<usize> {
            let mut i = 0;
            $(
                if let Event::$variant(e) = event {
                    <$ns::State as RatingSystem>::names(e, f);
                    return Some(i);
                }
                i += 1;
            )*
            let _ = i;
            None
        }

        /// Every system's sample streams, `(file name, contents)`.
        pub fn samples() -> impl Iterator<Item = (&'static str, &'static str)> {
            [$(<$ns::State as RatingSystem>::SAMPLES),*].into_iter().flatten().copied()
        }

        /// Every system's examples of event types no sample stream holds,
        /// `(sample file the example follows, the event line)`.
        pub fn examples() -> impl Iterator<Item = (&'static str, &'static str)> {
            [$(<$ns::State as RatingSystem>::EXAMPLES),*].into_iter().flatten().copied()
        }

        /// The namespaces of each of the parallel fold's workers (by [`RatingSystem::WORKER`]).
        pub fn workers() -> Vec<Vec<&'static str>> {
            let mut out: Vec<Vec<&'static str>> = Vec::new();
            $(
                let w = <$ns::State as RatingSystem>::WORKER;
                if out.len() <= w {
                    out.resize(w + 1, Vec::new());
                }
                out[w].push(<$ns::State as RatingSystem>::NAME);
            )*
            out
        }
    };
}

registry! {
    mepbm: Mepbm,
    cfr: Cfr,
    cards: Cards,
    diplomacy: Diplomacy,
    sbr: Sbr,
}

/// Whether the site charts the changes of `table` ([`RatingSystem::CHARTED`]).
pub fn charted(table: &str) -> bool {
    let ns = namespace_of(table).and_then(|ns| NAMESPACES.iter().position(|n| *n == ns));
    ns.is_none_or(|i| UNCHARTED_NAMESPACES & (1 << i) == 0)
}

/// The namespace whose events a table is folded from.
pub fn namespace_of(table: &str) -> Option<&'static str> {
    tables()
        .into_iter()
        .find(|(t, _)| *t == table)
        .map(|(_, ns)| ns)
}
