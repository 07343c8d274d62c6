//! `diplomacy` in the registry of rating systems ([`crate::systems::RatingSystem`]).

use super::{check, events, params, State, TABLES};
use crate::events::Ident;
use crate::systems::params::GroupDef;
use crate::systems::{Event, RatingSystem, Record};

impl RatingSystem for State {
    const NAME: &'static str = "diplomacy";
    const TABLES: &'static [&'static str] = TABLES;
    const PARAM_GROUPS: &'static [GroupDef] = &[
        GroupDef::of::<params::Fibonacci>(),
        GroupDef::of::<params::Carnage>(),
        GroupDef::of::<params::Tournament>(),
    ];
    const SAMPLES: &'static [(&'static str, &'static str)] = samples![
        "diplomacy_draws.jsonl",
        "diplomacy_small_boards.jsonl",
        "diplomacy_solo_surrender.jsonl"
    ];
    const WORKER: usize = 1;
    const SHOWN_PER_TOURNAMENT: bool = false;
    system_items!(bincode);

    /// A new game lists at most [`check::MAX_POWERS`] powers, each with its
    /// `player` field, their names each written once ([`check::power_names`]),
    /// and a tournament it is the first to name is not a known one written
    /// nearly alike ([`State::check_new_tournament`]).
    fn check_input(&self, rec: &Record, _: &crate::systems::players::Index) -> Result<(), String> {
        match &rec.event {
            Event::Diplomacy(events::Event::GameEnded(g)) => check::board_size(g)
                .and_then(|()| check::players_given(g))
                .and_then(|()| check::power_names(g))
                .and_then(|()| self.check_new_tournament(g)),
            _ => Ok(()),
        }
    }

    fn tournaments(&self) -> Option<Vec<String>> {
        Some(State::tournaments(self))
    }

    fn idents(event: &events::Event, f: &mut dyn FnMut(&'static str, &Ident)) {
        let events::Event::GameEnded(e) = event;
        f("game", &e.game);
        let optional = [
            ("tournament", &e.tournament),
            ("round", &e.round),
            ("board", &e.board),
        ];
        for (field, id) in optional {
            id.iter().for_each(|id| f(field, id));
        }
    }

    fn names(event: &mut events::Event, f: &mut dyn FnMut(&mut String)) {
        let events::Event::GameEnded(e) = event;
        e.powers
            .iter_mut()
            .filter_map(|p| p.player.as_mut().and_then(Option::as_mut))
            .for_each(f);
    }
}
