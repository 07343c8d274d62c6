//! Near-duplicate names: the key two names share when they differ only in
//! case, accents or whitespace, and a lookup of the names one edit from a key.
//!
//! The lookup is a symmetric-deletion index: each key is filed under the
//! hash of itself and (for a key of 5 characters or more) of each of its
//! one-character deletions; two keys one edit apart (a substitution, an
//! insertion or a deletion) share one of those, so a lookup probes as many
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
//! An edit of a digit is not a typo: a digit replaced by another digit, or a
//! digit inserted or deleted, leaves two names that are both taken as meant.
//! Numbered names ("Table 1" and "Table 2", "bot-7" and "bot-17")
//! are distinct players, as sites that number their guests expect.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_security::confusable_detection::skeleton;

/// Names shorter than this (in characters of their key) are matched only
/// when their keys are equal, never one edit apart.
pub const EDIT_MIN: usize = 6;

/// The key of `name`: decomposed (NFD), combining marks dropped, whitespace
/// and the characters that show nothing dropped (the zero-width joiners and
/// variation selectors too), each character that is not ASCII written as
/// the one its capital looks like ([`looks_like`]), lower case. "Zoë  Smith"
/// and "zoe smith" share the key `zoesmith`, "ИВАН" and "Иван" share one
/// (`иbah`: Cyrillic "В" looks like a "B", its small "в" like no Latin
/// letter, so the capitals are compared), "Strauß" and "Strauss" one ("ß" is
/// "SS"), and so do "Bo" and "Bо" (a Cyrillic о): an impostor's name is a
/// typo of the name it copies.
pub fn key(name: &str) -> String {
    let mut chars = Vec::new();
    key_chars(name, &mut chars);
    chars.into_iter().collect()
}

/// [`key`] as characters, into `out` (cleared first): its memory is reused
/// when many names are keyed one after the other.
fn key_chars(name: &str, out: &mut Vec<char>) {
    out.clear();
    // ASCII decomposes to itself and has no combining marks.
    if name.is_ascii() {
        let kept = name.chars().filter(|c| !c.is_whitespace());
        out.extend(kept.map(|c| c.to_ascii_lowercase()));
    } else {
        let decomposed = name.nfd();
        let kept = decomposed
            .filter(|&c| !is_combining_mark(c) && !c.is_whitespace() && !shows_nothing(c));
        // Small then capital: "ẞ" has no capital form of its own but "ß"'s,
        // "SS", as "ß" has.
        let capitals = kept
            .flat_map(char::to_lowercase)
            .flat_map(char::to_uppercase);
        for c in capitals {
            looks_like(c, &mut |c| out.extend(c.to_lowercase()));
        }
    }
}

/// Do `a` and `b` differ only by characters that look alike (a Cyrillic
/// "о" for a Latin "o", a fullwidth "Ａ" for "A", a Greek "Ι" for an "I",
/// a Roman numeral "ⅿ" for an "m")? When either is not ASCII, both are
/// taken as their skeletons in Unicode's confusables (UTS #39), ASCII
/// included: the impostor's letters are compared with what the name it
/// copies looks like. Two ASCII names are told apart by their letters ("l"
/// and "I" are not the same player's). Case, spaces and accents show, so
/// they do not count.
pub fn look_alike(a: &str, b: &str) -> bool {
    let shown = |s: &str| skeleton(s).collect::<String>();
    a != b && !(a.is_ascii() && b.is_ascii()) && shown(a) == shown(b)
}

/// What `c` (a capital, where it has one) looks like: itself if ASCII, else
/// its prototype in Unicode's confusables (UTS #39 skeleton: Cyrillic "О"
/// and Greek "Ο" are "O", fullwidth "Ａ" is "A", the Roman numeral "Ⅿ" is
/// "M"), a Latin letter's without its marks ([`is_latin`]), handed to `f`; a prototype that is
/// an ASCII capital's is that capital (Greek "Ι" and Latin "I" share the
/// prototype "l"). ASCII characters keep themselves: the confusables would
/// make "l" of "I" and "1", and "Ivan" a typo of "lvan".
fn looks_like(c: char, f: &mut dyn FnMut(char)) {
    if c.is_ascii() {
        return f(c);
    }
    let mut buf = [0u8; 4];
    let latin = is_latin(c);
    let shape: Vec<char> = (skeleton(c.encode_utf8(&mut buf)))
        .filter(|&m| !(latin && is_combining_mark(m)))
        .collect();
    match (shape.is_empty(), capital_of_shape(&shape)) {
        // A character whose prototype is all marks keeps itself.
        (true, _) => f(c),
        (false, Some(capital)) => f(capital),
        (false, None) => shape.into_iter().for_each(f),
    }
}

/// Is `c` a letter of the Latin script (its blocks: Latin-1, Extended A to
/// E, Additional, fullwidth)? Its prototype's marks are accents, which a
/// key ignores ("Ø" is "O"); another script's letter keeps them, or
/// Cyrillic "Б" (prototype "b" with a macron) would be "В" (prototype "B").
fn is_latin(c: char) -> bool {
    matches!(c,
        '\u{00C0}'..='\u{024F}'
        | '\u{1E00}'..='\u{1EFF}'
        | '\u{2C60}'..='\u{2C7F}'
        | '\u{A720}'..='\u{A7FF}'
        | '\u{AB30}'..='\u{AB6F}'
        | '\u{FF21}'..='\u{FF3A}'
        | '\u{FF41}'..='\u{FF5A}')
}

/// The ASCII capital whose confusables prototype is `shape`, when that is
/// not the capital itself ("l" of "I").
fn capital_of_shape(shape: &[char]) -> Option<char> {
    type Shapes = Vec<(Vec<char>, char)>;
    static SHAPES: std::sync::OnceLock<Shapes> = std::sync::OnceLock::new();
    let shapes = SHAPES.get_or_init(|| {
        (b'A'..=b'Z')
            .map(char::from)
            .map(|c| (skeleton(c.encode_utf8(&mut [0u8; 4])).collect(), c))
            .filter(|(s, c): &(Vec<char>, char)| s.as_slice() != [*c])
            .collect()
    });
    (shapes.iter()).find_map(|(s, c)| (s.as_slice() == shape).then_some(*c))
}

/// Characters a key leaves out besides whitespace and combining marks:
/// those that show nothing ([`crate::events::invisible`]), the
/// zero-width joiners and the variation selectors.
fn shows_nothing(c: char) -> bool {
    crate::events::invisible(c)
        || matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

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
}

impl Near {
    /// The index of `names`, ids in their order.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Near {
        let keys: Vec<Box<[char]>> = names
            .into_iter()
            .map(|n| key(n).chars().collect())
            .collect();
        let mut filed = Vec::new();
        for (id, chars) in keys.iter().enumerate() {
            let id = u32::try_from(id).unwrap_or(u32::MAX);
            if chars.len() + 1 >= EDIT_MIN {
                filed.extend(variants(chars).map(|h| (h, id)));
            } else {
                filed.push((hash(chars, chars.len()), id));
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
        }
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
    /// does not count), each group in id order.
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
        typo.sort_unstable();
        typo.dedup();
        same.extend(typo);
        same
    }

    /// Every id whose name nearly duplicates one of `names` as
    /// [`Near::near_before`] decides it, the other way round: each of
    /// `names` probed under the hashes it would be filed under, each id found
    /// handed to `f` with that name and whether their keys are equal (else
    /// they are one edit apart, and the filed key has [`EDIT_MIN`]
    /// characters or more). How a few filed names are checked against many
    /// others without filing those.
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
        }
    }
}

/// Whether key `a` is one edit of a letter or sign from key `b` and long
/// enough for that to count ([`EDIT_MIN`]): the test [`Near::near_before`]
/// applies to its candidates, for callers that scan a few names directly.
pub fn one_edit(a: &[char], b: &[char]) -> bool {
    a.len() >= EDIT_MIN && one_typo(a, b)
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
/// insertion or a deletion), that edit not of a digit: a digit replaced by a
/// digit, or a digit inserted or deleted, is no typo. After the common
/// prefix, the first character that differs is the substituted one, or the
/// inserted one (within a run of equal characters any position of the run
/// gives the same character); the rest must then be equal.
fn one_typo(a: &[char], b: &[char]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let p = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    let digit = |c: &char| c.is_ascii_digit();
    if short.len() == long.len() {
        p == short.len()
            || (short[p + 1..] == long[p + 1..] && !(digit(&short[p]) && digit(&long[p])))
    } else {
        short[p..] == long[p + 1..] && !digit(&long[p])
    }
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
    fn keys_ignore_case_accents_and_whitespace() {
        assert_eq!(key("Claude  Shannon"), key("Claude Shannon"));
        assert_eq!(key("brian kernighan"), key("Brian Kernighan"));
        assert_eq!(key("Zoë Smith"), "zoesmith");
        assert_ne!(key("Ada Lovelce"), key("Ada Lovelace"));
    }

    #[test]
    fn keys_of_look_alike_letters_of_other_scripts_are_the_latin_ones() {
        assert_eq!(key("B\u{43e}"), key("Bo"), "Cyrillic o");
        assert_eq!(key("\u{392}\u{3bf}"), key("Bo"), "Greek Beta, omicron");
        assert_eq!(key("\u{ff21}da"), key("Ada"), "fullwidth A");
        assert_eq!(key("\u{130}van"), key("Ivan"), "I with a dot above");
        // ASCII keeps itself, and a script that looks like no Latin does too.
        assert_ne!(key("Ivan"), key("lvan"));
        assert_ne!(
            key("\u{5e9}\u{5dc}\u{5d5}\u{5dd}"),
            key("\u{5e9}\u{5dc}\u{5d9}")
        );
        assert_eq!(
            key("\u{5e9}\u{5dc}\u{5d5}\u{5dd}").chars().count(),
            4,
            "no letter lost"
        );
        assert_ne!(
            key("\u{41c}\u{438}\u{440}"),
            key("Mir"),
            "Cyrillic и looks like no Latin letter"
        );
    }

    #[test]
    fn keys_compare_capitals_in_every_script() {
        assert_eq!(key("Иван"), "иbah");
        assert_eq!(
            key("Søren"),
            key("Soren"),
            "a Latin letter's marks are accents"
        );
        assert_ne!(
            key("Вова"),
            key("Боба"),
            "Б looks like a b with a macron, В like a B"
        );
        for (a, b) in [
            ("Иван", "ИВАН"),
            ("Ολγα", "ΟΛΓΑ"),
            ("Александр Петров", "АЛЕКСАНДР ПЕТРОВ"),
            ("Γιώργος Παπαδόπουλος", "ΓΙΏΡΓΟΣ ΠΑΠΑΔΌΠΟΥΛΟΣ"),
            ("Strauss", "Strauß"),
            ("Oscar", "O\u{17f}car"),
            ("Ivan", "\u{399}van"),
            ("Sam", "Sa\u{217f}"),
            ("William Smith", "William S\u{217f}ith"),
            ("Weiß", "WEI\u{1e9e}"),
            ("Johann Strauß", "JOHANN STRAU\u{1e9e}"),
            ("Søren", "SØREN"),
        ] {
            assert_eq!(key(a), key(b), "{a} / {b}");
        }
    }

    #[test]
    fn a_name_of_other_scripts_looks_alike_an_ascii_one_by_both_skeletons() {
        assert!(look_alike("Ingrid", "\u{399}ngrid"), "Greek Iota");
        assert!(look_alike("Jim", "Ji\u{217f}"), "Roman numeral m");
        assert!(look_alike("Bo", "B\u{43e}"), "Cyrillic o");
        assert!(!look_alike("Ivan", "lvan"), "two ASCII names");
        assert!(!look_alike("ivan", "\u{399}van"), "case shows");
        assert!(!look_alike("Ivan", "Ivan"));
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
        assert_eq!(n.find("Ada Lovelaec"), None, "a transposition is two edits");
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
        (0..n)
            .map(|_| match next() % 3 {
                0 => format!("m{:05}{}", next() % 2000, ['a', 'b', 'l'][next() % 3]),
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
        let (mut same, mut typo) = (0, 0);
        for (i, name) in names.iter().enumerate() {
            let k = &keys[i];
            let earlier = || keys[..i].iter().enumerate();
            let mut scan: Vec<usize> = earlier().filter(|(_, o)| *o == k).map(|(j, _)| j).collect();
            if k.len() >= EDIT_MIN {
                let typo = earlier().filter(|(_, o)| *o != k && one_typo(k, o));
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
        }
        assert!(
            same > 300 && typo > 300,
            "{same} same, {typo} one edit apart"
        );
    }
}
