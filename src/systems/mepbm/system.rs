//! `mepbm` in the registry of rating systems ([`crate::systems::RatingSystem`]).

use super::{events, params, State, TABLES};
use crate::events::Ident;
use crate::systems::params::GroupDef;
use crate::systems::players::Index;
use crate::systems::{Event, RatingSystem, Record};

impl RatingSystem for State {
    const NAME: &'static str = "mepbm";
    const TABLES: &'static [&'static str] = TABLES;
    /// Grudge teams are rated beside players.
    const RATES_NON_PLAYERS: bool = true;
    /// A game's end changes the players its start seated; a monthly tick,
    /// everyone.
    const CHANGES_UNNAMED: bool = true;
    const PARAM_GROUPS: &'static [GroupDef] = &[
        GroupDef::of::<params::Valar>(),
        GroupDef::of::<params::Maia>(),
        GroupDef::of::<params::Istari>(),
        GroupDef::of::<params::Ainur>(),
        GroupDef::of::<params::SmallGame>(),
        GroupDef::of::<params::Monthly>(),
        GroupDef::of::<params::Council>(),
    ];
    const SAMPLES: &'static [(&'static str, &'static str)] = samples![
        "mepbm_ainur.jsonl",
        "mepbm_istari.jsonl",
        "mepbm_late_1.jsonl",
        "mepbm_late_2.jsonl",
        "mepbm_maia.jsonl",
        "mepbm_monthly.jsonl",
        "mepbm_nazgul.jsonl",
        "mepbm_valar.jsonl"
    ];
    const EXAMPLES: &'static [(&'static str, &'static str)] = events::EXAMPLES;
    const WORKER: usize = 0;
    system_items!();

    fn team_of(event: &events::Event) -> Option<&str> {
        match event {
            events::Event::GrudgeTeamRegistered(e) => Some(&e.team),
            _ => None,
        }
    }

    fn idents(event: &events::Event, f: &mut dyn FnMut(&'static str, &Ident)) {
        use events::Event as E;
        match event {
            E::GameStarted(e) => f("game", &e.game),
            E::NationTakenOver(e) => f("game", &e.game),
            E::AllegianceChanged(e) => f("game", &e.game),
            E::GameEnded(e) => f("game", &e.game),
            E::VoteCast(e) => f("game", &e.game),
            E::RatingSeeded(_)
            | E::GrudgeTeamRegistered(_)
            | E::GrudgeRosterChanged(_)
            | E::MonthlyTick(_) => {}
        }
    }

    fn names(event: &mut events::Event, f: &mut dyn FnMut(&mut String)) {
        use events::Event as E;
        match event {
            E::RatingSeeded(e) => f(&mut e.player),
            E::GameStarted(e) => e.positions.iter_mut().for_each(|p| f(&mut p.player)),
            E::NationTakenOver(e) => f(&mut e.player),
            E::VoteCast(e) => {
                f(&mut e.voter);
                e.best_team_player.iter_mut().for_each(f);
            }
            E::GrudgeTeamRegistered(e) => {
                f(&mut e.coordinator);
                e.members.iter_mut().for_each(f);
            }
            E::GrudgeRosterChanged(e) => e.added.iter_mut().chain(&mut e.removed).for_each(f),
            E::AllegianceChanged(_) | E::GameEnded(_) | E::MonthlyTick(_) => {}
        }
    }

    /// A new grudge team takes a name no player bears, now or before a
    /// rename (`players`: the Middle-earth players index, which also holds
    /// every registration and rename), and a player seated, taking over,
    /// joining a team, voting or voted for, or seeded in Valar, Maia or
    /// Istari bears no team's name: a team's Ainur rating would
    /// otherwise read as that player's (their history, their site page). A
    /// name its Ainur rating was seeded under before it was registered is the
    /// team's. Other systems' players are the players check's
    /// (`crate::players`). Stored records are read as they were accepted.
    fn check_input(&self, rec: &Record, players: &Index) -> Result<(), String> {
        let Event::Mepbm(event) = &rec.event else {
            return Ok(());
        };
        if let events::Event::MonthlyTick(e) = event {
            super::check::month_written(&e.month)?;
        }
        let team = |p: &&String| {
            !self.teams.is_empty()
                && (self.names.get(p)).is_some_and(|id| self.teams.contains_key(&id))
        };
        let seated = match event {
            events::Event::GameStarted(e) => e.positions.iter().map(|p| &p.player).find(team),
            events::Event::NationTakenOver(e) => Some(&e.player).filter(team),
            events::Event::GrudgeTeamRegistered(e) => {
                e.members.iter().chain([&e.coordinator]).find(team)
            }
            events::Event::GrudgeRosterChanged(e) => e.added.iter().find(team),
            events::Event::VoteCast(e) => {
                [&e.voter].into_iter().chain(&e.best_team_player).find(team)
            }
            // An Ainur seed rates a team: its name is the team's.
            events::Event::RatingSeeded(e) if e.system != events::Rated::Ainur => {
                Some(&e.player).filter(team)
            }
            _ => None,
        };
        if let Some(team) = seated {
            return Err(format!(
                "{team:?} is the name of a grudge team; a player needs a name of its own"
            ));
        }
        let events::Event::GrudgeTeamRegistered(e) = event else {
            return Ok(());
        };
        let seeded = (self.names.get(&e.team)).is_some_and(|id| self.ainur.contains(id));
        match players.bears(&e.team) && !seeded {
            true => Err(format!(
                "grudge team {}: a player bears that name; a team needs a name of its own",
                e.team
            )),
            false => Ok(()),
        }
    }

    /// Grudge teams: registered, or rated in Ainur (a team's rating may be
    /// seeded with `rating_seeded`, which names it as it names players).
    fn rates_non_player(&self, name: &str) -> bool {
        (self.names.get(name))
            .is_some_and(|id| self.teams.contains_key(&id) || self.ainur.contains(id))
    }

    fn checkpoint(&self) -> Result<Vec<u8>, String> {
        Ok(self.checkpoint_bytes())
    }

    fn restore(bytes: &[u8]) -> Option<Self> {
        State::from_checkpoint(bytes)
    }
}
