//! `cards` in the registry of rating systems ([`crate::systems::RatingSystem`]).

use super::{events, params, State, TABLES};
use crate::events::{Ident, When};
use crate::systems::params::GroupDef;
use crate::systems::players::Index;
use crate::systems::{Event, RatingSystem, Record};

impl RatingSystem for State {
    const NAME: &'static str = "cards";
    const TABLES: &'static [&'static str] = TABLES;
    const PARAM_GROUPS: &'static [GroupDef] = &[GroupDef::of::<params::Cards>()];
    const SAMPLES: &'static [(&'static str, &'static str)] =
        samples!["cards_league.jsonl", "cards_masters.jsonl"];
    const WORKER: usize = 1;
    system_items!(bincode);
    /// A player's points start again each tournament.
    const CHARTED: bool = false;

    fn idents(event: &events::Event, f: &mut dyn FnMut(&'static str, &Ident)) {
        match event {
            events::Event::TournamentCreated(e) => f("tournament", &e.tournament),
            events::Event::RoundScheduled(e) => {
                f("tournament", &e.tournament);
                f("round", &e.round);
                e.matches
                    .iter()
                    .for_each(|m| f("matches[].match", &m.match_));
            }
            events::Event::MatchResult(e) => {
                f("tournament", &e.tournament);
                f("round", &e.round);
                f("match", &e.match_);
            }
        }
    }

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

    /// A new tournament's or round's `starts` and `ends` lie in the years
    /// 0000 to 9999 (UTC), as every `at` does.
    fn check_input(&self, rec: &Record, _: &Index) -> Result<(), String> {
        let (starts, ends) = match &rec.event {
            Event::Cards(events::Event::TournamentCreated(e)) => (e.starts, e.ends),
            Event::Cards(events::Event::RoundScheduled(e)) => (e.starts, e.ends),
            _ => return Ok(()),
        };
        for (field, When(t)) in [("starts", starts), ("ends", ends)] {
            if !crate::time::in_input_years(t) {
                return Err(format!(
                    "field `{field}`: {} is outside the years 0000 to 9999 (UTC)",
                    crate::time::format(t)
                ));
            }
        }
        Ok(())
    }
}
