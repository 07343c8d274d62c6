//! A table's players in standings order (total, then more games, then name)
//! without summing most totals exactly: each player's running [`Total`] places
//! them on the fixed-point line ([`super::exact::Bounds`]); players whose
//! intervals are apart are ordered by them, and only a run of meeting
//! intervals (equal totals always meet) is compared exactly: as fractions of
//! machine integers where both totals stayed exact ([`Exact`] cross
//! products, checked), else summed in big rationals.

use std::cmp::Ordering;

use num_bigint::BigInt;
use num_rational::BigRational;

use super::exact::{Exact, Fixed, Total};

/// A player's games in one table and their running total.
#[derive(Debug, Clone, Default)]
pub(super) struct Acc {
    pub games: usize,
    /// Their last entry in [`Entries::links`].
    last: u32,
    pub total: Total,
}

/// Every player's scored positions, as one list linked per player backwards
/// (adding one writes nothing but the new entry and the player's row): a
/// position is `(store index of the game, position in it, previous entry)`.
#[derive(Debug, Default)]
pub(super) struct Entries {
    links: Vec<(u32, u32, u32)>,
    accs: Vec<Acc>,
}

/// A player in standings order.
pub(super) struct Ranked {
    pub player: u32,
    /// Equal totals, equal classes (a rank is shared by class and games).
    pub class: usize,
}

/// A total as compared within a run: a fraction of machine integers while
/// it stayed one, else a big rational.
enum Key {
    Small(i128, u64),
    Big(BigRational),
}

impl Key {
    fn big(&self) -> BigRational {
        match self {
            Key::Small(n, d) => BigRational::new(BigInt::from(*n), BigInt::from(*d)),
            Key::Big(b) => b.clone(),
        }
    }

    /// By value: `a / b` against `c / d` as `a * d` against `c * b` when
    /// both products fit `i128`, else in big rationals.
    fn cmp(&self, other: &Key) -> Ordering {
        match (self, other) {
            (Key::Small(a, b), Key::Small(c, d)) => {
                let left = a.checked_mul(i128::from(*d));
                match (left, c.checked_mul(i128::from(*b))) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    _ => self.big().cmp(&other.big()),
                }
            }
            (Key::Big(a), Key::Big(b)) => a.cmp(b),
            _ => self.big().cmp(&other.big()),
        }
    }
}

impl Entries {
    /// Room for `players` players and `positions` entries (the most a
    /// table adds: every stored position).
    pub fn new(players: usize, positions: usize) -> Self {
        Entries {
            links: Vec::with_capacity(positions),
            accs: vec![Acc::default(); players],
        }
    }

    /// `player` scored `score` at position `pos` of stored game `game`.
    pub fn add(&mut self, player: u32, game: u32, pos: u32, score: &Exact) {
        let acc = &mut self.accs[player as usize];
        self.links.push((game, pos, acc.last));
        acc.last = (self.links.len() - 1) as u32;
        acc.games += 1;
        acc.total.add(score);
    }

    pub fn acc(&self, player: u32) -> &Acc {
        &self.accs[player as usize]
    }

    /// The `(game, position)` of each of `player`'s entries, in fold order.
    pub fn games_of(&self, player: u32) -> Vec<(u32, u32)> {
        let acc = &self.accs[player as usize];
        let mut out = Vec::with_capacity(acc.games);
        let mut at = acc.last;
        for _ in 0..acc.games {
            let (game, pos, previous) = self.links[at as usize];
            out.push((game, pos));
            at = previous;
        }
        out.reverse();
        out
    }

    /// The players with a game, in standings order; `exact` sums a player's
    /// total exactly, `name` names them.
    pub fn order<'a>(
        &self,
        name: impl Fn(u32) -> &'a str,
        exact: impl Fn(u32) -> BigRational,
    ) -> Vec<Ranked> {
        let unknown = ((i128::MIN, 0), (i128::MAX, u64::MAX));
        let mut line: Vec<(Fixed, Fixed, u32)> = Vec::with_capacity(self.accs.len());
        line.extend(
            (self.accs.iter().enumerate())
                .filter(|(_, a)| a.games > 0)
                .map(|(id, a)| {
                    let (lo, hi) = a.total.interval().unwrap_or(unknown);
                    (lo, hi, id as u32)
                }),
        );
        line.sort_unstable();
        let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
        let mut reach = None;
        for (i, &(lo, hi, _)) in line.iter().enumerate() {
            match (runs.last_mut(), reach) {
                (Some(run), Some(r)) if lo <= r => {
                    run.end = i + 1;
                    reach = Some(hi.max(r));
                }
                _ => {
                    runs.push(i..i + 1);
                    reach = Some(hi);
                }
            }
        }
        let mut out: Vec<Ranked> = Vec::with_capacity(line.len());
        for run in runs.into_iter().rev() {
            let class = out.last().map_or(0, |r| r.class + 1);
            if run.len() == 1 {
                let player = line[run.start].2;
                out.push(Ranked { player, class });
                continue;
            }
            let key = |id: u32| match self.accs[id as usize].total.running() {
                Some((n, d)) => Key::Small(n, d),
                None => Key::Big(exact(id)),
            };
            let mut members: Vec<(Key, usize, &str, u32)> = line[run]
                .iter()
                .map(|&(_, _, id)| (key(id), self.accs[id as usize].games, name(id), id))
                .collect();
            members.sort_by(|a, b| (b.0.cmp(&a.0)).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
            let mut class = class;
            for (i, (total, .., player)) in members.iter().enumerate() {
                if i > 0 && members[i - 1].0.cmp(total) != Ordering::Equal {
                    class += 1;
                }
                out.push(Ranked {
                    player: *player,
                    class,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(n: i128, d: u64) -> BigRational {
        BigRational::new(BigInt::from(n), BigInt::from(d))
    }

    #[test]
    fn a_key_compares_by_value_when_its_cross_products_overflow() {
        let (max, den) = (i128::MAX, u64::MAX);
        // Both cross products are past i128: the big rationals decide.
        assert!((max / 3).checked_mul(i128::from(den)).is_none());
        let cases = [
            (
                Key::Small(max - 1, den),
                Key::Small(max, den),
                Ordering::Less,
            ),
            (
                Key::Small(max, den),
                Key::Small(max, den - 1),
                Ordering::Less,
            ),
            (Key::Small(max, den), Key::Small(max, den), Ordering::Equal),
            // The same value in other terms: 2x / 2y against x / y.
            (
                Key::Small(max - 1, den - 1),
                Key::Small((max - 1) / 2, (den - 1) / 2),
                Ordering::Equal,
            ),
            (Key::Small(-max, den), Key::Small(max, den), Ordering::Less),
            // A small key against a big one.
            (
                Key::Small(max, den),
                Key::Big(big(max, den) + big(1, 1)),
                Ordering::Less,
            ),
            (Key::Big(big(7, 2)), Key::Small(7, 2), Ordering::Equal),
        ];
        for (a, b, want) in cases {
            assert_eq!(a.cmp(&b), want, "{:?} against {:?}", a.big(), b.big());
            assert_eq!(b.cmp(&a), want.reverse());
            assert_eq!(a.cmp(&b), a.big().cmp(&b.big()));
        }
    }

    #[test]
    fn a_key_compares_small_fractions_by_checked_cross_products() {
        // 1/3 < 1/2, 2/4 = 1/2, -1/2 < 0/1.
        assert_eq!(Key::Small(1, 3).cmp(&Key::Small(1, 2)), Ordering::Less);
        assert_eq!(Key::Small(2, 4).cmp(&Key::Small(1, 2)), Ordering::Equal);
        assert_eq!(Key::Small(-1, 2).cmp(&Key::Small(0, 1)), Ordering::Less);
    }
}
