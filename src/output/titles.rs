//! Column titles: what people read above a column (text tables, `laurel demo`,
//! the site), where JSON and CSV keep the machine key (`best_finish` is
//! "Best finish" on screen, `best_finish` in every script's input).
//!
//! One place for every title: [`title`] looks the key up for its table first
//! ([`BY_TABLE`]: `score` is a "Rating" in the Valar table, "Win %" in the
//! Nazgul one), then for any table ([`BY_KEY`]); `old_KEY` is "Old" and the
//! title of `KEY` (a replay diff's `old_score` beside `score` in the Valar
//! table: "Old rating", "Rating"); otherwise the key is humanised, so a new
//! column reads well without an entry: `game_3` → "Game 3", `table_strength`
//! → "Table strength". Only keys that humanising gets wrong,
//! or that mean something more specific in one table, are listed.
//!
//! An empty cell (JSON null) reads as nothing, unless its emptiness says
//! something ([`blank`], by table and key as [`BY_TABLE`]: Diplomacy's
//! `games` table, the only one of that name, shows a surrendered position's
//! missing player as "(surrendered)"); the site links no player from it.

use std::borrow::Cow;

/// Titles of keys that humanising would get wrong, whatever the table.
const BY_KEY: &[(&str, &str)] = &[
    ("at", "Date"),
    ("delta", "Change"),
    ("doc", "Meaning"),
    ("param", "Parameter"),
    ("seed", "Seeding rank"),
    ("seq", "Record"),
    ("total_vp", "Total VP"),
];

/// Titles of a key in one table (the table's name, as in [`crate::systems::table::Table::name`]).
const BY_TABLE: &[(&str, &str, &str)] = &[
    ("ainur", "player", "Team"),
    ("ainur", "score", "Rating"),
    ("cards", "score", "Points"),
    ("council", "score", "Ballot points"),
    ("history", "system", "Table"),
    ("istari", "score", "Rating"),
    ("maia", "score", "Rating"),
    ("nations", "player", "Nation (scenario)"),
    ("nations", "score", "Par"),
    ("nazgul", "score", "Win %"),
    // Dates of the events that name the player: a Middle-earth game's end
    // names nations, so a player's last game may end after their "Last named".
    ("players", "first", "First named"),
    ("players", "last", "Last named"),
    ("tournaments", "player", "First place"),
    ("valar", "score", "Rating"),
];

/// What an empty cell (JSON null, an empty CSV field) of a column reads as
/// in text and on the site, where the emptiness itself says something: a
/// Diplomacy position surrendered and never replaced has no player.
const BLANKS: &[(&str, &str, &str)] = &[("games", "player", "(surrendered)")];

/// What an empty cell of column `key` of table `table` reads as in text and
/// on the site ([`BLANKS`]); nothing for most columns.
pub fn blank(table: &str, key: &str) -> &'static str {
    BLANKS
        .iter()
        .find(|(t, k, _)| *t == table && *k == key)
        .map_or("", |(_, _, b)| b)
}

/// The title of column `key` of table `table` (see the module docs).
pub fn title(table: &str, key: &str) -> Cow<'static, str> {
    let in_table = BY_TABLE
        .iter()
        .find(|(t, k, _)| *t == table && *k == key)
        .map(|(_, _, title)| *title);
    let any = || BY_KEY.iter().find(|(k, _)| *k == key).map(|(_, t)| *t);
    if let Some(t) = in_table.or_else(any) {
        return Cow::Borrowed(t);
    }
    match key.strip_prefix("old_") {
        Some(rest) if !rest.is_empty() => {
            let of = title(table, rest);
            let mut chars = of.chars();
            let first = chars.next().map(|c| c.to_lowercase().collect::<String>());
            Cow::Owned(format!(
                "Old {}{}",
                first.unwrap_or_default(),
                chars.as_str()
            ))
        }
        _ => Cow::Owned(humanise(key)),
    }
}

/// `best_finish` → "Best finish", `game_1` → "Game 1": underscores become
/// spaces and the first letter a capital; anything else is kept.
pub fn humanise(key: &str) -> String {
    let words = key.replace('_', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_surrendered_position_reads_as_one_and_other_blanks_as_nothing() {
        assert_eq!(blank("games", "player"), "(surrendered)");
        assert_eq!(blank("games", "eliminated"), "");
        assert_eq!(blank("cfr", "player"), "");
    }

    #[test]
    fn a_table_s_own_title_comes_first_then_the_key_s_then_the_humanised_key() {
        assert_eq!(title("valar", "score"), "Rating");
        assert_eq!(title("cards", "score"), "Points");
        assert_eq!(title("cfr", "score"), "Score");
        assert_eq!(title("players", "last"), "Last named");
        assert_eq!(title("nations", "total_vp"), "Total VP");
        assert_eq!(title("cfr", "best_finish"), "Best finish");
        assert_eq!(title("match_4", "game_1"), "Game 1");
        assert_eq!(title("history", "system"), "Table");
        assert_eq!(title("rules", "system"), "System");
        assert_eq!(title("rules", "in_force"), "In force");
        assert_eq!(title("valar", "old_score"), "Old rating");
        assert_eq!(title("cfr", "old_score"), "Old score");
        assert_eq!(title("valar", "old_rank"), "Old rank");
        assert_eq!(title("x", "old_"), "Old ");
    }

    #[test]
    fn humanising_keeps_what_is_not_an_underscore_or_the_first_letter() {
        assert_eq!(humanise(""), "");
        assert_eq!(humanise("x"), "X");
        assert_eq!(humanise("per_game"), "Per game");
        assert_eq!(humanise("élan_vital"), "Élan vital");
        assert_eq!(humanise("_a__b_"), " a  b ");
        assert_eq!(humanise("Already Titled"), "Already Titled");
    }

    /// Every listed key differs from its humanised form: an entry that
    /// humanising gives anyway is noise.
    #[test]
    fn no_entry_repeats_what_humanising_gives() {
        for (k, t) in BY_KEY {
            assert_ne!(humanise(k), *t, "{k}");
        }
        for (table, k, t) in BY_TABLE {
            assert_ne!(title("", k), *t, "{table}.{k}");
        }
    }
}
