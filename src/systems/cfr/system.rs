//! `cfr` in the registry of rating systems ([`crate::systems::RatingSystem`]).

use super::{events, params, State, TABLES};
use crate::events::Ident;
use crate::systems::params::{GroupDef, Params};
use crate::systems::players::Index;
use crate::systems::{Cx, Event, RatingSystem, Record};

impl RatingSystem for State {
    const NAME: &'static str = "cfr";
    /// An event pushes its series' oldest counted one out of the window,
    /// changing drivers it does not name.
    const CHANGES_UNNAMED: bool = true;
    const TABLES: &'static [&'static str] = TABLES;
    const PARAM_GROUPS: &'static [GroupDef] = &[GroupDef::of::<params::Cfr>()];
    const SAMPLES: &'static [(&'static str, &'static str)] =
        samples!["cfr_pbem.jsonl", "cfr_wbc.jsonl", "cfr_wbc_pbem.jsonl"];
    const WORKER: usize = 2;
    system_items!(bincode);

    /// A new series' `heat_decay` is spelt one way (`"0.5"`, not `"00.5"`).
    fn check_input(&self, rec: &Record, _: &Index) -> Result<(), String> {
        match &rec.event {
            Event::Cfr(events::Event::SeriesDefined(d)) => super::check::heat_decay_spelt_once(d),
            _ => Ok(()),
        }
    }

    /// A table of the format's parameters that every series of that format
    /// sets for itself: the parameter reaches only series defined later
    /// without one.
    fn overridden(&self, group: &str, param: &str) -> Option<String> {
        (group == Self::NAME)
            .then(|| State::overridden(self, param))
            .flatten()
    }

    fn audit_rules(&mut self, rec: &Record, before: &Params, cx: &mut Cx) {
        State::audit_rules(self, rec, before, cx);
    }

    fn idents(event: &events::Event, f: &mut dyn FnMut(&'static str, &Ident)) {
        match event {
            events::Event::SeriesDefined(d) => f("series", &d.series),
            events::Event::EventCompleted(e) => {
                f("series", &e.series);
                f("event", &e.event);
            }
        }
    }

    fn names(event: &mut events::Event, f: &mut dyn FnMut(&mut String)) {
        let events::Event::EventCompleted(e) = event else {
            return;
        };
        let heats = e.heats.iter_mut().flatten().flatten();
        let races = e.races.iter_mut().flatten().flat_map(|r| &mut r.results);
        let finals = e.final_.iter_mut().flatten();
        heats
            .chain(finals)
            .chain(races)
            .for_each(|p| f(&mut p.driver));
    }
}
