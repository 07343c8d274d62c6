//! Pages rendered on two threads and handed on in order.
//!
//! [`in_order`] renders pages `0..n` of a list on two helper threads, one the
//! even pages, the other the odd ones, while the calling thread hands them to
//! the [`Put`] in list order, each as soon as the pages before it are handed
//! on. Rendering is a pure function of the page's index, so which thread
//! renders a page changes nothing in it, and the order pages reach [`Put`]
//! (and so the files and what the site reports) is the list's. Each helper
//! renders at most [`PAGES_AHEAD`] pages before the calling thread takes them,
//! and holds one more while it waits: at most `2 · (PAGES_AHEAD + 1)` pages wait in
//! memory. A list of one page is rendered on
//! the calling thread.

use std::sync::mpsc::sync_channel;

use super::Put;
use crate::error::{Error, Result};

/// Pages each helper thread renders before the calling thread takes them.
const PAGES_AHEAD: usize = 2;

/// A rendered page: its file name and HTML; `None` where the item makes no page.
pub(super) type Page = Option<(String, String)>;

/// Render pages `0..n` (`render(i)`) on two threads and hand each to `put`
/// in order (see the module docs). Returns the number of pages handed on.
pub(super) fn in_order(
    n: usize,
    render: &(dyn Fn(usize) -> Page + Sync),
    put: &mut Put<'_>,
) -> Result<usize> {
    let mut count = 0;
    let mut hand = |page: Page| -> Result<()> {
        if let Some((name, html)) = page {
            put(name, html)?;
            count += 1;
        }
        Ok(())
    };
    if n < 2 {
        (0..n).try_for_each(|i| hand(render(i)))?;
        return Ok(count);
    }
    std::thread::scope(|scope| {
        let rxs = [0, 1].map(|first| {
            let (tx, rx) = sync_channel::<Page>(PAGES_AHEAD);
            scope.spawn(move || {
                for i in (first..n).step_by(2) {
                    // The calling thread stopped (its `put` failed): so does this one.
                    if tx.send(render(i)).is_err() {
                        return;
                    }
                }
            });
            rx
        });
        for i in 0..n {
            let page = rxs[i % 2]
                .recv()
                .map_err(|_| Error::Internal("a page's rendering thread failed".into()))?;
            hand(page)?;
        }
        Ok(())
    })?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages reach `put` in list order whoever rendered them; items without
    /// a page are skipped; a failing `put` stops both threads with its error.
    #[test]
    fn pages_rendered_on_two_threads_arrive_in_order() {
        let render = |i: usize| (i % 5 != 3).then(|| (format!("p{i}"), format!("<{i}>")));
        let mut got = Vec::new();
        let n = in_order(100, &render, &mut |name, html| {
            got.push((name, html));
            Ok(())
        })
        .unwrap();
        let want: Vec<(String, String)> = (0..100).filter_map(render).collect();
        assert_eq!(n, 80);
        assert_eq!(got, want);
        let mut seen = 0;
        let stopped = in_order(100, &render, &mut |_, _| {
            seen += 1;
            if seen == 7 {
                return Err(Error::Storage("disk full".into()));
            }
            Ok(())
        });
        assert_eq!(
            stopped.unwrap_err().to_string(),
            Error::Storage("disk full".into()).to_string()
        );
        assert_eq!(seen, 7);
    }
}
