//! The CFR ranking: each driver's counted events and score, the audit trail of
//! every event that changes them, and the `laurel standings cfr` tables (the
//! ranking, every event score, the series and their windows).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::events::ledger;
use crate::num::{decimal_string, json_number, Rational};
use crate::systems::params::Params;
use crate::systems::table::{Report, Table};
use crate::systems::{Event, Record};
use crate::time::{format_short, Micros};

use super::params::Cfr;
use super::score::{best_finish, decimals, num, Entry, Finish};
use super::{check, math, Change, Cx, Ev, Selector, Series, State, SYS};

/// A driver's counted event, as it enters the average.
#[derive(Debug, Clone)]
struct Counted {
    /// The event and its series (`series/event` is its label).
    ev: u32,
    series: u32,
    at: Micros,
    seq: u64,
    /// The event score in [`math::UNIT`]s, and as a number.
    units: i128,
    score: Rational,
    finish: Option<Finish>,
}

/// A driver's ranking line: counted events and the score made from them.
#[derive(Debug, Clone)]
pub(super) struct Line {
    events: Vec<Counted>,
    mean: Rational,
    factor: Rational,
    /// `mean * factor`, rounded to `decimals`: what is shown and ranked.
    pub(super) score: Rational,
    best: Rational,
    finish: Option<Finish>,
}

impl Line {
    /// `(80 + 16 + 0 + 0 + 31.88) / 5`, with `* 0.75` when a factor applies.
    fn formula(&self) -> String {
        let terms: Vec<String> = self.events.iter().map(|c| num(c.score)).collect();
        let factor = if self.factor == Rational::from_integer(1) {
            String::new()
        } else {
            format!(" * {}", num(self.factor))
        };
        format!("({}) / {}{factor}", terms.join(" + "), self.events.len())
    }
}

fn counted_events(cx: &Cx) -> usize {
    cx.params.get::<Cfr>().counted_events
}

fn label(series: &str, event: &str) -> String {
    format!("{series}/{event}")
}

/// A counted event of a driver: (event, its series, score in [`math::UNIT`]s,
/// finish).
type CountedAt = (u32, u32, i128, Option<Finish>);

/// Event `idx` pushed into series `si` (window `n`), `leaving` the window's
/// event it pushes out, and the drivers either concerns.
struct Push {
    si: usize,
    idx: u32,
    n: usize,
    leaving: Option<u32>,
    /// The new event's entries, by driver.
    scored: Vec<(u32, Entry)>,
    /// The leaving event's drivers.
    left: Vec<u32>,
    /// The drivers whose changes the audit keeps, by name.
    affected: Vec<u32>,
}

impl Push {
    /// Move `counting` past the push: the leaving event's results out, the
    /// new event's in (a window of 0 counts nothing).
    fn recount(&self, counting: &mut Counting) {
        if let Some(l) = self.leaving {
            for d in &self.left {
                if let Some(v) = counting.counted.get_mut(d) {
                    v.retain(|&(ev, ..)| ev != l);
                }
            }
        }
        if self.n > 0 {
            for (d, en) in &self.scored {
                let v = counting.counted.entry(*d).or_default();
                v.push((self.idx, self.si as u32, en.units, en.finish));
            }
        }
    }
}

/// With the audit trail only: every driver's counted events for a window of
/// `n`, kept up to date as events are pushed.
#[derive(Debug, Clone, Default)]
pub(super) struct Counting {
    n: usize,
    counted: BTreeMap<u32, Vec<CountedAt>>,
}

/// `all` grouped by driver (ids below `drivers`), in their order within each
/// driver, by a counting sort: driver `d`'s results are
/// `counted[start[d]..start[d + 1]]`.
fn by_driver(all: Vec<(u32, CountedAt)>, drivers: usize) -> (Vec<usize>, Vec<CountedAt>) {
    let mut start = vec![0usize; drivers + 1];
    for &(d, _) in &all {
        start[d as usize + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut next = start.clone();
    let mut counted: Vec<CountedAt> = vec![(0, 0, 0, None); all.len()];
    for (d, c) in all {
        counted[next[d as usize]] = c;
        next[d as usize] += 1;
    }
    (start, counted)
}

impl State {
    /// The event's label, `series/event`.
    fn label_of(&self, s: &Series, ev: u32) -> String {
        label(&s.def.series, self.event_names.name(self.name_of(ev)))
    }

    fn counted(&self, si: u32, ev: u32, units: i128, finish: Option<Finish>) -> Counted {
        let e = &self.events[ev as usize];
        Counted {
            ev,
            series: si,
            at: e.at,
            seq: e.seq,
            units,
            score: math::from_units(units),
            finish,
        }
    }

    /// The audit trail of pushing event `idx` (already stored, not yet in its
    /// series' list): a change for each driver of the new event and of the event
    /// leaving the window.
    pub(super) fn audit_push(&mut self, rec: &Record, si: usize, idx: u32, cx: &mut Cx) {
        let n = counted_events(cx);
        let s = &self.series[si];
        let leaving = s
            .events
            .len()
            .checked_sub(n)
            .filter(|_| n > 0)
            .map(|i| s.events[i]);
        if !self.concerns_subject(si, idx, leaving, cx) {
            return;
        }
        if self.counting.as_ref().is_none_or(|c| c.n != n) {
            self.counting = Some(Box::new(self.count_all(n)));
        }
        let push = self.push_of((si, idx, n, leaving), cx);
        let Some(mut counting) = self.counting.take() else {
            return;
        };
        let f = Factors::of(cx);
        let lines = |c: &Counting| -> Vec<Option<Line>> {
            push.affected
                .iter()
                .map(|&d| self.line_of(c, d, &f))
                .collect()
        };
        let before = lines(&counting);
        push.recount(&mut counting);
        let after = lines(&counting);
        let changes = self.changes(rec, &push, f.decimals, before, after);
        self.counting = Some(counting);
        for c in changes {
            let subject = c.subject.clone();
            cx.audit(&subject, || c);
        }
    }

    /// The audit trail of a CFR rule change (`before`: the rules it
    /// replaced; `cx` holds the new ones). A ranking reads `counted_events`,
    /// the factors and `decimals` when it is shown, so changing them moves
    /// drivers' scores at once, by no event of theirs: a change for each
    /// driver the audit keeps whose shown score moved, naming the rule
    /// change. Event scores already scored keep the tables they were scored
    /// with.
    pub(super) fn audit_rules(&mut self, rec: &Record, before: &Params, cx: &mut Cx) {
        let Event::Ledger(ledger::Event::RulesChanged(rc)) = &rec.event else {
            return;
        };
        if rc.system != SYS || !cx.auditing() {
            return;
        }
        let drivers: Vec<u32> = match cx.audit_subject() {
            Some(s) => self.drivers.get(s).into_iter().collect(),
            None => (0..self.drivers.len() as u32).collect(),
        };
        let lines = |cx: &Cx| -> Vec<(Option<Line>, u32)> {
            let (c, f) = (self.count_all(counted_events(cx)), Factors::of(cx));
            let line = |&d: &u32| (self.line_of(&c, d, &f), f.decimals);
            drivers.iter().map(line).collect()
        };
        let old_rules = lines(&Cx::new(before.clone(), false));
        let new_rules = lines(cx);
        let what = serde_json::to_string(&rc.params).unwrap_or_default();
        for ((&d, (was, places)), (is, new_places)) in drivers.iter().zip(old_rules).zip(new_rules)
        {
            // A score shown with other places but the same value did not move.
            if let (Some(was), Some(is)) = (&was, &is) {
                if was.score == is.score {
                    continue;
                }
            }
            let old = was.map(|l| decimal_string(l.score, places));
            let (new, total) = match is {
                Some(l) => {
                    let new = decimal_string(l.score, new_places);
                    let total = format!("score {new} = {}", l.formula());
                    (new, total)
                }
                None if old.is_none() => continue,
                None => ("unranked".to_string(), "no counted event".to_string()),
            };
            let subject = self.drivers.name(d);
            cx.audit(subject, || Change {
                seq: rec.seq,
                at: rec.at,
                system: SYS.into(),
                subject: subject.to_string(),
                old,
                new,
                formula: format!("rules changed: cfr {what}; {total}"),
            });
        }
    }

    /// Does pushing `idx` (and `leaving` leaving the window) concern the
    /// audit? With one subject's history, only if it brings or takes away one
    /// of the subject's results: a driver's line is made of their own counted
    /// results, so any other event changes nothing of theirs and is not scored.
    fn concerns_subject(&self, si: usize, idx: u32, leaving: Option<u32>, cx: &Cx) -> bool {
        let Some(subject) = cx.audit_subject() else {
            return true;
        };
        let s = &self.series[si];
        let drove = |g| self.drove(s, idx, g) || leaving.is_some_and(|l| self.drove(s, l, g));
        self.drivers.get(subject).is_some_and(drove)
    }

    /// Pushing event `idx` into series `si` (window `n`, `leaving` pushed
    /// out), with its drivers: the new event's entries, the leaving event's
    /// drivers, and the drivers whose changes the audit keeps. Formulas cost
    /// text for every driver of the event: `history` of one player asks for
    /// them only when that player drove in it.
    fn push_of(&self, (si, idx, n, leaving): (usize, u32, usize, Option<u32>), cx: &Cx) -> Push {
        let s = &self.series[si];
        let all = cx.audit_subject().is_none();
        let mut scored = self.entries(s, idx, all);
        let left: Vec<u32> = leaving.map_or(Vec::new(), |l| {
            self.entries(s, l, false)
                .into_iter()
                .map(|(d, _)| d)
                .collect()
        });
        let mut affected: BTreeMap<&str, u32> = BTreeMap::new();
        for &d in scored.iter().map(|(d, _)| d).chain(&left) {
            affected.insert(self.drivers.name(d), d);
        }
        // Only the drivers whose changes the audit keeps (`history` of one player).
        affected.retain(|name, _| cx.audits(name));
        let drove = |d: &u32| scored.iter().any(|(g, _)| g == d);
        if !all && affected.values().any(drove) {
            scored = self.entries(s, idx, true);
        }
        Push {
            si,
            idx,
            n,
            leaving,
            scored,
            left,
            affected: affected.into_values().collect(),
        }
    }

    /// Each affected driver's change, from their lines before and after.
    fn changes(
        &self,
        rec: &Record,
        push: &Push,
        decimals: u32,
        before: Vec<Option<Line>>,
        after: Vec<Option<Line>>,
    ) -> Vec<Change> {
        let s = &self.series[push.si];
        let series = &s.def.series;
        let new_label = self.label_of(s, push.idx);
        let left_label = push.leaving.map(|l| self.label_of(s, l));
        let n = push.n;
        let lines = before.into_iter().zip(after);
        let mut changes = Vec::new();
        for (&driver, (before, after)) in push.affected.iter().zip(lines) {
            let scored = push
                .scored
                .iter()
                .find(|(g, _)| *g == driver)
                .map(|(_, en)| format!("{new_label} {} = {}", num(en.score()), en.formula()));
            let gone = left_label
                .as_ref()
                .filter(|_| push.left.contains(&driver))
                .map(|l| format!("{l} left the window (last {n} {series} events)"));
            let old = before.as_ref().map(|l| decimal_string(l.score, decimals));
            let (new, total) = match after {
                Some(l) => {
                    let new = decimal_string(l.score, decimals);
                    let total = format!("score {new} = {}", l.formula());
                    (new, total)
                }
                None => ("unranked".to_string(), "no counted event".to_string()),
            };
            let parts: Vec<String> = scored.into_iter().chain(gone).chain([total]).collect();
            changes.push(Change {
                seq: rec.seq,
                at: rec.at,
                system: SYS.into(),
                subject: self.drivers.name(driver).to_string(),
                old,
                new,
                formula: parts.join("; "),
            });
        }
        changes
    }

    /// Driver `d`'s ranking line from `c`.
    fn line_of(&self, c: &Counting, d: u32, f: &Factors) -> Option<Line> {
        let events = c.counted.get(&d).map_or(Vec::new(), |v| {
            v.iter()
                .map(|&(ev, si, units, finish)| self.counted(si, ev, units, finish))
                .collect()
        });
        make_line(events, f)
    }

    /// Every driver's counted events for a window of `n`.
    fn count_all(&self, n: usize) -> Counting {
        let mut c = Counting {
            n,
            counted: BTreeMap::new(),
        };
        self.each_counted(n, |d, at| c.counted.entry(d).or_default().push(at));
        c
    }

    /// Each counted result of a window of `n` (the last `n` events of every
    /// series), with its driver, series by series, event by event.
    fn each_counted(&self, n: usize, mut f: impl FnMut(u32, CountedAt)) {
        for (si, s) in self.series.iter().enumerate() {
            for &ev in &s.events[s.events.len().saturating_sub(n)..] {
                for (d, en) in self.entries(s, ev, false) {
                    f(d, (ev, si as u32, en.units, en.finish));
                }
            }
        }
    }

    /// Every driver with a counted event, in ranking order: score as shown,
    /// then more counted events, then best counted event, then name. Scores
    /// are compared as integers (event scores in [`math::UNIT`]s, ranking
    /// scores times `10^decimals`); a driver's [`Line`] is made when a table
    /// shows it ([`Ranking::line`]).
    pub(super) fn ranking(&self, cx: &Cx) -> Ranking {
        let n = counted_events(cx);
        let mut all: Vec<(u32, CountedAt)> = Vec::new();
        self.each_counted(n, |d, at| all.push((d, at)));
        let (start, counted) = by_driver(all, self.drivers.len());
        let f = Factors::of(cx);
        let mut units = Vec::new();
        let mut keyed: Vec<(i128, usize, i128, u32)> = Vec::new();
        for (d, w) in start.windows(2).enumerate() {
            units.clear();
            units.extend(counted[w[0]..w[1]].iter().map(|c| c.2));
            let key = math::ranking_key(&units, f.one, f.two, f.decimals);
            if let (Some(key), Some(&best)) = (key, units.iter().max()) {
                keyed.push((key, units.len(), best, d as u32));
            }
        }
        keyed.sort_by(|a, b| {
            (b.0.cmp(&a.0))
                .then(b.1.cmp(&a.1))
                .then(b.2.cmp(&a.2))
                .then_with(|| self.drivers.name(a.3).cmp(self.drivers.name(b.3)))
        });
        let order = keyed
            .iter()
            .map(|&(.., d)| (d, start[d as usize]..start[d as usize + 1]));
        Ranking {
            counted,
            order: order.collect(),
            factors: f,
        }
    }

    /// `laurel standings cfr`: the ranking, then every event score and the series.
    pub fn standings(&self, table: &str, sel: &Selector, cx: &Cx) -> Result<Report, String> {
        if table != "cfr" {
            return Err(format!("unknown cfr table {table:?}"));
        }
        if let Some(t) = &sel.tournament {
            return Err(format!(
                "standings cfr takes no --tournament (got {t:?}): the ranking spans every series"
            ));
        }
        let d = decimals(cx);
        let lines = self.ranking(cx);
        let mut main = Table::new(
            "cfr",
            &format!(
                "CFR driver ranking (mean of the last {} events of each series; 1 event x{}, 2 events x{})",
                counted_events(cx),
                num(cx.params.get::<Cfr>().one_event_factor.value()),
                num(cx.params.get::<Cfr>().two_event_factor.value()),
            ),
            &[
                "rank", "player", "score", "events", "mean", "factor", "best_event", "best_finish",
                "scores",
            ],
        )
        .with_places(&["score", "best_event", "scores"], d)
        .with_places(&["mean"], d + 2)
        .keep(sel);
        for (i, (driver, _)) in lines.order.iter().enumerate() {
            main.push_with(|| {
                let l = lines.line(self, i);
                let scores: Vec<Value> = l
                    .events
                    .iter()
                    .map(|c| {
                        let label = self.label_of(&self.series[c.series as usize], c.ev);
                        json!({"event": label, "score": json_number(c.score, d)})
                    })
                    .collect();
                vec![
                    json!(i + 1),
                    json!(self.drivers.name(*driver)),
                    json_number(l.score, d),
                    json!(l.events.len()),
                    json_number(l.mean, d + 2),
                    json_number(l.factor, 4),
                    json_number(l.best, d),
                    l.finish.map_or(Value::Null, |f| json!(f.text())),
                    Value::Array(scores),
                ]
            });
        }
        Ok(Report {
            system: "cfr".into(),
            main,
            extra: vec![self.events_table(sel, cx), self.series_table(sel, cx)],
        })
    }

    /// Every driver's score at every event, oldest event first, with its sum.
    fn events_table(&self, sel: &Selector, cx: &Cx) -> Table {
        let (n, d) = (counted_events(cx), decimals(cx));
        let mut t = Table::new(
            "events",
            "CFR event scores (counted: among the last events of its series)",
            &[
                "series", "event", "at", "player", "score", "points", "perfect", "counted",
                "finish", "formula",
            ],
        )
        .with_places(&["score"], d)
        .keep(sel);
        let mut all: Vec<(&Series, &Ev, u32, bool)> = Vec::new();
        for &si in self.by_name.values() {
            let s = &self.series[si as usize];
            let first_counted = s.events.len().saturating_sub(n);
            for (i, &ev) in s.events.iter().enumerate() {
                all.push((s, &self.events[ev as usize], ev, i >= first_counted));
            }
        }
        all.sort_by_key(|(s, ev, _, _)| (ev.at, ev.seq, &s.def.series));
        for (s, ev, idx, counted) in all {
            if t.full() {
                t.skip(self.driver_count(s, idx));
                continue;
            }
            let name = &s.def.series;
            let mut drivers: Vec<(&str, Entry)> = self
                .entries(s, idx, true)
                .into_iter()
                .map(|(g, en)| (self.drivers.name(g), en))
                .collect();
            drivers.sort_by(|a, b| b.1.units.cmp(&a.1.units).then(a.0.cmp(b.0)));
            let event = self.event_names.name(self.name_of(idx));
            for (driver, en) in drivers {
                let Some(detail) = &en.detail else { continue };
                t.push(vec![
                    json!(name),
                    json!(event),
                    json!(format_short(ev.at)),
                    json!(driver),
                    json_number(en.score(), d),
                    json_number(detail.points, 4),
                    json_number(detail.perfect, 4),
                    json!(counted),
                    en.finish.map_or(Value::Null, |f| json!(f.text())),
                    json!(detail.formula),
                ]);
            }
        }
        t
    }

    /// Each series, its format and which of its events are in the window.
    fn series_table(&self, sel: &Selector, cx: &Cx) -> Table {
        let n = counted_events(cx);
        let mut t = Table::new(
            "series",
            "CFR series",
            &["series", "format", "defined", "events", "counted", "window"],
        )
        .keep(sel);
        for (name, &si) in &self.by_name {
            t.push_with(|| {
                let s = &self.series[si as usize];
                let window: Vec<&str> = s.events[s.events.len().saturating_sub(n)..]
                    .iter()
                    .map(|&e| self.event_names.name(self.name_of(e)))
                    .collect();
                vec![
                    json!(name),
                    json!(check::format_name(s.def.format)),
                    json!(format_short(s.defined_at)),
                    json!(s.events.len()),
                    json!(window.len()),
                    json!(window),
                ]
            });
        }
        t
    }
}

/// Every driver with a counted event, in ranking order ([`State::ranking`]).
pub(super) struct Ranking {
    /// Every counted result, grouped by driver.
    counted: Vec<CountedAt>,
    /// Each ranked driver and where their results are in `counted`.
    pub(super) order: Vec<(u32, std::ops::Range<usize>)>,
    factors: Factors,
}

impl Ranking {
    /// The ranking line of the `i`th driver.
    pub(super) fn line(&self, st: &State, i: usize) -> Line {
        let range = self.order[i].1.clone();
        let events = self.counted[range].iter();
        let events = events.map(|&(ev, si, units, finish)| st.counted(si, ev, units, finish));
        // A ranked driver has a counted event, so a line.
        make_line(events.collect(), &self.factors).expect("a ranked driver has counted events")
    }
}

/// The ranking parameters in force, read once per table or audited event.
struct Factors {
    one: Rational,
    two: Rational,
    decimals: u32,
}

impl Factors {
    fn of(cx: &Cx) -> Self {
        let p = cx.params.get::<Cfr>();
        Factors {
            one: p.one_event_factor.value(),
            two: p.two_event_factor.value(),
            decimals: p.decimals,
        }
    }
}

/// A driver's ranking line from their counted events; `None` without any.
fn make_line(mut events: Vec<Counted>, f: &Factors) -> Option<Line> {
    events.sort_by_key(|c| (c.at, c.seq));
    let scores: Vec<Rational> = events.iter().map(|c| c.score).collect();
    let (mean, factor, _) = math::driver_score(&scores, f.one, f.two)?;
    // The score shown is the one ranked: the ranking key over its scale.
    let units: Vec<i128> = events.iter().map(|c| c.units).collect();
    let key = math::ranking_key(&units, f.one, f.two, f.decimals)?;
    let best = scores.iter().copied().max()?;
    let finish = events.iter().fold(None, |b, c| best_finish(b, c.finish));
    Some(Line {
        events,
        mean,
        factor,
        score: Rational::new(key, 10i128.pow(f.decimals.min(18))),
        best,
        finish,
    })
}
