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
