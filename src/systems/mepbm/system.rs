//! `mepbm` in the registry of rating systems ([`crate::systems::RatingSystem`]).

use super::{direct, events, params, State, TABLES};
use crate::events::direct::{Cur, Envelope};
use crate::events::PayloadInput;
use crate::output::Report;
use crate::params::GroupDef;
use crate::systems::{Cx, RatingSystem, Selector};

impl RatingSystem for State {
    const NAME: &'static str = "mepbm";
    const TABLES: &'static [&'static str] = TABLES;
    const PARAM_GROUPS: &'static [GroupDef] = &[
        GroupDef::of::<params::Valar>(),
        GroupDef::of::<params::Maia>(),
        GroupDef::of::<params::Istari>(),
        GroupDef::of::<params::Ainur>(),
        GroupDef::of::<params::SmallGame>(),
        GroupDef::of::<params::Monthly>(),
        GroupDef::of::<params::Council>(),
    ];
    const TYPES: &'static [&'static str] = &[
        "mepbm.rating_seeded",
        "mepbm.game_started",
        "mepbm.nation_taken_over",
        "mepbm.allegiance_changed",
        "mepbm.game_ended",
        "mepbm.vote_cast",
        "mepbm.grudge_team_registered",
        "mepbm.grudge_roster_changed",
        "mepbm.monthly_tick",
    ];
    const SAMPLES: &'static [(&'static str, &'static str)] = &[
        (
            "mepbm_ainur.jsonl",
            include_str!("../../../events/mepbm_ainur.jsonl"),
        ),
        (
            "mepbm_istari.jsonl",
            include_str!("../../../events/mepbm_istari.jsonl"),
        ),
        (
            "mepbm_late_1.jsonl",
            include_str!("../../../events/mepbm_late_1.jsonl"),
        ),
        (
            "mepbm_late_2.jsonl",
            include_str!("../../../events/mepbm_late_2.jsonl"),
        ),
        (
            "mepbm_maia.jsonl",
            include_str!("../../../events/mepbm_maia.jsonl"),
        ),
        (
            "mepbm_monthly.jsonl",
            include_str!("../../../events/mepbm_monthly.jsonl"),
        ),
        (
            "mepbm_nazgul.jsonl",
            include_str!("../../../events/mepbm_nazgul.jsonl"),
        ),
        (
            "mepbm_valar.jsonl",
            include_str!("../../../events/mepbm_valar.jsonl"),
        ),
    ];
    const WORKER: usize = 0;
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
        Ok(self.checkpoint_bytes())
    }

    fn restore(bytes: &[u8]) -> Option<Self> {
        State::from_checkpoint(bytes)
    }
}
