//! Tournament ids that differ in case alone (`Spring-25` beside
//! `spring-25`): a new one would look like the other wherever it is shown,
//! and results typed under either would split one tournament in two. A new
//! tournament whose id is another's but for case is refused; one a ledger
//! already holds is read as it was accepted.
//!
//! A state keeps its tournaments in a [`ById`] map, which keeps their ids by
//! case beside them: derived, never stored (the map serializes as the map
//! alone, and rebuilds the index when it is read back), and grown by
//! [`ById::insert`], the one way in.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Values by id, with the ids by case ([`CaseTwins`]). Read it as the
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
    /// `value` under `id`, kept unless `id` is there already.
    pub fn insert(&mut self, id: &str, value: impl FnOnce() -> T) {
        if !self.map.contains_key(id) {
            self.twins.add(id);
            self.map.insert(id.to_string(), value());
        }
    }

    /// The value under `id`, to change.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut T> {
        self.map.get_mut(id)
    }

    /// The known id that differs from `id` in case alone, if any.
    pub fn twin(&self, id: &str) -> Option<&str> {
        self.twins.twin(id)
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

/// Known ids by their lowercase form (the first id of each form).
#[derive(Debug, Clone, Default)]
pub struct CaseTwins(BTreeMap<String, String>);

impl CaseTwins {
    /// The index of `ids`.
    pub fn of<'a>(ids: impl IntoIterator<Item = &'a str>) -> CaseTwins {
        let mut twins = CaseTwins::default();
        ids.into_iter().for_each(|id| twins.add(id));
        twins
    }

    /// `id` is known from now on.
    pub fn add(&mut self, id: &str) {
        (self.0)
            .entry(id.to_lowercase())
            .or_insert_with(|| id.to_string());
    }

    /// The known id that differs from `id` in case alone, if any.
    pub fn twin(&self, id: &str) -> Option<&str> {
        let known = self.0.get(&id.to_lowercase())?;
        (known != id).then_some(known.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::CaseTwins;

    #[test]
    fn an_id_differing_in_case_alone_has_a_twin_and_itself_has_none() {
        let mut twins = CaseTwins::of(["Spring-25", "autumn"]);
        assert_eq!(twins.twin("spring-25"), Some("Spring-25"));
        assert_eq!(twins.twin("SPRING-25"), Some("Spring-25"));
        assert_eq!(twins.twin("Spring-25"), None);
        assert_eq!(twins.twin("Spring-26"), None);
        twins.add("Winter");
        assert_eq!(twins.twin("WINTER"), Some("Winter"));
        // Unicode case, not ASCII alone.
        twins.add("Été");
        assert_eq!(twins.twin("éTÉ"), Some("Été"));
    }
}
