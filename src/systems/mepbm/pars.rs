//! Istari pars ("Top nations"): what a position's par is kept for, and the
//! check of a scenario's nations against the rules' count.
//!
//! A position's par is its nation's within the scenario, or its category's
//! when the position carries a `category` (Fourth Age, where players name
//! their own nations, keeps "North Kingdom", "South Kingdom" and "normal
//! nation"). A category's par is the mean over every position of that
//! category in earlier games: a game with three normal nations adds three
//! results to it.
//!
//! The rules count "25 from 1650, 25 from 2950, 3 from Fourth Age and 5 from
//! Bofa" ([`SCENARIO_NATIONS`]): a `game_started` of one of those scenarios
//! (scenario names compared ignoring ASCII case) is refused when its nations
//! (categories, for a position that has one), with those the scenario already
//! has pars for (from games ended before it in fold order), would pass that
//! count, which is how a misspelt nation shows. Other scenarios are not
//! counted.

use std::collections::BTreeSet;

use crate::systems::mepbm::events::GameStarted;

use super::{ParKey, State};

/// The rules' nation count by scenario name (compared ignoring ASCII case).
pub(super) const SCENARIO_NATIONS: [(&str, usize); 4] =
    [("1650", 25), ("2950", 25), ("Fourth Age", 3), ("bofa", 5)];

/// The rules' nation count of `scenario`, if it is one they count.
fn nation_count(scenario: &str) -> Option<usize> {
    SCENARIO_NATIONS
        .iter()
        .find(|(s, _)| s.eq_ignore_ascii_case(scenario))
        .map(|&(_, n)| n)
}

impl State {
    /// The par the position of `nation` in game `game` counts for.
    pub(super) fn par_key(&self, game: u32, nation: u32) -> ParKey {
        match self.categories.get(&(game, nation)) {
            Some(&c) => ParKey::Category(c),
            None => ParKey::Nation(nation),
        }
    }

    /// How an audit names a par: `Woodmen`, or `category North Kingdom (Arnor)`.
    pub(super) fn par_name(&self, key: ParKey, nation: &str) -> String {
        match key {
            ParKey::Nation(_) => nation.to_string(),
            ParKey::Category(c) => format!("category {} ({nation})", self.places.name(c)),
        }
    }

    /// Categories are named; a scenario the rules count keeps to its count.
    pub(super) fn check_pars(&self, e: &GameStarted) -> Result<(), String> {
        let id = &e.game.0;
        if let Some(p) =
            (e.positions.iter()).find(|p| p.category.as_ref().is_some_and(|c| c.trim().is_empty()))
        {
            return Err(format!(
                "game {id}, nation {}: a category must not be empty",
                p.nation
            ));
        }
        let Some(max) = nation_count(&e.scenario) else {
            return Ok(());
        };
        let game: BTreeSet<(bool, &str)> = (e.positions.iter())
            .map(|p| match &p.category {
                Some(c) => (true, c.as_str()),
                None => (false, p.nation.as_str()),
            })
            .collect();
        let mut known: BTreeSet<(bool, &str)> = BTreeSet::new();
        if let Some(sc) = self.places.get(&e.scenario) {
            let all = (sc, ParKey::Nation(0))..=(sc, ParKey::Category(u32::MAX));
            for &(_, key) in self.pars.range(all).map(|(k, _)| k) {
                let name = self.places.name(key.id());
                known.insert((matches!(key, ParKey::Category(_)), name));
            }
        }
        let fresh: Vec<String> = game.difference(&known).map(|&k| par_label(k)).collect();
        let total = known.len() + fresh.len();
        if total <= max {
            return Ok(());
        }
        Err(format!(
            "game {id}: scenario {} has {max} nations (the rules count 25 from 1650, 25 from \
             2950, 3 from Fourth Age and 5 from Bofa); {} rated before and this game's new {} \
             make {total}",
            e.scenario,
            known.len(),
            fresh.join(", ")
        ))
    }
}

/// A par as a check names it: `Woodmen` or `category normal nation`.
fn par_label((category, name): (bool, &str)) -> String {
    if category {
        format!("category {name}")
    } else {
        name.to_string()
    }
}
