//! `cards` in the registry of rating systems ([`crate::systems::RatingSystem`]).

use super::{events, params, State, TABLES};
use crate::systems::params::GroupDef;
use crate::systems::RatingSystem;

impl RatingSystem for State {
    const NAME: &'static str = "cards";
    const TABLES: &'static [&'static str] = TABLES;
    const PARAM_GROUPS: &'static [GroupDef] = &[GroupDef::of::<params::Cards>()];
    const SAMPLES: &'static [(&'static str, &'static str)] =
        samples!["cards_league.jsonl", "cards_masters.jsonl"];
    const WORKER: usize = 1;
    system_items!(bincode);

    fn names(event: &mut events::Event, f: &mut dyn FnMut(&mut String)) {
        match event {
            events::Event::TournamentCreated(_) => {}
            events::Event::RoundScheduled(e) => e
                .matches
                .iter_mut()
                .flat_map(|m| &mut m.players)
                .for_each(f),
            events::Event::MatchResult(e) => e.scores.iter_mut().for_each(|s| f(&mut s.player)),
        }
    }

    fn tournaments(&self) -> Option<Vec<String>> {
        Some(State::tournaments(self))
    }
}
