//! Long tables over several pages: how many rows a page holds, the pages'
//! file names and the links between them (see the module docs of
//! [`crate::site`], "Pagination").

use maud::{html, Markup};

/// Rows of each table on one page: a page of the widest table (CFR's event
/// scores, about 300 bytes a row) stays near 300 KB.
pub const ROWS: usize = 1000;

/// The pages `rows` rows take: at least one, so an empty table has a page.
pub fn page_count(rows: usize) -> usize {
    rows.div_ceil(ROWS).max(1)
}

/// The page (from 1) holding row `row` (from 0).
pub fn page_of(row: usize) -> usize {
    row / ROWS + 1
}

/// The file of page `n` (from 1) of the pages whose first is `first`:
/// `first` itself, then `table-cfr_2.html`, `table-cfr_3.html`, ... for
/// `table-cfr.html`. A slug never holds `_`, so these names are nobody else's.
pub fn page_name(first: &str, n: usize) -> String {
    match n {
        0 | 1 => first.to_string(),
        n => format!("{}_{n}.html", first.trim_end_matches(".html")),
    }
}

/// The links between the `count` pages of `first`, on page `n`: first,
/// previous, the pages up to two away and the last, next; nothing when there
/// is one page.
pub fn pager(first: &str, n: usize, count: usize) -> Markup {
    if count <= 1 {
        return Markup::default();
    }
    let near = n.saturating_sub(2).max(1)..=(n + 2).min(count);
    let mut shown: Vec<usize> = near.collect();
    for end in [1, count] {
        if !shown.contains(&end) {
            shown.push(end);
        }
    }
    shown.sort_unstable();
    let gap = |i: usize| i > 0 && shown[i] > shown[i - 1] + 1;
    let link = |k: usize| page_name(first, k);
    html! {
        nav.pages aria-label="Pages" {
            "Page " (n) " of " (count) ":"
            @if n > 1 {
                " " a href=(link(1)) { "first" }
                " " a href=(link(n - 1)) rel="prev" { "previous" }
            }
            @for (i, &k) in shown.iter().enumerate() {
                @if gap(i) { " …" }
                " "
                @if k == n {
                    strong aria-current="page" { (k) }
                } @else {
                    a href=(link(k)) { (k) }
                }
            }
            @if n < count {
                " " a href=(link(n + 1)) rel="next" { "next" }
                " " a href=(link(count)) { "last" }
            }
        }
        "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_counted_named_and_linked() {
        assert_eq!(page_count(0), 1);
        assert_eq!(page_count(ROWS), 1);
        assert_eq!(page_count(ROWS + 1), 2);
        assert_eq!((page_of(0), page_of(ROWS - 1), page_of(ROWS)), (1, 1, 2));
        assert_eq!(page_name("table-cfr.html", 1), "table-cfr.html");
        assert_eq!(page_name("table-cfr.html", 12), "table-cfr_12.html");
        assert_eq!(pager("t.html", 1, 1).into_string(), "");
        let p = pager("t.html", 6, 20).into_string();
        assert!(p.starts_with("<nav class=\"pages\" aria-label=\"Pages\">Page 6 of 20: "));
        assert!(p.contains("<a href=\"t.html\">first</a> <a href=\"t_5.html\" rel=\"prev\">previous</a> <a href=\"t.html\">1</a> … <a href=\"t_4.html\">4</a>"));
        assert!(p.contains("<strong aria-current=\"page\">6</strong> <a href=\"t_7.html\">7</a> <a href=\"t_8.html\">8</a> … <a href=\"t_20.html\">20</a> <a href=\"t_7.html\" rel=\"next\">next</a> <a href=\"t_20.html\">last</a></nav>"));
        let first = pager("t.html", 1, 2).into_string();
        assert!(!first.contains("previous") && first.contains("rel=\"next\""));
        assert!(!pager("t.html", 2, 2).into_string().contains("next"));
    }
}
