//! Direct decoders of the `cfr.*` payloads a fold meets most: canonical
//! bytes to the typed payload in one pass, on the cursor of
//! [`crate::events::direct`] (its module docs say when they decline).

use super::events::{self as ev, Event};
use crate::events::direct::{put, Cur, Envelope};

/// The types decoded here (the others always go the serde way).
#[cfg(test)]
pub(crate) const TYPES: &[&str] = &["cfr.event_completed"];

/// The payload of `cfr.<name>`; `None` for a type not handled here.
pub(crate) fn decode<'a>(name: &str, c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<Event> {
    Some(match name {
        "event_completed" => Event::EventCompleted(cfr_event(c, env)?),
        _ => return None,
    })
}

fn cfr_event<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<ev::EventCompleted> {
    let (mut series, mut event, mut heats, mut final_) = (None, None, None, None);
    let mut races = None;
    c.event(env, |c, key| match key {
        "series" => put(&mut series, c.ident()?),
        "event" => put(&mut event, c.ident()?),
        "heats" => put(&mut heats, c.opt(|c| c.array(placings))?),
        "final" => put(&mut final_, c.opt(placings)?),
        "races" => put(&mut races, c.opt(|c| c.array(race))?),
        _ => None,
    })?;
    Some(ev::EventCompleted {
        series: series?,
        event: event?,
        heats: heats.flatten(),
        final_: final_.flatten(),
        races: races.flatten(),
    })
}

fn placings(c: &mut Cur<'_>) -> Option<Vec<ev::Placing>> {
    c.array(|c| {
        let (mut driver, mut place) = (None, None);
        c.object(|c, key| match key {
            "driver" => put(&mut driver, c.string()?),
            "place" => put(&mut place, c.place()?),
            _ => None,
        })?;
        Some(ev::Placing {
            driver: driver?,
            place: place?,
        })
    })
}

fn race(c: &mut Cur<'_>) -> Option<ev::Race> {
    let (mut tier, mut results) = (None, None);
    c.object(|c, key| match key {
        "tier" => put(&mut tier, c.i64()?),
        "results" => put(&mut results, placings(c)?),
        _ => None,
    })?;
    Some(ev::Race {
        tier: tier?,
        results: results?,
    })
}
