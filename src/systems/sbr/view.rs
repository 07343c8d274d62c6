//! [`View`]: one tournament under the rules in force, with what is derived from
//! its matches: the bracket's qualifiers and seeds, each match ranked, where a
//! player stands in a stage, and the bracket's final.

use std::cell::OnceCell;
use std::cmp::Reverse;
use std::collections::BTreeSet;

use super::events::Stage;

use super::math::{advances, rank_owned, snake_groups, Line};
use super::params::Sbr;
use super::{Cx, Match, Names, Standing, Tournament};

/// A tournament seen under the rules in force, with what is derived from it
/// (qualifiers, bracket seeds) computed once, when first asked for.
pub(crate) struct View<'a> {
    pub t: &'a Tournament,
    pub names: &'a Names,
    gpm: i64,
    advance: i64,
    group_size: i64,
    bracket: OnceCell<Bracket>,
    /// Per person: the group formed from the seeding (0: not seeded).
    groups: OnceCell<Vec<u32>>,
}

/// A qualifier's score and best game in their last group match, and seed rank.
type BracketKey = (i64, i64, Reverse<u32>);

/// The bracket's entrants and the keys their bracket seeds come from.
struct Bracket {
    /// Qualifiers (person indices), by name.
    qualifiers: Vec<u32>,
    /// Per person: is a qualifier.
    is_q: Vec<bool>,
    /// Every qualifier's key ([`View::bracket_key`]), highest first.
    keys: Vec<BracketKey>,
}

/// A ranked line: the player's name and person index.
pub(crate) type Who<'a> = (&'a str, u32);

impl<'a> View<'a> {
    pub fn new(t: &'a Tournament, names: &'a Names, cx: &Cx) -> Self {
        View {
            t,
            names,
            gpm: cx.params.get::<Sbr>().games_per_match,
            advance: cx.params.get::<Sbr>().advance,
            group_size: cx.params.get::<Sbr>().group_size,
            bracket: OnceCell::new(),
            groups: OnceCell::new(),
        }
    }

    pub fn games_per_match(&self) -> i64 {
        self.gpm
    }

    pub fn advance(&self) -> i64 {
        self.advance
    }

    pub fn group_size(&self) -> i64 {
        self.group_size
    }

    pub fn player(&self, p: u32) -> &'a str {
        self.names.name(self.t.people[p as usize].name)
    }

    pub fn complete(&self, m: &Match) -> bool {
        m.complete(self.gpm)
    }

    /// The seeding order: seeded players by seeding score, highest first,
    /// equal scores by name.
    pub fn seeding_order(&self) -> Vec<u32> {
        let t = self.t;
        let mut seeded: Vec<u32> = (0..t.people.len() as u32)
            .filter(|&p| t.people[p as usize].seeded())
            .collect();
        let score = |p: u32| t.people[p as usize].seed_score;
        seeded.sort_by(|&a, &b| {
            (score(b).cmp(&score(a))).then_with(|| self.player(a).cmp(self.player(b)))
        });
        seeded
    }

    /// A seeded player's group (1, 2, …): the seeding order dealt by
    /// [`snake_groups`] into groups of `group_size`.
    pub fn group_of(&self, p: u32) -> Option<u32> {
        let groups = self.groups.get_or_init(|| {
            let order = self.seeding_order();
            let size = usize::try_from(self.group_size).unwrap_or(1);
            let mut g = vec![0; self.t.people.len()];
            for (&p, k) in order.iter().zip(snake_groups(order.len(), size)) {
                g[p as usize] = k;
            }
            g
        });
        groups.get(p as usize).copied().filter(|&g| g > 0)
    }

    /// Is `p` 1st or 2nd (within `advance`) of their group: advanced from a
    /// complete group match that every other player of the group still in
    /// the group stage played (the group played down to that match)?
    /// `alive[g]`: the players of group `g` not eliminated in the group stage.
    fn tops_group(&self, p: u32, alive: &[Vec<u32>]) -> bool {
        let (Some(g), Some(m)) = (self.group_of(p), self.t.last_match(Stage::Group, p)) else {
            return false;
        };
        let rest = alive.get(g as usize).map_or(&[][..], |a| &a[..]);
        self.standing_in(m, p) == Standing::Advanced
            && rest.len() <= m.players.len()
            && rest.iter().all(|q| m.players.contains(q))
    }

    fn bracket(&self) -> &Bracket {
        self.bracket.get_or_init(|| {
            let t = self.t;
            let mut alive: Vec<Vec<u32>> = Vec::new();
            for q in 0..t.people.len() as u32 {
                let Some(g) = self.group_of(q) else { continue };
                if self.standing(Stage::Group, q) != Some(Standing::Eliminated) {
                    let g = g as usize;
                    alive.resize(alive.len().max(g + 1), Vec::new());
                    alive[g].push(q);
                }
            }
            let mut qualifiers: Vec<u32> = (0..t.people.len() as u32)
                .filter(|&p| t.people[p as usize].tracks[0].count > 0 && self.tops_group(p, &alive))
                .collect();
            qualifiers.sort_by_key(|&p| self.player(p));
            let mut is_q = vec![false; t.people.len()];
            for &q in &qualifiers {
                is_q[q as usize] = true;
            }
            let mut keys: Vec<_> = qualifiers.iter().map(|&q| self.bracket_key(q)).collect();
            keys.sort_unstable_by(|a, b| b.cmp(a));
            Bracket {
                qualifiers,
                is_q,
                keys,
            }
        })
    }

    /// Score in the last group match, then best game in it, then seed rank.
    fn bracket_key(&self, p: u32) -> BracketKey {
        let seed = self.t.seed_rank(p).unwrap_or(u32::MAX);
        let (score, best) = self.t.last_group_totals(p);
        (score, best, Reverse(seed))
    }

    /// The 1st and 2nd of each group: the bracket's entrants, by name.
    pub fn qualifiers(&self) -> &[u32] {
        &self.bracket().qualifiers
    }

    /// Has every group sent its qualifiers (each played down to one
    /// complete match): the bracket's entrants are known, as the groups stand.
    pub fn every_group_qualified(&self) -> bool {
        let people = 0..self.t.people.len() as u32;
        let groups: BTreeSet<u32> = people.filter_map(|p| self.group_of(p)).collect();
        let sent: BTreeSet<u32> = (self.qualifiers().iter())
            .filter_map(|&q| self.group_of(q))
            .collect();
        !groups.is_empty() && groups == sent
    }

    pub fn is_qualifier(&self, p: u32) -> bool {
        self.bracket()
            .is_q
            .get(p as usize)
            .copied()
            .unwrap_or(false)
    }

    /// A qualifier's bracket seed: by last group match score, best game, seed rank.
    pub fn bracket_seed(&self, p: u32) -> Option<u32> {
        let b = self.bracket();
        if !b.is_q.get(p as usize).copied().unwrap_or(false) {
            return None;
        }
        let key = self.bracket_key(p);
        Some(1 + b.keys.partition_point(|k| *k > key) as u32)
    }

    /// A match ranked: (place, line) best first, with the stage's seed tie-break.
    pub fn ranked(&self, m: &Match) -> Vec<(u32, Line<Who<'a>>)> {
        let lines: Vec<Line<Who<'a>>> = m
            .players
            .iter()
            .enumerate()
            .map(|(j, &p)| {
                let (total, best) = m.totals_at(j);
                let seed = match m.stage {
                    Stage::Bracket => self.bracket_seed(p),
                    _ => self.t.seed_rank(p),
                };
                Line {
                    player: (self.player(p), p),
                    total,
                    best,
                    seed,
                }
            })
            .collect();
        rank_owned(lines)
    }

    /// A player's place in a match (None: not in it).
    pub fn place_in(&self, m: &Match, p: u32) -> Option<u32> {
        self.ranked(m)
            .into_iter()
            .find(|(_, l)| l.player.1 == p)
            .map(|(place, _)| place)
    }

    /// Where a player stands in a stage after their last match of it.
    pub fn standing(&self, stage: Stage, p: u32) -> Option<Standing> {
        let last = self.t.last_match(stage, p)?;
        Some(self.standing_in(last, p))
    }

    pub fn standing_in(&self, m: &Match, p: u32) -> Standing {
        if !self.complete(m) {
            return Standing::Playing;
        }
        let place = self.place_in(m, p).unwrap_or(u32::MAX);
        if advances(place, self.advance) {
            Standing::Advanced
        } else {
            Standing::Eliminated
        }
    }

    /// The bracket's final: the completed bracket match holding every qualifier
    /// not eliminated in another bracket match.
    pub fn final_match(&self) -> Option<&'a Match> {
        // A completed bracket match means a bracket game was folded.
        if self.t.stage != Some(Stage::Bracket) {
            return None;
        }
        let t = self.t;
        let bracket = || {
            t.matches
                .iter()
                .enumerate()
                .filter(|(_, m)| m.stage == Stage::Bracket)
        };
        let mut candidates = bracket()
            .filter(|(_, m)| self.complete(m) && !m.players.is_empty())
            .peekable();
        candidates.peek()?;
        let candidates: Vec<(usize, &Match)> = candidates.collect();
        let qualifiers = self.qualifiers();
        candidates.into_iter().rev().map(|(_, m)| m).find(|fin| {
            qualifiers.iter().all(|&q| {
                fin.players.contains(&q)
                    || bracket().any(|(_, m)| {
                        m.id != fin.id
                            && m.players.contains(&q)
                            && self.standing_in(m, q) == Standing::Eliminated
                    })
            })
        })
    }
}
