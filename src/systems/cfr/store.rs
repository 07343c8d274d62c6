//! The compact form of the CFR state: interned names and each event's results
//! as varint bytes, so that a folded event costs a few dozen bytes.
//!
//! An event is stored as its scoring-tables id, then for an elimination event
//! the number of heats, each heat and the final, and for a points event the
//! number of races and each race's tier (zigzag) and results. A list of results
//! is stored in one of two ways:
//! - compact, `2k`: when its drivers are distinct and its places are exactly
//!   `1..=k` (every list that passed validation), the `k` placed drivers in place
//!   order, then the number of dnf and those drivers;
//! - explicit, `2n + 1`: otherwise, `n` pairs of driver and place (0 = dnf,
//!   else place + 1), in the given order.
//!
//! Drivers are numbered per series (small numbers, one byte each); the order of
//! drivers within one list is not kept by the compact form, which nothing needs
//! (a driver appears once in it).

use crate::events::Place;
use crate::systems::cfr::events::Placing;

pub use crate::systems::compact::{put, zigzag, Interner};

/// Write one list of results; `id` numbers a driver.
pub fn put_list(out: &mut Vec<u8>, list: &[Placing], id: &mut impl FnMut(&str) -> u32) {
    let ids: Vec<u32> = list.iter().map(|p| id(&p.driver)).collect();
    let placed = list
        .iter()
        .filter(|p| matches!(p.place, Place::At(_)))
        .count();
    let mut by_place = vec![u32::MAX; placed];
    let mut compact = true;
    for (p, &i) in list.iter().zip(&ids) {
        if let Place::At(n) = p.place {
            let slot = (n as usize)
                .checked_sub(1)
                .and_then(|k| by_place.get_mut(k));
            match slot {
                Some(s) if *s == u32::MAX => *s = i,
                _ => {
                    compact = false;
                    break;
                }
            }
        }
    }
    if compact {
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        compact = sorted.windows(2).all(|w| w[0] != w[1]);
    }
    if compact {
        put(out, (placed as u64) << 1);
        for &i in &by_place {
            put(out, i.into());
        }
        put(out, (list.len() - placed) as u64);
        for (p, &i) in list.iter().zip(&ids) {
            if p.place == Place::Dnf {
                put(out, i.into());
            }
        }
    } else {
        put(out, ((list.len() as u64) << 1) | 1);
        for (p, &i) in list.iter().zip(&ids) {
            put(out, i.into());
            put(
                out,
                match p.place {
                    Place::At(n) => u64::from(n) + 1,
                    Place::Dnf => 0,
                },
            );
        }
    }
}

/// Reads what [`put`] and [`put_list`] wrote.
pub struct Reader<'a>(crate::codec::Reader<'a>);

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader(crate::codec::Reader::new(data))
    }

    /// A varint (0 past the end: only bytes laurel did not write end early,
    /// and a checkpoint's sections are checked by their zstd checksum).
    pub fn u(&mut self) -> u64 {
        self.0.u().unwrap_or(0)
    }

    pub fn i(&mut self) -> i64 {
        self.0.i().unwrap_or(0)
    }

    /// A count of things still to read, each at least one byte: at most the
    /// bytes left, so that bytes laurel did not write (a checkpoint forged
    /// with a valid checksum) cannot make a loop run for ages.
    pub fn count(&mut self) -> usize {
        let n = self.u();
        usize::try_from(n).map_or(0, |n| n.min(self.0.len()))
    }

    /// One list of results: `f(driver, place)` for each.
    pub fn list(&mut self, mut f: impl FnMut(u32, Place)) {
        let head = self.u();
        let n = (head >> 1).min(self.0.len() as u64);
        if head & 1 == 1 {
            for _ in 0..n {
                let d = self.u() as u32;
                let place = match self.u() {
                    0 => Place::Dnf,
                    p => Place::At((p - 1) as u32),
                };
                f(d, place);
            }
            return;
        }
        for k in 0..n {
            let d = self.u() as u32;
            f(d, Place::At(k as u32 + 1));
        }
        for _ in 0..self.count() {
            let d = self.u() as u32;
            f(d, Place::Dnf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(list: &[Placing]) -> (Vec<u8>, Vec<(String, Place)>) {
        let mut names = Interner::default();
        let mut out = Vec::new();
        put_list(&mut out, list, &mut |d| names.intern(d));
        let mut got = Vec::new();
        Reader::new(&out).list(|d, p| got.push((names.name(d).to_string(), p)));
        (out, got)
    }

    fn placing(driver: &str, place: Place) -> Placing {
        Placing {
            driver: driver.into(),
            place,
        }
    }

    #[test]
    fn a_valid_list_is_compact_and_reads_back_by_place() {
        let list = [
            placing("b", Place::At(2)),
            placing("x", Place::Dnf),
            placing("a", Place::At(1)),
        ];
        let (bytes, got) = read(&list);
        assert_eq!(bytes.len(), 5);
        assert_eq!(
            got,
            [
                ("a".into(), Place::At(1)),
                ("b".into(), Place::At(2)),
                ("x".into(), Place::Dnf)
            ]
        );
    }

    #[test]
    fn repeats_gaps_and_big_places_are_kept_as_given() {
        let list = [
            placing("a", Place::At(1)),
            placing("a", Place::At(1)),
            placing("b", Place::At(300)),
            placing("c", Place::At(0)),
            placing("d", Place::Dnf),
            placing("e", Place::At(u32::MAX)),
        ];
        let (_, got) = read(&list);
        let want: Vec<(String, Place)> = list.iter().map(|p| (p.driver.clone(), p.place)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn varints_and_zigzag_round_trip() {
        let mut out = Vec::new();
        for v in [0, 1, 127, 128, 300, u64::MAX] {
            put(&mut out, v);
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX] {
            put(&mut out, zigzag(v));
        }
        let mut r = Reader::new(&out);
        for v in [0, 1, 127, 128, 300, u64::MAX] {
            assert_eq!(r.u(), v);
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(r.i(), v);
        }
    }
}
