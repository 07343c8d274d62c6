//! Tournament ids that differ in case alone (`Spring-25` beside
//! `spring-25`): a new one would look like the other wherever it is shown,
//! and results typed under either would split one tournament in two. Of two
//! such ids, the one an append brings is refused, whichever is dated first
//! (folds run by date: when the new one is dated before a stored twin, the
//! stored one's check names it). Twins a ledger already holds are read as
//! they were accepted.
//!
//! A state keeps its tournaments in a [`ById`] map, which keeps their ids by
//! case beside them, each with the seq of the record that created it:
//! derived, never stored (the map serializes as the map alone, and a map
//! read back from a checkpoint indexes its ids again, as stored records: a
//! checkpoint an append's check fold starts from lies before every record
//! the append brings), and grown by [`ById::insert`], the one way in.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Values by id, with the ids by case. Read it as the
/// `BTreeMap` it derefs to; insert through [`ById::insert`].
#[derive(Debug, Clone)]
pub struct ById<T> {
    map: BTreeMap<String, T>,
    twins: CaseTwins,
}

impl<T> Default for ById<T> {
    fn default() -> Self {
        ById {
            map: BTreeMap::new(),
            twins: CaseTwins::default(),
        }
    }
}

impl<T> std::ops::Deref for ById<T> {
    type Target = BTreeMap<String, T>;
    fn deref(&self) -> &Self::Target {
        &self.map
    }
}

impl<T> ById<T> {
    /// `value` under `id`, created by record `seq`, kept unless `id` is
    /// there already.
    pub fn insert(&mut self, id: &str, seq: u64, value: impl FnOnce() -> T) {
        if !self.map.contains_key(id) {
            self.twins.add(id, seq);
            self.map.insert(id.to_string(), value());
        }
    }

    /// The value under `id`, to change.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut T> {
        self.map.get_mut(id)
    }

    /// The refusal of tournament `id`, created by record `seq`, when an id
    /// known before it differs from it in case alone and the append being
    /// checked brings either of the two (`brings`: [`super::Cx::brings`]).
    /// Ids are shown quoted; not their seqs, which a state read from a
    /// checkpoint does not know (the message is the same either way).
    pub fn check_twin(
        &self,
        (id, seq): (&str, u64),
        brings: impl Fn(u64) -> bool,
    ) -> Result<(), String> {
        let Some((twin, _)) = self.twins.twin(id, |s| brings(seq) || brings(s)) else {
            return Ok(());
        };
        let (id, twin) = (format!("{id:?}"), format!("{twin:?}"));
        let which = match brings(seq) {
            true => "",
            false => ", which this append brings,",
        };
        let (new, other) = match brings(seq) {
            true => (id.as_str(), twin.as_str()),
            false => (twin.as_str(), id.as_str()),
        };
        Err(format!(
            "tournament {id}: tournament {twin}{which} differs from it in case \
             alone; ids are exact: write {other} for {new}, or give the new tournament an id of \
             its own"
        ))
    }
}

impl<T: Serialize> Serialize for ById<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.map.serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ById<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, T>::deserialize(d)?;
        let twins = CaseTwins::of(map.keys().map(String::as_str));
        Ok(ById { map, twins })
    }
}

/// Known ids by their lowercase form, each with the seq of the record that
/// created it, in id order.
#[derive(Debug, Clone, Default)]
struct CaseTwins(BTreeMap<String, Vec<(String, u64)>>);

impl CaseTwins {
    /// The index of `ids`, stored records all (seq 0).
    fn of<'a>(ids: impl IntoIterator<Item = &'a str>) -> CaseTwins {
        let mut twins = CaseTwins::default();
        ids.into_iter().for_each(|id| twins.add(id, 0));
        twins
    }

    /// `id`, created by record `seq`, is known from now on.
    fn add(&mut self, id: &str, seq: u64) {
        let form = self.0.entry(id.to_lowercase()).or_default();
        if let Err(i) = form.binary_search_by(|(known, _)| known.as_str().cmp(id)) {
            form.insert(i, (id.to_string(), seq));
        }
    }

    /// The first known id (in id order) that differs from `id` in case alone
    /// and whose seq `counts`, with that seq.
    fn twin(&self, id: &str, counts: impl Fn(u64) -> bool) -> Option<(&str, u64)> {
        let form = self.0.get(&id.to_lowercase())?;
        (form.iter())
            .find(|(known, seq)| known != id && counts(*seq))
            .map(|(known, seq)| (known.as_str(), *seq))
    }
}

#[cfg(test)]
mod tests {
    use super::CaseTwins;

    #[test]
    fn an_id_differing_in_case_alone_has_a_twin_and_itself_has_none() {
        let all = |_| true;
        let mut twins = CaseTwins::of(["Spring-25", "autumn"]);
        assert_eq!(twins.twin("spring-25", all), Some(("Spring-25", 0)));
        assert_eq!(twins.twin("SPRING-25", all), Some(("Spring-25", 0)));
        assert_eq!(twins.twin("Spring-25", all), None);
        assert_eq!(twins.twin("Spring-26", all), None);
        twins.add("Winter", 7);
        assert_eq!(twins.twin("WINTER", all), Some(("Winter", 7)));
        assert_eq!(twins.twin("WINTER", |s| s >= 8), None);
        // Unicode case, not ASCII alone.
        twins.add("Été", 9);
        assert_eq!(twins.twin("éTÉ", all), Some(("Été", 9)));
    }

    /// The twin named is the first in id order, however the ids came in
    /// (folded one by one, or read back from a checkpoint).
    #[test]
    fn the_twin_named_does_not_depend_on_the_order_ids_came_in() {
        let mut folded = CaseTwins::default();
        folded.add("spring", 1);
        folded.add("Spring", 2);
        let read = CaseTwins::of(["Spring", "spring"]);
        for twins in [folded, read] {
            assert_eq!(twins.twin("SPRING", |_| true).map(|t| t.0), Some("Spring"));
        }
    }
}
