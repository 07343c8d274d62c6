//! Near-duplicate names: a lookup of the names whose keys
//! ([`crate::events::key`]) are equal or one edit apart, or whose words are
//! the same in another order.
//!
//! The lookup is a symmetric-deletion index: each key is filed under the
//! hash of itself and (for a key of 5 characters or more) of each of its
//! one-character deletions; two keys one edit apart (a substitution, an
//! insertion, a deletion or a swap of neighbours) share one of those, so a lookup probes as many
//! hashes as its key has characters, never every name. A shared hash is only
//! a candidate: one pass over the two keys decides ([`one_typo`]). The index
//! is built once over every name, as one sorted vector of (hash, id) pairs
//! and where each run of its hashes' top bits starts ([`Near::under`]): a
//! lookup reads one start and then the few pairs of its run, where a binary
//! search of the whole vector would wait for a cache miss at most of its
//! steps, and an append's check probes it several times a new name. 16 bytes
//! per hash and at most 4 per pair for the starts, about 280 bytes per name
//! with its key.
//!
//! Words in another order ("Martin Alice" for "Alice Martin", a family name
//! written first) nearly duplicate too, for keys of [`EDIT_MIN`] characters or
//! more: each name of two words or more, none with a digit, is also filed
//! under the hash of its words' keys sorted ([`words_key`]), and a lookup
//! probes that one hash more.
//!
//! An edit of a digit is not a typo: a digit replaced by another digit, or a
//! digit inserted or deleted, leaves two names that are both taken as meant.
//! Numbered names ("Table 1" and "Table 2", "bot-7" and "bot-17")
//! are distinct players, as sites that number their guests expect.

use crate::events::key::{key, key_chars};

/// Names shorter than this (in characters of their key) are matched only
/// when their keys are equal, never one edit apart.
pub const EDIT_MIN: usize = 6;

/// Names by key, each with an id: its place in the list it was built from.
pub struct Near {
    /// (hash, id), sorted.
    filed: Vec<(u64, u32)>,
    /// `starts[b]`: the first place in `filed` whose hash's top bits (its
    /// bucket, `hash >> shift`) are `b` or more; one more than the buckets.
    starts: Vec<u32>,
    /// 64 less the bits of a bucket: at most one bucket per pair filed.
    shift: u32,
    /// Each name's key, as characters.
    keys: Vec<Box<[char]>>,
    /// Each name's [`words_key`], for a name of two words or more.
    words: Vec<Option<Box<[char]>>>,
}

impl Near {
    /// The index of `names`, ids in their order.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Near {
        let (mut keys, mut words) = (Vec::new(), Vec::new());
        for name in names {
            keys.push(key(name).chars().collect::<Box<[char]>>());
            words.push(words_key(name));
        }
        let mut filed = Vec::new();
        for (id, chars) in keys.iter().enumerate() {
            let id32 = u32::try_from(id).unwrap_or(u32::MAX);
            if chars.len() + 1 >= EDIT_MIN {
                filed.extend(variants(chars).map(|h| (h, id32)));
            } else {
                filed.push((hash(chars, chars.len()), id32));
            }
            if let (Some(w), true) = (&words[id], chars.len() >= EDIT_MIN) {
                filed.push((hash(w, w.len()), id32));
            }
        }
        filed.sort_unstable();
        let bits = filed.len().max(1).ilog2().max(1);
        let shift = 64 - bits;
        let mut starts = vec![0u32; (1 << bits) + 1];
        for &(h, _) in &filed {
            starts[(h >> shift) as usize + 1] += 1;
        }
        let mut sum = 0;
        for s in &mut starts {
            sum += *s;
            *s = sum;
        }
        Near {
            filed,
            starts,
            shift,
            keys,
            words,
        }
    }

    /// Whether the name filed as `id`, of key `chars`, has the words
    /// `words` in another order (its key another).
    fn reordered(&self, id: u32, chars: &[char], words: &[char]) -> bool {
        let id = id as usize;
        *self.keys[id] != *chars && self.words[id].as_deref() == Some(words)
    }

    /// The ids filed under hash `h`: searched for within its bucket only.
    fn under(&self, h: u64) -> impl Iterator<Item = u32> + '_ {
        let b = (h >> self.shift) as usize;
        let (lo, hi) = (self.starts[b] as usize, self.starts[b + 1] as usize);
        let run = &self.filed[lo..hi];
        let from = run.partition_point(|&(x, _)| x < h);
        run[from..]
            .iter()
            .take_while(move |&&(x, _)| x == h)
            .map(|&(_, id)| id)
    }

    /// The ids below `before` whose names `name` nearly duplicates, those
    /// of the same key first, then (for a key of [`EDIT_MIN`] characters or
    /// more) those one edit of a letter or sign from it (an edit of a digit
    /// does not count) or of its words in another order, each group in id
    /// order.
    pub fn near_before(&self, name: &str, before: u32) -> Vec<u32> {
        let mut chars = Vec::new();
        key_chars(name, &mut chars);
        let key_of = |id: u32| &*self.keys[id as usize];
        let mut same: Vec<u32> = self
            .under(hash(&chars, chars.len()))
            .filter(|&id| id < before && key_of(id) == chars.as_slice())
            .collect();
        same.sort_unstable();
        if chars.len() < EDIT_MIN {
            return same;
        }
        let mut typo: Vec<u32> = variants(&chars)
            .flat_map(|h| self.under(h))
            .filter(|&id| id < before && key_of(id) != chars.as_slice())
            .filter(|&id| one_typo(&chars, key_of(id)))
            .collect();
        if let Some(w) = words_key(name) {
            let reordered = (self.under(hash(&w, w.len())))
                .filter(|&id| id < before && self.reordered(id, &chars, &w));
            typo.extend(reordered);
        }
        typo.sort_unstable();
        typo.dedup();
        same.extend(typo);
        same
    }

    /// Every id whose name nearly duplicates one of `names` as
    /// [`Near::near_before`] decides it, the other way round: each of
    /// `names` probed under the hashes it would be filed under, each id found
    /// handed to `f` with that name and whether their keys are equal (else
    /// they are one edit apart or their words reordered, and the filed key
    /// has [`EDIT_MIN`] characters or more; an id may come more than once).
    /// How a few filed names are checked against many others without filing
    /// those.
    pub fn matching<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
        f: &mut dyn FnMut(u32, bool, &'a str),
    ) {
        let mut chars = Vec::new();
        for name in names {
            key_chars(name, &mut chars);
            let n = chars.len();
            let filed_as = deletions(&chars).filter(|&skip| n + 1 >= EDIT_MIN || skip == n);
            for h in filed_as.map(|skip| hash(&chars, skip)) {
                for id in self.under(h) {
                    let k = &*self.keys[id as usize];
                    if k == chars.as_slice() {
                        f(id, true, name);
                    } else if k.len() >= EDIT_MIN && one_typo(k, &chars) {
                        f(id, false, name);
                    }
                }
            }
            if let Some(w) = words_key(name).filter(|_| n >= EDIT_MIN) {
                let found = self.under(hash(&w, w.len()));
                for id in found.filter(|&id| self.reordered(id, &chars, &w)) {
                    f(id, false, name);
                }
            }
        }
    }
}

/// Whether key `a` is one edit of a letter or sign from key `b` and long
/// enough for that to count ([`EDIT_MIN`]): the test [`Near::near_before`]
/// applies to its candidates, for callers that scan a few names directly.
pub fn one_edit(a: &[char], b: &[char]) -> bool {
    a.len() >= EDIT_MIN && one_typo(a, b)
}

/// The keys of `name`'s words, sorted, joined by spaces (a key holds none),
/// when it has two words or more and no digit: "Martin  Alice" and "alice
/// martin" both give "alice martin". A numbered name has none: "Table 3
/// Seat 4" and "Table 4 Seat 3" are two seats.
pub fn words_key(name: &str) -> Option<Box<[char]>> {
    // Most names are one word: no key, no allocation.
    let trimmed = name.trim();
    if !trimmed.contains(char::is_whitespace) {
        return None;
    }
    let mut words: Vec<String> = trimmed
        .split_whitespace()
        .map(key)
        .filter(|k| !k.is_empty())
        .collect();
    // Digits as keys have them (a full-width "３" is a "3").
    let numbered = words
        .iter()
        .any(|w| w.contains(|c: char| c.is_ascii_digit()));
    if words.len() < 2 || numbered {
        return None;
    }
    words.sort_unstable();
    Some(words.join(" ").chars().collect())
}

/// Whether names `a` and `b` are the same words in another order, their
/// keys different and of [`EDIT_MIN`] characters or more: the test
/// [`Near::near_before`] applies, for callers that scan a few names.
pub fn reordered(a: &str, b: &str) -> bool {
    let (ka, kb) = (key(a), key(b));
    ka != kb
        && ka.chars().count() >= EDIT_MIN
        && words_key(a).is_some_and(|w| Some(w) == words_key(b))
}

/// The hashes of `chars` and of each of its distinct one-character
/// deletions: within a run of equal characters every deletion leaves the same
/// string, so only the run's first is hashed (a numbered name such as
/// `m00001j` would otherwise be filed, and probed, four times under one hash,
/// and each of its candidates found four times).
fn variants(chars: &[char]) -> impl Iterator<Item = u64> + '_ {
    deletions(chars).map(move |skip| hash(chars, skip))
}

/// The places whose deletion [`variants`] hashes, then the length (no
/// deletion).
fn deletions(chars: &[char]) -> impl Iterator<Item = usize> + '_ {
    let first_of_run = |skip: usize| skip == 0 || chars.get(skip) != chars.get(skip - 1);
    (0..=chars.len()).filter(move |&skip| skip == chars.len() || first_of_run(skip))
}

/// FNV-1a over the characters but the one at `skip` (none when `skip` is
/// the length).
fn hash(chars: &[char], skip: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, &c) in chars.iter().enumerate() {
        if i != skip {
            h ^= u64::from(c);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Whether keys `a` and `b` are at most one edit apart (a substitution, an
/// insertion, a deletion, or two neighbouring characters swapped: "Alcie"
/// for "Alice"), that edit not of a digit: a digit replaced by a digit, a
/// digit inserted or deleted, or a swap with a digit in it, is no typo
/// ("Table 12" and "Table 21" are two tables). After the common prefix, the
/// first character that differs is the substituted one, or the inserted one
/// (within a run of equal characters any position of the run gives the same
/// character), or the first of the two swapped; the rest must then be equal.
/// A swap shares a deletion with its original (both without the same one of
/// the two swapped characters: "alice" and "alcie" both give "alce"), so the
/// index finds it as a candidate.
fn one_typo(a: &[char], b: &[char]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let p = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    let digit = |c: &char| c.is_ascii_digit();
    if short.len() != long.len() {
        return short[p..] == long[p + 1..] && !digit(&long[p]);
    }
    if p == short.len() {
        return true;
    }
    let substituted = short[p + 1..] == long[p + 1..] && !(digit(&short[p]) && digit(&long[p]));
    let swapped = p + 1 < short.len()
        && (short[p], short[p + 1]) == (long[p + 1], long[p])
        && short[p + 2..] == long[p + 2..]
        && !(digit(&short[p]) || digit(&long[p]));
    substituted || swapped
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Near {
        /// The earliest of [`Near::near_before`] among every name.
        fn find(&self, name: &str) -> Option<u32> {
            self.near_before(name, u32::MAX).first().copied()
        }
    }

    #[test]
    fn find_matches_one_edit_for_long_names_and_only_equal_keys_for_short() {
        let n = Near::new(["Ada Lovelace", "Bob", "p00001"]);
        assert_eq!(n.find("Ada Lovelce"), Some(0), "a deletion");
        assert_eq!(n.find("Ada Lovelacee"), Some(0), "an insertion");
        assert_eq!(n.find("Ada Lovelack"), Some(0), "a substitution");
        assert_eq!(n.find("Ada Lovelck"), None, "two edits");
        assert_eq!(n.find("bob"), Some(1));
        assert_eq!(n.find("Rob"), None, "short names need equal keys");
        assert_eq!(n.find("p0000l"), Some(2), "a letter for a digit");
        assert_eq!(n.find("p00002"), None, "a digit for a digit");
        assert_eq!(n.find("p000017"), None, "a digit inserted");
        assert_eq!(n.find("p00001x"), Some(2), "a letter inserted");
        assert_eq!(
            n.find("p0001"),
            None,
            "a 5-character key needs an equal key"
        );
        assert_eq!(n.find("Charles Babbage"), None);
        assert_eq!(n.find("Ada Lovelaec"), Some(0), "a swap of neighbours");
        assert_eq!(n.find("Ada Lovleace"), Some(0), "a swap of neighbours");
        assert_eq!(n.find("dAa Lovelace"), Some(0), "a swap at the start");
        assert_eq!(n.find("Ada Lovelcea"), None, "two swaps");
        assert_eq!(n.find("p00010"), None, "two digits swapped");
        let w = Near::new(["Alice Martin", "Li Bo", "Kenji Ito"]);
        assert_eq!(w.find("Martin Alice"), Some(0), "words in another order");
        assert_eq!(w.find(" martin  ALICE"), Some(0), "words, case and spaces");
        assert_eq!(w.find("Ito Kenji"), Some(2));
        assert_eq!(w.find("Bo Li"), None, "a short key needs an equal key");
        assert_eq!(w.find("Martin Alice Jr"), None, "a word more");
        assert_eq!(w.find("Alicemartin"), Some(0), "the same key");
        let t = Near::new(["Table 3 Seat 4", "Round 1 Table 2"]);
        assert_eq!(t.find("Table 4 Seat 3"), None, "numbered names");
        assert_eq!(t.find("Round 2 Table 1"), None, "numbered names");
        let wide = Near::new(["Table \u{FF13} Seat \u{FF14}"]);
        assert_eq!(
            wide.find("Table \u{FF14} Seat \u{FF13}"),
            None,
            "full-width digits"
        );
        assert!(reordered("Ito Kenji", "Kenji Ito") && !reordered("Kenji Ito", "kenji ito"));
        assert_eq!(n.find("p0001"), None);
        assert!(
            n.near_before("ada lovelace", 0).is_empty(),
            "only earlier ids"
        );
        assert_eq!(n.near_before("ada lovelace", 1), [0]);
        let n = Near::new([
            "Ada Lovelace",
            "ada lovelace",
            "Ada Lovelac",
            "Ada Lovelace",
        ]);
        assert_eq!(
            n.near_before("ADA LOVELACE", 4),
            [0, 1, 3, 2],
            "every one: the same key first"
        );
    }

    /// Names that often nearly duplicate each other: numbered ones with
    /// runs of equal digits (filed once a run), letters for digits, short
    /// words from a small alphabet, with case and spaces.
    fn names(n: usize) -> Vec<String> {
        let mut r = 7u64;
        let mut next = move || {
            r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (r >> 33) as usize
        };
        const WORDS: [&str; 5] = ["Alice", "Martin", "ito", "KENJI", "Ab"];
        (0..n)
            .map(|_| match next() % 4 {
                0 => format!("m{:05}{}", next() % 2000, ['a', 'b', 'l'][next() % 3]),
                3 => (0..2 + next() % 2)
                    .map(|_| WORDS[next() % 5])
                    .collect::<Vec<_>>()
                    .join(" "),
                1 => format!("p00{}0{}", next() % 100, ['0', 'o', 'O'][next() % 3]),
                _ => (0..4 + next() % 5)
                    .map(|_| ['a', 'b', 'B', ' ', '1'][next() % 5])
                    .collect(),
            })
            .collect()
    }

    /// The index (its buckets, the deletions filed once a run) answers as a
    /// scan of every earlier name does: those with the same key, then, for a
    /// key of `EDIT_MIN` characters or more, those one edit apart.
    #[test]
    fn near_before_answers_as_a_scan_of_every_earlier_name() {
        let names = names(3000);
        let keys: Vec<Vec<char>> = names.iter().map(|n| key(n).chars().collect()).collect();
        let near = Near::new(names.iter().map(String::as_str));
        let (mut same, mut typo, mut words) = (0, 0, 0);
        for (i, name) in names.iter().enumerate() {
            let k = &keys[i];
            let earlier = || keys[..i].iter().enumerate();
            let mut scan: Vec<usize> = earlier().filter(|(_, o)| *o == k).map(|(j, _)| j).collect();
            if k.len() >= EDIT_MIN {
                let near = |j: usize, o: &Vec<char>| one_typo(k, o) || reordered(name, &names[j]);
                let typo = earlier().filter(|&(j, o)| o != k && near(j, o));
                scan.extend(typo.map(|(j, _)| j));
            }
            let got: Vec<usize> = (near.near_before(name, i as u32).into_iter())
                .map(|id| id as usize)
                .collect();
            assert_eq!(got, scan, "{name:?} (id {i})");
            match scan.first().map(|&j| keys[j] == *k) {
                Some(true) => same += 1,
                Some(false) => typo += 1,
                None => {}
            }
            let only_reordered = |&j: &usize| keys[j] != *k && !one_typo(k, &keys[j]);
            words += usize::from(scan.iter().any(only_reordered));
        }
        assert!(
            same > 300 && typo > 300 && words > 100,
            "{same} same, {typo} one edit apart or reordered ({words} reordered only)"
        );
    }
}
