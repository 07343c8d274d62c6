//! `sbr` in the registry of rating systems ([`crate::systems::RatingSystem`]).

use super::{events, params, State, TABLES};
use crate::events::Ident;
use crate::systems::params::GroupDef;
use crate::systems::RatingSystem;

impl RatingSystem for State {
    const NAME: &'static str = "sbr";
    const TABLES: &'static [&'static str] = TABLES;
    const PARAM_GROUPS: &'static [GroupDef] = &[GroupDef::of::<params::Sbr>()];
    const SAMPLES: &'static [(&'static str, &'static str)] = samples!["sbr_mars_2014.jsonl"];
    const WORKER: usize = 2;
    system_items!(bincode);
    /// A match score starts again each match.
    const CHARTED: bool = false;

    fn idents(event: &events::Event, f: &mut dyn FnMut(&'static str, &Ident)) {
        match event {
            events::Event::TournamentCreated(e) => f("tournament", &e.tournament),
            events::Event::GamePlayed(e) => {
                f("tournament", &e.tournament);
                f("match", &e.match_);
                e.group.iter().for_each(|g| f("group", g));
            }
        }
    }

    fn names(event: &mut events::Event, f: &mut dyn FnMut(&mut String)) {
        if let events::Event::GamePlayed(e) = event {
            e.seats
                .iter_mut()
                .filter_map(|s| s.player.as_mut())
                .for_each(f);
        }
    }

    fn tournaments(&self) -> Option<Vec<String>> {
        Some(State::tournaments(self))
    }
}
