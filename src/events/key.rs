//! The key of a name: what two spellings of one name share. Players' names
//! are compared by it (a typo'd or copied name is refused, not made a second
//! player), and so are the names an event lists side by side, such as a
//! Diplomacy game's powers.
//!
//! A key ignores case, accents, whitespace and the characters that show
//! nothing, and writes each letter of another script as the letter it looks
//! like; [`look_alike`] compares what two whole names look like.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_security::confusable_detection::skeleton;

/// The key of `name`: decomposed with its compatibility forms (NFKD: a
/// modifier letter "ᴬ" is an "A", a ligature "ﬁ" is "fi"), combining marks dropped, whitespace
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
pub(crate) fn key_chars(name: &str, out: &mut Vec<char>) {
    out.clear();
    // ASCII decomposes to itself and has no combining marks.
    if name.is_ascii() {
        let kept = name.chars().filter(|c| !c.is_whitespace());
        out.extend(kept.map(|c| c.to_ascii_lowercase()));
    } else {
        let decomposed = name.nfkd();
        let kept = decomposed
            .filter(|&c| !is_combining_mark(c) && !c.is_whitespace() && !shows_nothing(c));
        // Small then capital: "ẞ" has no capital form of its own but "ß"'s,
        // "SS", as "ß" has.
        let letters = kept
            .flat_map(char::to_lowercase)
            .flat_map(|small| small.to_uppercase().map(move |capital| (small, capital)));
        for (small, capital) in letters {
            // A capital that looks like nothing else ("Ɑ") leaves the small
            // letter to say which ASCII one it looks like (Latin alpha "ɑ":
            // an "a").
            let c = match unmapped(capital) && looks_ascii(small) {
                true => small,
                false => capital,
            };
            looks_like(c, &mut |c| out.extend(c.to_lowercase()));
        }
    }
}

/// Is `c` a character the confusables map to nothing else (its skeleton is
/// itself)? ASCII is, here.
fn unmapped(c: char) -> bool {
    let mut buf = [0u8; 4];
    c.is_ascii() || small_capital(c).is_none() && skeleton(c.encode_utf8(&mut buf)).eq([c])
}

/// Is `c` a character that is not ASCII but that the confusables write as
/// ASCII ("ɑ" as "a")?
fn looks_ascii(c: char) -> bool {
    let mut buf = [0u8; 4];
    !c.is_ascii() && skeleton(c.encode_utf8(&mut buf)).all(|m| m.is_ascii())
}

/// Do `a` and `b` differ only by characters that look alike (a Cyrillic
/// "о" for a Latin "o", a fullwidth "Ａ" for "A", a Greek "Ι" for an "I",
/// a Roman numeral "ⅿ" for an "m", a small capital "ʙ" for a "B", a
/// modifier letter "ᴬ" for an "A")? When either is not ASCII, both are
/// taken as their skeletons in Unicode's confusables (UTS #39) after their
/// compatibility decomposition (NFKD) and small capitals as their letters,
/// ASCII included: the impostor's letters are compared with what the name it
/// copies looks like. Two ASCII names are told apart by their letters ("l"
/// and "I" are not the same player's). Case, spaces and accents show, so
/// they do not count.
pub fn look_alike(a: &str, b: &str) -> bool {
    let small_capitals =
        |s: &str| -> String { s.nfkd().map(|c| small_capital(c).unwrap_or(c)).collect() };
    let shown = |s: &str| skeleton(&small_capitals(s)).collect::<String>();
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
    if let Some(capital) = small_capital(c) {
        return f(capital);
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

/// The ASCII capital a Latin small capital ("ᴀ", "ʀ") is written for: it
/// shows as the letter in small print, and the confusables leave most of
/// them as they are. Those with a capital of their own ("ɪ": "Ɪ") are
/// given it by the key first, so it is here too.
fn small_capital(c: char) -> Option<char> {
    const SMALL: [(char, char); 27] = [
        ('\u{1D00}', 'A'),
        ('\u{0299}', 'B'),
        ('\u{1D04}', 'C'),
        ('\u{1D05}', 'D'),
        ('\u{1D07}', 'E'),
        ('\u{A730}', 'F'),
        ('\u{0262}', 'G'),
        ('\u{029C}', 'H'),
        ('\u{026A}', 'I'),
        ('\u{A7AE}', 'I'),
        ('\u{1D0A}', 'J'),
        ('\u{1D0B}', 'K'),
        ('\u{029F}', 'L'),
        ('\u{1D0D}', 'M'),
        ('\u{0274}', 'N'),
        ('\u{1D0F}', 'O'),
        ('\u{1D18}', 'P'),
        ('\u{A7AF}', 'Q'),
        ('\u{0280}', 'R'),
        ('\u{01A6}', 'R'),
        ('\u{A731}', 'S'),
        ('\u{1D1B}', 'T'),
        ('\u{1D1C}', 'U'),
        ('\u{1D20}', 'V'),
        ('\u{1D21}', 'W'),
        ('\u{028F}', 'Y'),
        ('\u{1D22}', 'Z'),
    ];
    SMALL
        .iter()
        .find(|(s, _)| *s == c)
        .map(|(_, capital)| *capital)
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
    crate::events::invisible(c) || super::text::joins(c)
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
    fn keys_of_small_capitals_are_their_letters() {
        assert_eq!(key("\u{1D00}nn"), key("Ann"));
        assert_eq!(key("\u{0280}\u{026A}\u{1D04}\u{1D0B}"), "rick");
    }

    #[test]
    fn keys_of_compatibility_forms_and_small_letters_whose_capital_looks_like_nothing() {
        assert_eq!(key("An\u{251}"), key("Ana"), "Latin alpha");
        assert_eq!(key("\u{1D2C}na"), key("Ana"), "modifier letter capital A");
        assert_eq!(key("\u{FB01}n"), key("Fin"), "ligature fi");
        assert_ne!(
            key("\u{431}\u{43e}\u{431}"),
            key("bob"),
            "Cyrillic б looks like no b"
        );
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
        assert!(look_alike("Boris", "\u{299}oris"), "small capital B");
        assert!(look_alike("Ana", "\u{1D2C}na"), "modifier letter capital A");
        assert!(!look_alike("Ivan", "lvan"), "two ASCII names");
        assert!(!look_alike("ivan", "\u{399}van"), "case shows");
        assert!(!look_alike("Ivan", "Ivan"));
    }
}
