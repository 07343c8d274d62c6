//! What an event's text may hold: printable characters only.

/// Is `c` a character no event string may hold? The C0 and C1 controls (a
/// newline, ESC, NUL...), the bidirectional marks and overrides, which let
/// a name rewrite the terminal or the order of what is shown around it, the
/// line and paragraph separators, the [`invisible`] characters, which
/// make two names or ids that look the same (`t1` and `t1` + U+200B), the
/// noncharacters and private-use characters (no font shows the same thing
/// for everyone, if anything), and the prepended format marks (U+0600-0605,
/// U+06DD, U+070F, U+0890-0891, U+08E2, U+110BD, U+110CD), which belong to
/// the digits of a number, not to a name.
pub fn forbidden(c: char) -> bool {
    c.is_control() || kind(c).is_some()
}

/// What a non-control forbidden character is, in words.
fn kind(c: char) -> Option<&'static str> {
    match c {
        '\u{200E}'
        | '\u{200F}'
        | '\u{061C}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => Some("bidirectional mark"),
        '\u{2028}' | '\u{2029}' => Some("line separator"),
        c if invisible(c) => Some("invisible character"),
        '\u{FDD0}'..='\u{FDEF}' => Some("noncharacter"),
        c if (c as u32) & 0xFFFE == 0xFFFE => Some("noncharacter"),
        '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{10FFFF}' => Some("private-use character"),
        '\u{600}'..='\u{605}'
        | '\u{6DD}'
        | '\u{70F}'
        | '\u{890}'
        | '\u{891}'
        | '\u{8E2}'
        | '\u{110BD}'
        | '\u{110CD}' => Some("format mark"),
        _ => None,
    }
}

/// A character that shows nothing and joins nothing: Unicode's default
/// ignorable code points (zero-width spaces, the word joiner and its kin,
/// the byte-order mark, the soft hyphen, the combining grapheme joiner, the
/// Hangul fillers, the musical and shorthand format controls, the tag
/// characters), the interlinear annotation marks and the blank braille
/// pattern U+2800. Left out: the zero-width
/// joiners U+200C and U+200D and the variation selectors, which some scripts,
/// emoji and ideographs need (a player name's near-duplicate key ignores
/// them).
pub fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{AD}'
            | '\u{34F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180E}'
            | '\u{200B}'
            | '\u{2060}'..='\u{206F}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E00FF}'
            | '\u{E01F0}'..='\u{E0FFF}'
    )
}

/// The first [`forbidden`] character of `s`. Every string of every event
/// passes here, so only a string holding the lead byte of a forbidden
/// character ([`may_lead_forbidden`]) is read character by character.
pub fn forbidden_char(s: &str) -> Option<char> {
    if !s.bytes().any(may_lead_forbidden) {
        return None;
    }
    s.chars().find(|&c| forbidden(c))
}

/// Can a [`forbidden`] character's UTF-8 start with byte `b`? A C0 control
/// or DEL, a C1 control or U+00AD (0xC2), U+034F (0xCD), U+061C and the
/// number marks (0xD8, 0xDB, 0xDC), and those of the blocks of the other
/// invisible characters, marks, noncharacters and private-use characters
/// (0xE0 to 0xE3, 0xEE, 0xEF, 0xF0 to 0xF4).
pub(super) const fn may_lead_forbidden(b: u8) -> bool {
    matches!(
        b,
        0x00..=0x1F
            | 0x7F
            | 0xC2
            | 0xCD
            | 0xD8
            | 0xDB
            | 0xDC
            | 0xE0..=0xE3
            | 0xEE
            | 0xEF
            | 0xF0..=0xF4
    )
}

/// The message for a string at `what` holding [`forbidden_char`] `c`.
pub fn forbidden_message(what: &str, c: char) -> String {
    format!(
        "{what}: holds the {} U+{:04X}; names and text must be printable",
        kind(c).unwrap_or("control character"),
        c as u32
    )
}

/// An identifier as written: not empty, not only whitespace, no whitespace
/// at either end (`"t1 "` and `"t1"` would look the same in every table and
/// message, yet name two things), and something that [`shows`]. `what()`
/// opens the message (made only for one).
pub fn unpadded(what: impl Fn() -> String, s: &str) -> Result<(), String> {
    let trimmed = s.trim();
    if trimmed.is_empty() {
        return Err(format!("{} must not be empty or only whitespace", what()));
    }
    if trimmed.len() != s.len() {
        return Err(format!(
            "{} {s:?} begins or ends with whitespace: write {trimmed:?}",
            what()
        ));
    }
    match s.chars().any(shows) {
        true => Ok(()),
        false => Err(format!(
            "{} {s:?} shows nothing: it holds only combining marks, joiners or \
             variation selectors",
            what()
        )),
    }
}

/// Does `c` show on its own: not whitespace, a combining mark (an accent
/// over nothing), a zero-width joiner or non-joiner, or a variation
/// selector? A name or identifier needs one such character.
pub fn shows(c: char) -> bool {
    !(c.is_whitespace() || unicode_normalization::char::is_combining_mark(c) || joins(c))
}

/// Is `c` a zero-width joiner or non-joiner, or a variation selector: a
/// character that changes how its neighbours show and shows nothing itself?
pub fn joins(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// The most edits a "did you mean" reaches from a word of `len`
/// characters: two, and fewer than half its length (so a short word is not
/// matched to anything).
pub fn edit_limit(len: usize) -> usize {
    2.min(len.saturating_sub(1) / 2)
}

/// The words of `known` nearest to `word`, for a "did you mean": each
/// compared as `spell` writes it (case folded; a player's name by its
/// [`super::key::key`]), at most [`edit_limit`] edits from `word` so
/// written; nearest first, equals in `known`'s order, at most `max`.
pub fn nearest<'a>(
    word: &str,
    known: impl IntoIterator<Item = &'a str>,
    spell: fn(&str) -> String,
    max: usize,
) -> Vec<&'a str> {
    let word = spell(word);
    let limit = edit_limit(word.chars().count());
    let scored = known
        .into_iter()
        .map(|k| (strsim::levenshtein(&word, &spell(k)), k));
    let mut near: Vec<(usize, &str)> = scored.filter(|&(d, _)| d <= limit).collect();
    near.sort_by_key(|&(d, _)| d);
    near.into_iter().take(max).map(|(_, k)| k).collect()
}

/// The one of `known` nearest to `word`, case aside ([`nearest`]).
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    nearest(word, known, str::to_lowercase, 1).pop()
}

/// [`closest`] as the end of an error message: `; did you mean "valar"?`, or
/// nothing when no known word is near.
pub fn did_you_mean<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, known)
        .map(|k| format!("; did you mean {k:?}?"))
        .unwrap_or_default()
}

/// [`did_you_mean`] for an event type: the nearest of `types`, else the
/// one whose name (after its namespace) is `kind`'s (`match_result` for
/// `cards.match_result`), else the one of `kind`'s namespace whose name
/// holds `kind`'s (`cards.result` for `cards.match_result`).
pub fn did_you_mean_type<'a>(
    kind: &str,
    types: impl IntoIterator<Item = &'a str> + Clone,
) -> String {
    let near = did_you_mean(kind, types.clone());
    if !near.is_empty() {
        return near;
    }
    let lower = kind.to_lowercase();
    let (ns, name) = lower.split_once('.').unwrap_or(("", &lower));
    fn part(t: &str) -> (&str, &str) {
        t.split_once('.').unwrap_or(("", t))
    }
    let same_name = types.clone().into_iter().find(|t| part(t).1 == name);
    let holding = || {
        (types.into_iter())
            .find(|t| !name.is_empty() && part(t).0 == ns && part(t).1.contains(name))
    };
    same_name
        .or_else(holding)
        .map(|t| format!("; did you mean {t:?}?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_event_type_is_found_by_its_name_or_a_word_of_it() {
        let types = [
            "cards.match_result",
            "cards.round_scheduled",
            "sbr.game_played",
        ];
        let hint = |k| super::did_you_mean_type(k, types);
        assert_eq!(
            hint("cards.match_resul"),
            "; did you mean \"cards.match_result\"?"
        );
        assert_eq!(
            hint("match_result"),
            "; did you mean \"cards.match_result\"?"
        );
        assert_eq!(
            hint("cards.result"),
            "; did you mean \"cards.match_result\"?"
        );
        assert_eq!(hint("Game_Played"), "; did you mean \"sbr.game_played\"?");
        assert_eq!(hint("sbr.result"), "");
        assert_eq!(hint("cards."), "");
    }

    /// The shortcut of `forbidden_char` skips no forbidden character: each
    /// one's UTF-8 starts with a byte it looks closer at.
    #[test]
    fn every_forbidden_character_starts_with_a_byte_looked_at() {
        let mut buf = [0u8; 4];
        let forbidden = (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|&c| super::forbidden(c));
        for c in forbidden {
            let lead = c.encode_utf8(&mut buf).as_bytes()[0];
            assert!(super::may_lead_forbidden(lead), "U+{:04X}", c as u32);
            assert_eq!(super::forbidden_char(c.encode_utf8(&mut buf)), Some(c));
        }
    }

    use super::*;

    #[test]
    fn nearest_lists_the_closest_first_equals_in_the_order_given() {
        let known = ["Alice Marten", "Alice Martin", "Bob"];
        let lower = str::to_lowercase;
        assert_eq!(
            nearest("alice mart", known, lower, 3),
            ["Alice Marten", "Alice Martin"]
        );
        assert_eq!(
            nearest("alice martin", known, lower, 3),
            ["Alice Martin", "Alice Marten"]
        );
        assert_eq!(nearest("alice martin", known, lower, 1), ["Alice Martin"]);
        assert!(nearest("kitten", ["sitting"], lower, 3).is_empty());
    }

    #[test]
    fn closest_suggests_a_near_name_and_nothing_for_a_far_or_short_one() {
        let known = ["valar", "maia", "istari", "nations", "sbr", "sos"];
        assert_eq!(closest("valr", known), Some("valar"));
        assert_eq!(closest("istary", known), Some("istari"));
        assert_eq!(closest("Nation", known), Some("nations"));
        assert_eq!(closest("zzzzzz", known), None);
        // Two letters off a three-letter name is another word, not a typo.
        assert_eq!(closest("sb", known), None);
        assert_eq!(closest("xyz", known), None);
    }
}
