//! Near-duplicate names: the key two names share when they differ only in
//! case, accents or whitespace, and a lookup of the names one edit from a key.
//!
//! The lookup is a symmetric-deletion index: each key of 5 characters or
//! more is filed under the hash of itself and of each of its one-character
//! deletions; two keys one edit apart (a substitution, an insertion or a
//! deletion) share one of those, so a lookup probes as many buckets as its
//! key has characters, never every name. A shared bucket is only a candidate:
//! the edit distance decides (strsim).

use std::collections::HashMap;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Names shorter than this (in characters of their key) are matched only
/// when their keys are equal, never one edit apart.
pub const EDIT_MIN: usize = 6;

/// The key of `name`: decomposed (NFD), combining marks dropped, whitespace
/// dropped, lower case. "Zoë  Smith" and "zoe smith" share the key `zoesmith`.
pub fn key(name: &str) -> String {
    name.nfd()
        .filter(|c| !is_combining_mark(*c) && !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Names filed by key, each with an id (the caller's order).
#[derive(Default)]
pub struct Near {
    exact: HashMap<String, u32>,
    edits: HashMap<u64, Vec<u32>>,
    keys: Vec<String>,
}

impl Near {
    /// File `name` as the next id.
    pub fn insert(&mut self, name: &str) {
        let id = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
        let k = key(name);
        self.exact.entry(k.clone()).or_insert(id);
        let chars: Vec<char> = k.chars().collect();
        if chars.len() + 1 >= EDIT_MIN {
            for h in variants(&chars) {
                self.edits.entry(h).or_default().push(id);
            }
        }
        self.keys.push(k);
    }

    /// The id of the earliest name filed that `name` nearly duplicates: the
    /// same key, or (for a key of [`EDIT_MIN`] characters or more) one edit
    /// from it.
    pub fn find(&self, name: &str) -> Option<u32> {
        let k = key(name);
        if let Some(&id) = self.exact.get(&k) {
            return Some(id);
        }
        let chars: Vec<char> = k.chars().collect();
        if chars.len() < EDIT_MIN {
            return None;
        }
        let candidates = variants(&chars).filter_map(|h| self.edits.get(&h));
        candidates
            .flatten()
            .copied()
            .filter(|&id| strsim::levenshtein(&k, &self.keys[id as usize]) <= 1)
            .min()
    }
}

/// The hashes of `chars` and of each of its one-character deletions.
fn variants(chars: &[char]) -> impl Iterator<Item = u64> + '_ {
    (0..=chars.len()).map(move |skip| {
        // FNV-1a over the characters but the one at `skip` (none when `skip`
        // is the length).
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for (i, &c) in chars.iter().enumerate() {
            if i != skip {
                h ^= u64::from(c);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        h
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_case_accents_and_whitespace() {
        assert_eq!(key("Claude  Shannon"), key("Claude Shannon"));
        assert_eq!(key("brian kernighan"), key("Brian Kernighan"));
        assert_eq!(key("Zoë Smith"), "zoesmith");
        assert_ne!(key("Ada Lovelce"), key("Ada Lovelace"));
    }

    #[test]
    fn find_matches_one_edit_for_long_names_and_only_equal_keys_for_short() {
        let mut n = Near::default();
        n.insert("Ada Lovelace");
        n.insert("Bob");
        n.insert("p00001");
        assert_eq!(n.find("Ada Lovelce"), Some(0), "a deletion");
        assert_eq!(n.find("Ada Lovelacee"), Some(0), "an insertion");
        assert_eq!(n.find("Ada Lovelack"), Some(0), "a substitution");
        assert_eq!(n.find("Ada Lovelck"), None, "two edits");
        assert_eq!(n.find("bob"), Some(1));
        assert_eq!(n.find("Rob"), None, "short names need equal keys");
        assert_eq!(n.find("p00002"), Some(2));
        assert_eq!(
            n.find("p0001"),
            None,
            "a 5-character key needs an equal key"
        );
        assert_eq!(n.find("Charles Babbage"), None);
    }
}
