//! Exact sums of game scores, with big integers only where the numbers need them.
//!
//! A game's score is an [`Exact`]: `n / d` in `i128`, not reduced (the bounds
//! that keep each system's numbers inside `i128` are in [`super::math`]), or a
//! big rational for a board too large for that. A player's total is the sum of
//! their scores, exact. Two things are asked of totals, and each is done as
//! cheaply as exactness allows:
//!
//! - **Order.** [`Bounds`] pins a total between two fixed-point numbers with
//!   64 fractional bits, from each score's floor (`n` divided by `d`, then the
//!   remainder's 64 bits): the total lies in `[lo, lo + w]` units of 2^-64,
//!   `w` counting the scores that are not a multiple of 2^-64. A total still
//!   exact in machine integers is pinned by its own floor instead. Totals whose
//!   intervals are apart are ordered by them; only totals whose intervals meet
//!   (equal totals always do) are compared exactly, in machine integers where
//!   both stayed exact.
//! - **Value.** [`Total`] adds the scores over their common denominator in
//!   machine integers, every step checked; [`exact_sum`] does the same and, when a step
//!   would overflow, adds them again: the small scores over a common
//!   denominator in big integers, reduced once, and any big score as a big
//!   rational.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};

/// One exact score.
#[derive(Debug, Clone)]
pub enum Exact {
    /// `n / d`, `d > 0`, not necessarily in lowest terms.
    Small { n: i128, d: i128 },
    /// A score whose numbers pass `i128`.
    Big(BigRational),
}

impl Exact {
    /// `n / d`, kept with a positive denominator (the bounds read `d > 0`);
    /// `0` when `d` is zero (an empty board scores nothing).
    pub fn new(n: i128, d: i128) -> Exact {
        match d {
            0 => Exact::Small { n: 0, d: 1 },
            d if d > 0 => Exact::Small { n, d },
            d => match (n.checked_neg(), d.checked_neg()) {
                (Some(n), Some(d)) => Exact::Small { n, d },
                _ => Exact::Big(BigRational::new(BigInt::from(n), BigInt::from(d))),
            },
        }
    }

    /// Is the score a whole number?
    pub fn is_whole(&self) -> bool {
        match self {
            Exact::Small { n, d } => n % d == 0,
            Exact::Big(b) => b.is_integer(),
        }
    }

    /// The score as a big rational in lowest terms.
    pub fn big(&self) -> BigRational {
        match self {
            Exact::Small { n, d } => BigRational::new(BigInt::from(*n), BigInt::from(*d)),
            Exact::Big(b) => b.clone(),
        }
    }
}

/// Scores add up to a big rational (`scores.iter().sum::<Score>()`).
impl<'a> std::iter::Sum<&'a Exact> for BigRational {
    fn sum<I: Iterator<Item = &'a Exact>>(iter: I) -> BigRational {
        iter.fold(BigRational::zero(), |sum, s| sum + s.big())
    }
}

/// A score equals a big rational of the same value.
impl PartialEq<BigRational> for Exact {
    fn eq(&self, other: &BigRational) -> bool {
        self.big() == *other
    }
}

/// A score compares with a big rational by value.
impl PartialOrd<BigRational> for Exact {
    fn partial_cmp(&self, other: &BigRational) -> Option<std::cmp::Ordering> {
        Some(self.big().cmp(other))
    }
}

/// A total's place on the fixed-point line of 64 fractional bits: the total,
/// times 2^64, lies in `[lo, lo + w]` (`known` false: anywhere).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bounds {
    /// The sum of the scores' floors.
    whole: i128,
    /// The sum of the scores' fractional parts' 64-bit floors.
    fraction: u128,
    /// How many of those floors dropped something.
    inexact: u128,
    /// Every step fitted (else the bounds say nothing).
    failed: bool,
}

/// A point of the fixed-point line: whole part, then 64 fractional bits.
pub type Fixed = (i128, u64);

impl Bounds {
    /// Add one score.
    pub fn add(&mut self, s: &Exact) {
        let Some((whole, fraction, exact)) = floor_parts(s) else {
            self.failed = true;
            return;
        };
        match self.whole.checked_add(whole) {
            Some(w) => self.whole = w,
            None => self.failed = true,
        }
        // Each fraction is below 2^64 and a ledger holds fewer than 2^64 games.
        self.fraction = self.fraction.saturating_add(u128::from(fraction));
        self.inexact = self.inexact.saturating_add(u128::from(!exact));
    }

    /// `(lo, hi)`: the total times 2^64 lies between them; `None`: unknown.
    pub fn interval(&self) -> Option<(Fixed, Fixed)> {
        if self.failed || self.fraction == u128::MAX || self.inexact == u128::MAX {
            return None;
        }
        let point = |f: u128| -> Option<Fixed> {
            let whole = self.whole.checked_add(i128::try_from(f >> 64).ok()?)?;
            Some((whole, f as u64))
        };
        let lo = point(self.fraction)?;
        let hi = point(self.fraction.checked_add(self.inexact)?)?;
        Some((lo, hi))
    }
}

/// `s`'s floor, the floor of its fractional part times 2^64, and whether the
/// two are exactly `s`; `None` when the floor passes `i128`.
fn floor_parts(s: &Exact) -> Option<(i128, u64, bool)> {
    match s {
        Exact::Small { n, d } => {
            // The usual score: both in u64, one machine division for the floor.
            if let (Ok(n), Ok(d)) = (u64::try_from(*n), u64::try_from(*d)) {
                let (q, r) = (n / d, n % d);
                let (wide, d) = (u128::from(r) << 64, u128::from(d));
                let f = wide / d;
                return Some((i128::from(q), f as u64, wide - f * d == 0));
            }
            let (q, r) = (n.div_euclid(*d), n.rem_euclid(*d));
            let (r, d) = (r as u128, *d as u128); // 0 <= r < d
            let (f, rest) = match u64::try_from(d) {
                Ok(_) => ((r << 64) / d, (r << 64) % d),
                Err(_) => long_fraction(r, d),
            };
            Some((q, f as u64, rest == 0))
        }
        Exact::Big(b) => {
            let q = b.floor();
            let r = b - &q;
            let scaled = r * BigInt::from(1u128 << 64);
            let f = scaled.floor();
            let exact = f == scaled;
            Some((q.to_integer().to_i128()?, f.to_integer().to_u64()?, exact))
        }
    }
}

/// `floor(r * 2^64 / d)` and its remainder for `r < d` when `r * 2^64` passes
/// `u128`: one bit at a time (`2 * rem < 2 * d <= 2^128`).
fn long_fraction(r: u128, d: u128) -> (u128, u128) {
    let (mut q, mut rem) = (0u128, r);
    for _ in 0..64 {
        let carry = rem >> 127 == 1;
        rem <<= 1;
        q <<= 1;
        if carry || rem >= d {
            rem = rem.wrapping_sub(d);
            q |= 1;
        }
    }
    (q, rem)
}

/// A running total: its exact value as an `i128` numerator over a common
/// denominator in `u64` while those fit, else (from the first score that
/// would overflow, or a big one) its [`Bounds`], seeded with the exact total
/// so far. A `u64` denominator keeps every division a machine one:
/// Fibonacci-Diplo, Carnage and DSS totals stay within it, Sum-of-Squares
/// totals outgrow it after a few games. 32 bytes: a table's players' totals
/// are read and written once per position, in game order.
#[derive(Debug, Clone)]
pub struct Total {
    num: i128,
    /// Meaningful while `bounds` is `None`: once the exact total is given
    /// up, `bounds` holds the total.
    den: u64,
    bounds: Option<Box<Bounds>>,
}

impl Default for Total {
    fn default() -> Self {
        Total {
            num: 0,
            den: 1,
            bounds: None,
        }
    }
}

impl Total {
    /// Add one score.
    pub fn add(&mut self, s: &Exact) {
        if let Some(b) = &mut self.bounds {
            b.add(s);
            return;
        }
        if let Exact::Small { n, d } = s {
            if let Some((num, den)) = add_small(self.num, self.den, *n, *d) {
                (self.num, self.den) = (num, den);
                return;
            }
        }
        let mut b = Bounds::default();
        b.add(&self.so_far());
        b.add(s);
        self.bounds = Some(Box::new(b));
    }

    /// The exact running total as a score (while it is kept).
    fn so_far(&self) -> Exact {
        Exact::Small {
            n: self.num,
            d: i128::from(self.den),
        }
    }

    /// `(lo, hi)`: the total times 2^64 lies between them; `None`: unknown.
    /// An exact total's interval is its floor and, unless it is a multiple
    /// of 2^-64, one unit more.
    pub fn interval(&self) -> Option<(Fixed, Fixed)> {
        match &self.bounds {
            Some(b) => b.interval(),
            None => {
                let mut b = Bounds::default();
                b.add(&self.so_far());
                b.interval()
            }
        }
    }

    /// The exact total as `(numerator, denominator)`, not reduced, if it
    /// stayed in machine integers.
    pub fn running(&self) -> Option<(i128, u64)> {
        self.bounds.is_none().then_some((self.num, self.den))
    }

    /// The exact total in lowest terms, if its numerator stayed in `i128`
    /// and its denominator in `u64`.
    pub fn exact(&self) -> Option<BigRational> {
        let (num, den) = self.running()?;
        let den = i128::from(den);
        let g = num.gcd(&den);
        Some(BigRational::new_raw(
            BigInt::from(num / g),
            BigInt::from(den / g),
        ))
    }
}

/// `num / den + n / d` over `lcm(den, d)` (`den` itself when `d` divides it
/// or `n` is 0), if `d` and the lcm fit `u64` and the numerator `i128`.
fn add_small(num: i128, den: u64, n: i128, d: i128) -> Option<(i128, u64)> {
    if n == 0 {
        return Some((num, den));
    }
    let d = u64::try_from(d).ok()?;
    let lcm = match den % d {
        0 => den,
        _ => (den / den.gcd(&d)).checked_mul(d)?,
    };
    let left = num.checked_mul(i128::from(lcm / den))?;
    let right = n.checked_mul(i128::from(lcm / d))?;
    Some((left.checked_add(right)?, lcm))
}

/// The exact sum of `scores`, in lowest terms: as [`Total`] adds them when
/// they fit, else over a common denominator in big integers, reduced once.
pub fn exact_sum(scores: &[Exact]) -> BigRational {
    let mut total = Total::default();
    scores.iter().for_each(|s| total.add(s));
    total.exact().unwrap_or_else(|| big_sum(scores))
}

/// [`exact_sum`] in big integers.
fn big_sum(scores: &[Exact]) -> BigRational {
    let (mut num, mut den) = (BigInt::zero(), BigInt::from(1));
    let mut big = BigRational::zero();
    for s in scores {
        match s {
            Exact::Small { n, d } => {
                let d = BigInt::from(*d);
                if !den.is_multiple_of(&d) {
                    let lcm = den.lcm(&d);
                    num *= &lcm / &den;
                    den = lcm;
                }
                num += BigInt::from(*n) * (&den / &d);
            }
            Exact::Big(b) => big += b,
        }
    }
    big + BigRational::new(num, den)
}

#[cfg(test)]
mod tests;
