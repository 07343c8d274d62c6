//! `cfr` in the registry of rating systems ([`crate::systems::RatingSystem`]).

use super::{direct, events, params, State, TABLES};
use crate::events::direct::{Cur, Envelope};
use crate::events::PayloadInput;
use crate::output::Report;
use crate::params::GroupDef;
use crate::systems::{Cx, RatingSystem, Selector};

impl RatingSystem for State {
    const NAME: &'static str = "cfr";
    const TABLES: &'static [&'static str] = TABLES;
    const PARAM_GROUPS: &'static [GroupDef] = &[GroupDef::of::<params::Cfr>()];
    const TYPES: &'static [&'static str] = &["cfr.series_defined", "cfr.event_completed"];
    const SAMPLES: &'static [(&'static str, &'static str)] = &[
        (
            "cfr_pbem.jsonl",
            include_str!("../../../events/cfr_pbem.jsonl"),
        ),
        (
            "cfr_wbc.jsonl",
            include_str!("../../../events/cfr_wbc.jsonl"),
        ),
        (
            "cfr_wbc_pbem.jsonl",
            include_str!("../../../events/cfr_wbc_pbem.jsonl"),
        ),
    ];
    const WORKER: usize = 2;
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

    fn checkpoint(&self) -> Result<crate::systems::compact::Encoded, String> {
        self.checkpoint_bytes().map_err(|e| e.to_string())
    }

    fn restore(bytes: &[u8]) -> Option<Self> {
        crate::systems::compact::from_section(bytes)
    }
}
