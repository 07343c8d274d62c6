//! `diplomacy.*`: finished Diplomacy games, scored by several systems.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::events::{names_from_strings, payload_table, Bounds, Ident};

names_from_strings!(Outcome);

payload_table! { "diplomacy", {
    "game_ended" => GameEnded,
} }

/// How a game ended: one power won alone, the survivors (or some of them) drew,
/// or the game was conceded to one power.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[serde(remote = "Self")]
#[schemars(rename = "Outcome")]
pub enum Outcome {
    /// `winner` took the board outright.
    Solo,
    /// The game was drawn: by the powers in `draw`, or every survivor.
    Draw,
    /// The other players conceded the game to `winner`: scored as a solo.
    Concession,
}

/// `powers[].eliminated`: a year from 1 to 9999. (`powers[].centers` runs
/// from 0 to the board's `centers_total`, all powers together.)
pub const ELIMINATED: Bounds = Bounds::new("eliminated", 1, 9_999);

/// `centers_total`: the supply centres of a board, from 1 to 1,000,000 (the
/// range of the `carnage.centers_total` parameter).
pub const CENTERS_TOTAL: Bounds = Bounds::new("centers_total", 1, 1_000_000);

/// One power at the game's end.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = player_required)]
pub struct PowerResult {
    /// The power's name (`"France"`), written as a player's is (no space at
    /// either end), unique within the game: two names that differ only in
    /// case, accents, spacing or look-alike letters are one power. In a game
    /// of seven powers without `centers_total`, six of them the standard
    /// board's, the seventh a few letters from the missing one ("Germnay")
    /// is refused as misspelt.
    pub power: String,
    /// The player who held the power at the end; `null`: a surrendered
    /// position that was never replaced. Required: a new power without it
    /// is refused rather than read as surrendered (a stored one is read as
    /// it was accepted: surrendered).
    // `None`: left out (read through `PowerResult::player`).
    #[serde(default, deserialize_with = "given")]
    #[schemars(with = "Option<String>")]
    pub player: Option<Option<String>>,
    /// Supply centres held at the end: 0 or more, all powers together at most
    /// the board's `centers_total`.
    #[schemars(range(min = 0))]
    pub centers: i64,
    /// The year the power lost its last centre (1 to 9999); required for a
    /// held power with no centres, refused for one with centres.
    #[serde(default)]
    #[schemars(range(min = ELIMINATED.min, max = ELIMINATED.max))]
    pub eliminated: Option<i64>,
}

impl PowerResult {
    /// Its player; `None` for a surrendered position.
    pub fn player(&self) -> Option<&str> {
        self.player.as_ref().and_then(|p| p.as_deref())
    }
}

/// The schema's `required` names `player` too: serde reads a stored power
/// without it, but new input gives it.
fn player_required(schema: &mut schemars::Schema) {
    if let Some(required) = schema.get_mut("required").and_then(|r| r.as_array_mut()) {
        required.push("player".into());
    }
}

/// A field given, `null` or not: `Some` (a field left out stays `None`).
fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// A finished Diplomacy game, scored by Fibonacci-Diplo, Carnage, Draw-Size Scoring and Sum-of-Squares.
///
/// A game is recorded once (a new game that ended at the same `at` as a recorded one with the same powers, players and centres is that game entered again, and refused), and a tournament's board once a round; someone survives. A solo or a concession names its `winner`, which survives and is held by a player (a solo's holds strictly more centres than any other power); a draw names none.
///
// The optional fields are boxed: most games give none of them, and a record
// stays small.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GameEnded {
    /// The game's id, unique in the ledger.
    pub game: Ident,
    /// `solo`, `draw` or `concession`.
    pub result: Outcome,
    /// The power that soloed, or that the game was conceded to, written as
    /// in `powers`; none for a draw.
    #[serde(default)]
    pub winner: Option<String>,
    /// The powers sharing the draw (a draw vote that left some survivors
    /// out); only with `result: "draw"`, at least two surviving powers.
    /// Default: every survivor.
    #[serde(default)]
    pub draw: Option<Box<[String]>>,
    /// The board's supply centres, 1 to 1,000,000 (a variant's board: 83 on a
    /// 17-player map; given, it also marks the game as a variant's, whose
    /// power names are not judged against the standard board's). Default:
    /// the `carnage.centers_total` parameter.
    #[serde(default)]
    #[schemars(range(min = CENTERS_TOTAL.min, max = CENTERS_TOTAL.max))]
    pub centers_total: Option<i64>,
    /// The tournament the game was played in; a tournament game names its
    /// `round`. A tournament named for the first time must not be one a game
    /// dated before names, written another way (case, accents, spaces or
    /// signs: "Autumn Cup" after `autumn-cup`).
    #[serde(default)]
    pub tournament: Option<Box<Ident>>,
    /// The game's round within its `tournament`.
    #[serde(default)]
    pub round: Option<Box<Ident>>,
    /// The game's board (table) within its round, played once a round;
    /// shown beside its scores.
    #[serde(default)]
    pub board: Option<Box<Ident>>,
    /// Every position on the board when the game ended.
    #[schemars(length(min = super::check::MIN_POWERS, max = super::check::MAX_POWERS))]
    pub powers: Vec<PowerResult>,
}
