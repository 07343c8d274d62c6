//! Tournament ids that differ in case alone (`Spring-25` beside
//! `spring-25`): a new one would look like the other wherever it is shown,
//! and results typed under either would split one tournament in two. A new
//! tournament whose id is another's but for case is refused; one a ledger
//! already holds is read as it was accepted.
//!
//! The index is derived from the tournaments a state holds: never stored in
//! a checkpoint, it is rebuilt when a state is read back (each system's
//! `Stored` form) and grows as tournaments are created.

use std::collections::BTreeMap;

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
