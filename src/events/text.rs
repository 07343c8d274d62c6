//! What an event's text may hold: printable characters only.

/// Is `c` a character no event string may hold? The C0 and C1 controls (a
/// newline, ESC, NUL...) and the bidirectional marks and overrides, which let
/// a name rewrite the terminal or the order of what is shown around it.
pub fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}')
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// The first [`forbidden`] character of `s`.
pub fn forbidden_char(s: &str) -> Option<char> {
    s.chars().find(|&c| forbidden(c))
}

/// The message for a string at `what` holding [`forbidden_char`] `c`.
pub(super) fn forbidden_message(what: &str, c: char) -> String {
    format!(
        "{what}: holds the control character U+{:04X}; names and text must be printable",
        c as u32
    )
}

/// How many single-character insertions, deletions or substitutions make `a`
/// into `b` (Levenshtein, by `strsim`), ignoring case.
pub fn edits(a: &str, b: &str) -> usize {
    strsim::levenshtein(&a.to_lowercase(), &b.to_lowercase())
}

/// The one of `known` nearest to `word`, for a "did you mean": at most two
/// edits away and fewer than half of `word`'s length (so a short word is
/// not matched to anything), the first of equals in `known`'s order.
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = 2.min(word.chars().count().saturating_sub(1) / 2);
    let scored = known.into_iter().map(|k| (edits(word, k), k));
    scored
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// [`closest`] as the end of an error message: `; did you mean "valar"?`, or
/// nothing when no known word is near.
pub fn did_you_mean<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, known)
        .map(|k| format!("; did you mean {k:?}?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_count_insertions_deletions_and_substitutions_ignoring_case() {
        assert_eq!(edits("valr", "valar"), 1);
        assert_eq!(edits("VALAR", "valar"), 0);
        assert_eq!(edits("kitten", "sitting"), 3);
        assert_eq!(edits("", "sbr"), 3);
        assert_eq!(edits("maia", ""), 4);
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
