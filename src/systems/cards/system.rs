//! `cards` in the registry of rating systems ([`crate::systems::RatingSystem`]).

use super::{direct, events, params, State, TABLES};
use crate::events::direct::{Cur, Envelope};
use crate::events::PayloadInput;
use crate::output::Report;
use crate::params::GroupDef;
use crate::systems::{Cx, RatingSystem, Selector};

impl RatingSystem for State {
    const NAME: &'static str = "cards";
    const TABLES: &'static [&'static str] = TABLES;
    const PARAM_GROUPS: &'static [GroupDef] = &[GroupDef::of::<params::Cards>()];
    const TYPES: &'static [&'static str] = &[
        "cards.tournament_created",
        "cards.round_scheduled",
        "cards.match_result",
    ];
    const SAMPLES: &'static [(&'static str, &'static str)] = &[
        (
            "cards_league.jsonl",
            include_str!("../../../events/cards_league.jsonl"),
        ),
        (
            "cards_masters.jsonl",
            include_str!("../../../events/cards_masters.jsonl"),
        ),
    ];
    const WORKER: usize = 1;
    type Event = events::Event;

    fn parse(name: &str, input: impl PayloadInput) -> Result<Option<events::Event>, String> {
        events::parse(name, input)
    }

    fn decode_direct<'a>(
        name: &str,
        c: &mut Cur<'a>,
        env: &mut Envelope<'a>,
    ) -> Option<events::Event> {
        direct::decode(name, c, env)
    }

    fn standings(&self, table: &str, sel: &Selector, cx: &Cx) -> Result<Report, String> {
        State::standings(self, table, sel, cx)
    }

    fn tournaments(&self) -> Option<Vec<String>> {
        Some(State::tournaments(self))
    }

    fn checkpoint(&self) -> Result<crate::systems::compact::Encoded, String> {
        self.checkpoint_bytes().map_err(|e| e.to_string())
    }

    fn restore(bytes: &[u8]) -> Option<Self> {
        crate::systems::compact::from_section(bytes)
    }
}
