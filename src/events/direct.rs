//! Direct decoding of stored events: canonical bytes to the typed event in one
//! pass over the bytes, without serde, for the event types a fold meets most
//! (every fold decodes each stored record; serde's visitors, field matching and
//! the envelope adaptor were about a third of a full replay's CPU).
//!
//! It never decides that a record is *invalid*: whenever it meets anything it
//! does not handle exactly like the serde path (`Stored` / `Capturing` with the
//! payload types' `Deserialize`), such as escapes in a string, whitespace, a
//! repeated, unknown or missing field, `-0`, a fraction, an integer out of
//! range, an empty identifier, an unknown enum name or trailing bytes, it
//! returns `None` and the caller decodes the serde way, which gives its result
//! or its message. So where it answers, it answers as serde does; the tests
//! compare both on generated events and on mutations of them.
//!
//! Invariant: the whole record is checked to be UTF-8 first, and every string
//! returned is the text between two ASCII quotes of it with no `\` or control
//! character inside, so it is what serde_json reads there.

use super::{cards, cfr, diplomacy, mepbm, sbr, Event, Ident, Place, When};
use crate::time;

/// The types decoded here (the others always go the serde way).
#[cfg(test)]
pub(super) const TYPES: &[&str] = &[
    "cards.match_result",
    "cards.round_scheduled",
    "sbr.game_played",
    "mepbm.vote_cast",
    "mepbm.allegiance_changed",
    "mepbm.nation_taken_over",
    "mepbm.game_started",
    "mepbm.game_ended",
    "diplomacy.game_ended",
    "cfr.event_completed",
];

/// The envelope and payload of a stored event of type `kind`: `(id, event)`,
/// or `None` to decode it the serde way.
pub(super) fn decode(kind: &str, bytes: &[u8]) -> Option<(Option<String>, Event)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut c = Cur {
        text,
        b: text.as_bytes(),
        pos: 0,
    };
    let mut env = Envelope::default();
    let event = payload(kind, &mut c, &mut env)?;
    let whole = c.pos == c.b.len();
    let typed = env.kind == Some(kind) && env.at;
    (whole && typed).then(|| (env.id.flatten().map(str::to_owned), event))
}

/// The payload decoder of `kind`; `None` for a type it does not handle.
fn payload<'a>(kind: &str, c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<Event> {
    Some(match kind {
        "cards.match_result" => Event::Cards(cards::Event::MatchResult(match_result(c, env)?)),
        "cards.round_scheduled" => Event::Cards(cards::Event::RoundScheduled(round(c, env)?)),
        "sbr.game_played" => Event::Sbr(sbr::Event::GamePlayed(sbr_game(c, env)?)),
        "mepbm.vote_cast" => Event::Mepbm(mepbm::Event::VoteCast(vote(c, env)?)),
        "mepbm.allegiance_changed" => {
            Event::Mepbm(mepbm::Event::AllegianceChanged(allegiance(c, env)?))
        }
        "mepbm.nation_taken_over" => Event::Mepbm(mepbm::Event::NationTakenOver(takeover(c, env)?)),
        "mepbm.game_started" => Event::Mepbm(mepbm::Event::GameStarted(started(c, env)?)),
        "mepbm.game_ended" => Event::Mepbm(mepbm::Event::GameEnded(ended(c, env)?)),
        "diplomacy.game_ended" => Event::Diplomacy(diplomacy::Event::GameEnded(dip(c, env)?)),
        "cfr.event_completed" => Event::Cfr(cfr::Event::EventCompleted(cfr_event(c, env)?)),
        _ => return None,
    })
}

/// The top-level fields the serde path reads apart from the payload: `type`,
/// `at` (seen; its value is the record header's) and `id` (`Some(None)`: null).
#[derive(Default)]
struct Envelope<'a> {
    kind: Option<&'a str>,
    at: bool,
    id: Option<Option<&'a str>>,
}

/// A cursor over the record's bytes (UTF-8, see the module docs).
struct Cur<'a> {
    text: &'a str,
    /// `text`'s bytes.
    b: &'a [u8],
    pos: usize,
}

/// Fill a field once: a repeated field goes the serde way (its error).
fn put<T>(slot: &mut Option<T>, v: T) -> Option<()> {
    slot.replace(v).is_none().then_some(())
}

impl<'a> Cur<'a> {
    fn eat(&mut self, c: u8) -> Option<()> {
        (self.b.get(self.pos) == Some(&c)).then(|| self.pos += 1)
    }

    fn word(&mut self, w: &[u8]) -> Option<()> {
        let end = self.pos + w.len();
        (self.b.get(self.pos..end) == Some(w)).then(|| self.pos = end)
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// A string without escapes or control characters.
    fn str(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.pos;
        // Up to the first quote, backslash or control byte (the end, if none:
        // then the quote below is missing).
        let len = super::scan::plain_run(self.b.get(start..)?);
        self.pos = start + len;
        self.eat(b'"')?;
        // Between two ASCII quotes of the text: on char boundaries, so `get`
        // slices without scanning (it cannot fail).
        self.text.get(start..start + len)
    }

    fn string(&mut self) -> Option<String> {
        self.str().map(str::to_owned)
    }

    /// `null` (`Some(None)`) or what `f` reads.
    fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.word(b"null").is_some() {
            return Some(None);
        }
        f(self).map(Some)
    }

    fn boolean(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' => self.word(b"true").map(|_| true),
            _ => self.word(b"false").map(|_| false),
        }
    }

    /// An integer as serde_json reads one: no leading zero, no fraction or
    /// exponent (a float), not `-0` (a float too); `(negative, magnitude)`.
    fn integer(&mut self) -> Option<(bool, u64)> {
        let neg = self.eat(b'-').is_some();
        let start = self.pos;
        let mut n: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            self.pos += 1;
        }
        let digits = &self.b[start..self.pos];
        let plain = !digits.is_empty() && (digits[0] != b'0' || digits.len() == 1);
        let float = matches!(self.peek(), Some(b'.' | b'e' | b'E')) || (neg && n == 0);
        (plain && !float).then_some((neg, n))
    }

    fn i64(&mut self) -> Option<i64> {
        match self.integer()? {
            (false, n) => i64::try_from(n).ok(),
            (true, n) => 0i64.checked_sub_unsigned(n),
        }
    }

    /// An [`Ident`]: a non-empty string or a non-negative integer.
    fn ident(&mut self) -> Option<Ident> {
        if self.peek()? == b'"' {
            let s = self.str()?;
            return (!s.is_empty()).then(|| Ident(s.to_owned()));
        }
        match self.integer()? {
            (false, n) => Some(Ident(n.to_string())),
            (true, _) => None,
        }
    }

    fn when(&mut self) -> Option<When> {
        time::parse(self.str()?).map(When)
    }

    fn place(&mut self) -> Option<Place> {
        if self.peek()? == b'"' {
            return (self.str()? == "dnf").then_some(Place::Dnf);
        }
        match self.integer()? {
            (false, n) if n >= 1 => u32::try_from(n).ok().map(Place::At),
            _ => None,
        }
    }

    fn array<T>(&mut self, mut f: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        self.eat(b'[')?;
        let mut out = Vec::new();
        if self.eat(b']').is_some() {
            return Some(out);
        }
        loop {
            out.push(f(self)?);
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(out);
                }
                _ => return None,
            }
        }
    }

    fn strings(&mut self) -> Option<Vec<String>> {
        self.array(Cur::string)
    }

    /// `{"key":value,...}`, `f` reading each value; keys without escapes.
    fn object(&mut self, mut f: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            let key = self.str()?;
            self.eat(b':')?;
            f(self, key)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The event object: the envelope fields into `env`, the others to `f`.
    fn event(
        &mut self,
        env: &mut Envelope<'a>,
        mut f: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        self.object(|c, key| match key {
            "type" => put(&mut env.kind, c.str()?),
            "at" => {
                c.str()?;
                (!std::mem::replace(&mut env.at, true)).then_some(())
            }
            "id" => put(&mut env.id, c.opt(Cur::str)?),
            _ => f(c, key),
        })
    }
}

fn match_result<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<cards::MatchResult> {
    let (mut tournament, mut round, mut match_, mut scores) = (None, None, None, None);
    c.event(env, |c, key| match key {
        "tournament" => put(&mut tournament, c.ident()?),
        "round" => put(&mut round, c.ident()?),
        "match" => put(&mut match_, c.ident()?),
        "scores" => put(&mut scores, c.array(player_score)?),
        _ => None,
    })?;
    Some(cards::MatchResult {
        tournament: tournament?,
        round: round?,
        match_: match_?,
        scores: scores?,
    })
}

fn player_score(c: &mut Cur<'_>) -> Option<cards::PlayerScore> {
    let (mut player, mut score) = (None, None);
    c.object(|c, key| match key {
        "player" => put(&mut player, c.string()?),
        "score" => put(&mut score, c.i64()?),
        _ => None,
    })?;
    Some(cards::PlayerScore {
        player: player?,
        score: score?,
    })
}

fn round<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<cards::RoundScheduled> {
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
    Some(cards::RoundScheduled {
        tournament: tournament?,
        round: round?,
        starts: starts?,
        ends: ends?,
        matches: matches?,
    })
}

fn scheduled(c: &mut Cur<'_>) -> Option<cards::ScheduledMatch> {
    let (mut match_, mut players, mut strength) = (None, None, None);
    c.object(|c, key| match key {
        "match" => put(&mut match_, c.ident()?),
        "players" => put(&mut players, c.strings()?),
        "table_strength" => put(&mut strength, c.opt(Cur::i64)?),
        _ => None,
    })?;
    Some(cards::ScheduledMatch {
        match_: match_?,
        players: players?,
        table_strength: strength.flatten(),
    })
}

fn sbr_game<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<sbr::GamePlayed> {
    let (mut tournament, mut stage, mut match_, mut game) = (None, None, None, None);
    let (mut seats, mut group) = (None, None);
    c.event(env, |c, key| match key {
        "tournament" => put(&mut tournament, c.ident()?),
        "stage" => put(&mut stage, stage_of(c.str()?)?),
        "match" => put(&mut match_, c.ident()?),
        "game" => put(&mut game, c.i64()?),
        "seats" => put(&mut seats, c.array(seat)?),
        "group" => put(&mut group, c.opt(Cur::ident)?),
        _ => None,
    })?;
    Some(sbr::GamePlayed {
        tournament: tournament?,
        stage: stage?,
        match_: match_?,
        game: game?,
        seats: seats?,
        group: group.flatten(),
    })
}

fn stage_of(s: &str) -> Option<sbr::Stage> {
    Some(match s {
        "seeding" => sbr::Stage::Seeding,
        "group" => sbr::Stage::Group,
        "bracket" => sbr::Stage::Bracket,
        _ => return None,
    })
}

fn color_of(s: &str) -> Option<sbr::Color> {
    Some(match s {
        "red" => sbr::Color::Red,
        "yellow" => sbr::Color::Yellow,
        "green" => sbr::Color::Green,
        "blue" => sbr::Color::Blue,
        _ => return None,
    })
}

/// A seat; its `player` must be there (`null` for a bot).
fn seat(c: &mut Cur<'_>) -> Option<sbr::Seat> {
    let (mut color, mut player, mut bases, mut score) = (None, None, None, None);
    c.object(|c, key| match key {
        "seat" => put(&mut color, color_of(c.str()?)?),
        "player" => put(&mut player, c.opt(Cur::string)?),
        "bases" => put(&mut bases, c.opt(|c| c.array(base))?),
        "score" => put(&mut score, c.opt(Cur::i64)?),
        _ => None,
    })?;
    Some(sbr::Seat {
        seat: color?,
        player: player?,
        bases: bases.flatten(),
        score: score.flatten(),
    })
}

fn base(c: &mut Cur<'_>) -> Option<sbr::Base> {
    let (mut piece, mut bonus) = (None, None);
    c.object(|c, key| match key {
        "piece" => put(&mut piece, c.string()?),
        "bonus" => put(&mut bonus, c.boolean()?),
        _ => None,
    })?;
    Some(sbr::Base {
        piece: piece?,
        bonus: bonus?,
    })
}

fn vote<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<mepbm::VoteCast> {
    let (mut game, mut voter, mut team, mut played) = (None, None, None, None);
    let mut enemy = None;
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "voter" => put(&mut voter, c.string()?),
        "best_team_player" => put(&mut team, c.strings()?),
        "best_played_nation" => put(&mut played, c.strings()?),
        "best_enemy_nation" => put(&mut enemy, c.opt(Cur::string)?),
        _ => None,
    })?;
    Some(mepbm::VoteCast {
        game: game?,
        voter: voter?,
        best_team_player: team?,
        best_played_nation: played?,
        best_enemy_nation: enemy.flatten(),
    })
}

fn side_of(s: &str) -> Option<mepbm::Side> {
    Some(match s {
        "FP" => mepbm::Side::Fp,
        "DS" => mepbm::Side::Ds,
        "neutral" => mepbm::Side::Neutral,
        _ => return None,
    })
}

fn allegiance<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<mepbm::AllegianceChanged> {
    let (mut game, mut nation, mut side) = (None, None, None);
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "nation" => put(&mut nation, c.string()?),
        "side" => put(
            &mut side,
            match c.str()? {
                "FP" => mepbm::Aligned::Fp,
                "DS" => mepbm::Aligned::Ds,
                _ => return None,
            },
        ),
        _ => None,
    })?;
    Some(mepbm::AllegianceChanged {
        game: game?,
        nation: nation?,
        side: side?,
    })
}

fn takeover<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<mepbm::NationTakenOver> {
    let (mut game, mut nation, mut player) = (None, None, None);
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "nation" => put(&mut nation, c.string()?),
        "player" => put(&mut player, c.string()?),
        _ => None,
    })?;
    Some(mepbm::NationTakenOver {
        game: game?,
        nation: nation?,
        player: player?,
    })
}

fn started<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<mepbm::GameStarted> {
    let (mut game, mut scenario, mut positions, mut grudge) = (None, None, None, None);
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "scenario" => put(&mut scenario, c.string()?),
        "positions" => put(&mut positions, c.array(position)?),
        "grudge" => put(&mut grudge, c.opt(grudge_of)?),
        _ => None,
    })?;
    Some(mepbm::GameStarted {
        game: game?,
        scenario: scenario?,
        positions: positions?,
        grudge: grudge.flatten(),
    })
}

fn position(c: &mut Cur<'_>) -> Option<mepbm::Position> {
    let (mut nation, mut player, mut side) = (None, None, None);
    c.object(|c, key| match key {
        "nation" => put(&mut nation, c.string()?),
        "player" => put(&mut player, c.string()?),
        "side" => put(&mut side, side_of(c.str()?)?),
        _ => None,
    })?;
    Some(mepbm::Position {
        nation: nation?,
        player: player?,
        side: side?,
    })
}

fn grudge_of(c: &mut Cur<'_>) -> Option<mepbm::Grudge> {
    let (mut fp, mut ds) = (None, None);
    c.object(|c, key| match key {
        "FP" => put(&mut fp, c.string()?),
        "DS" => put(&mut ds, c.string()?),
        _ => None,
    })?;
    Some(mepbm::Grudge { fp: fp?, ds: ds? })
}

fn ended<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<mepbm::GameEnded> {
    let (mut game, mut turn, mut winner, mut nations) = (None, None, None, None);
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "turn" => put(&mut turn, c.i64()?),
        "winner" => put(
            &mut winner,
            match c.str()? {
                "FP" => mepbm::Winner::Fp,
                "DS" => mepbm::Winner::Ds,
                "draw" => mepbm::Winner::Draw,
                _ => return None,
            },
        ),
        "nations" => put(&mut nations, c.array(nation_result)?),
        _ => None,
    })?;
    Some(mepbm::GameEnded {
        game: game?,
        turn: turn?,
        winner: winner?,
        nations: nations?,
    })
}

fn nation_result(c: &mut Cur<'_>) -> Option<mepbm::NationResult> {
    let (mut nation, mut points, mut eliminated) = (None, None, None);
    c.object(|c, key| match key {
        "nation" => put(&mut nation, c.string()?),
        "victory_points" => put(&mut points, c.i64()?),
        "eliminated" => put(&mut eliminated, c.boolean()?),
        _ => None,
    })?;
    Some(mepbm::NationResult {
        nation: nation?,
        victory_points: points?,
        eliminated: eliminated?,
    })
}

fn dip<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<diplomacy::GameEnded> {
    let (mut game, mut result, mut winner, mut powers) = (None, None, None, None);
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "result" => put(
            &mut result,
            match c.str()? {
                "solo" => diplomacy::Outcome::Solo,
                "draw" => diplomacy::Outcome::Draw,
                _ => return None,
            },
        ),
        "winner" => put(&mut winner, c.opt(Cur::string)?),
        "powers" => put(&mut powers, c.array(power)?),
        _ => None,
    })?;
    Some(diplomacy::GameEnded {
        game: game?,
        result: result?,
        winner: winner.flatten(),
        powers: powers?,
    })
}

/// A power; its `player` must be there (`null`: never replaced).
fn power(c: &mut Cur<'_>) -> Option<diplomacy::PowerResult> {
    let (mut name, mut player, mut centers, mut eliminated) = (None, None, None, None);
    c.object(|c, key| match key {
        "power" => put(&mut name, c.string()?),
        "player" => put(&mut player, c.opt(Cur::string)?),
        "centers" => put(&mut centers, c.i64()?),
        "eliminated" => put(&mut eliminated, c.opt(Cur::i64)?),
        _ => None,
    })?;
    Some(diplomacy::PowerResult {
        power: name?,
        player: player?,
        centers: centers?,
        eliminated: eliminated.flatten(),
    })
}

fn cfr_event<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<cfr::EventCompleted> {
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
    Some(cfr::EventCompleted {
        series: series?,
        event: event?,
        heats: heats.flatten(),
        final_: final_.flatten(),
        races: races.flatten(),
    })
}

fn placings(c: &mut Cur<'_>) -> Option<Vec<cfr::Placing>> {
    c.array(|c| {
        let (mut driver, mut place) = (None, None);
        c.object(|c, key| match key {
            "driver" => put(&mut driver, c.string()?),
            "place" => put(&mut place, c.place()?),
            _ => None,
        })?;
        Some(cfr::Placing {
            driver: driver?,
            place: place?,
        })
    })
}

fn race(c: &mut Cur<'_>) -> Option<cfr::Race> {
    let (mut tier, mut results) = (None, None);
    c.object(|c, key| match key {
        "tier" => put(&mut tier, c.i64()?),
        "results" => put(&mut results, placings(c)?),
        _ => None,
    })?;
    Some(cfr::Race {
        tier: tier?,
        results: results?,
    })
}
