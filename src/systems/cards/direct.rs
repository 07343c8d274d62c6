//! Direct decoders of the `cards.*` payloads a fold meets most: canonical
//! bytes to the typed payload in one pass, on the cursor of
//! [`crate::events::direct`] (its module docs say when they decline).

use super::events::{self as ev, Event};
use crate::events::direct::{put, Cur, Envelope};

/// The types decoded here (the others always go the serde way).
#[cfg(test)]
pub(crate) const TYPES: &[&str] = &["cards.match_result", "cards.round_scheduled"];

/// The payload of `cards.<name>`; `None` for a type not handled here.
pub(crate) fn decode<'a>(name: &str, c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<Event> {
    Some(match name {
        "match_result" => Event::MatchResult(match_result(c, env)?),
        "round_scheduled" => Event::RoundScheduled(round(c, env)?),
        _ => return None,
    })
}

fn match_result<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<ev::MatchResult> {
    let (mut tournament, mut round, mut match_, mut scores) = (None, None, None, None);
    c.event(env, |c, key| match key {
        "tournament" => put(&mut tournament, c.ident()?),
        "round" => put(&mut round, c.ident()?),
        "match" => put(&mut match_, c.ident()?),
        "scores" => put(&mut scores, c.array(player_score)?),
        _ => None,
    })?;
    Some(ev::MatchResult {
        tournament: tournament?,
        round: round?,
        match_: match_?,
        scores: scores?,
    })
}

fn player_score(c: &mut Cur<'_>) -> Option<ev::PlayerScore> {
    let (mut player, mut score) = (None, None);
    c.object(|c, key| match key {
        "player" => put(&mut player, c.string()?),
        "score" => put(&mut score, c.i64()?),
        _ => None,
    })?;
    Some(ev::PlayerScore {
        player: player?,
        score: score?,
    })
}

fn round<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<ev::RoundScheduled> {
    let (mut tournament, mut round, mut starts, mut ends) = (None, None, None, None);
    let mut matches = None;
    c.event(env, |c, key| match key {
        "tournament" => put(&mut tournament, c.ident()?),
        "round" => put(&mut round, c.ident()?),
        "starts" => put(&mut starts, c.when()?),
        "ends" => put(&mut ends, c.when()?),
        "matches" => put(&mut matches, c.array(scheduled)?),
        _ => None,
    })?;
    Some(ev::RoundScheduled {
        tournament: tournament?,
        round: round?,
        starts: starts?,
        ends: ends?,
        matches: matches?,
    })
}

fn scheduled(c: &mut Cur<'_>) -> Option<ev::ScheduledMatch> {
    let (mut match_, mut players, mut strength) = (None, None, None);
    c.object(|c, key| match key {
        "match" => put(&mut match_, c.ident()?),
        "players" => put(&mut players, c.strings()?),
        "table_strength" => put(&mut strength, c.opt(Cur::i64)?),
        _ => None,
    })?;
    Some(ev::ScheduledMatch {
        match_: match_?,
        players: players?,
        table_strength: strength.flatten(),
    })
}
