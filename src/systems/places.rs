//! Places shared by equal keys: the competition ranks of a sorted table,
//! and the range of places each key of a result occupies.

/// Competition ranks (1, 2, 2, 4) of rows already sorted by `keys`: equal
/// keys share a rank.
pub(crate) fn ranks<K: PartialEq>(keys: &[K]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(keys.len());
    for (i, k) in keys.iter().enumerate() {
        let shared = i > 0 && keys[i - 1] == *k;
        out.push(if shared { out[i - 1] } else { i + 1 });
    }
    out
}

/// The 0-based places `(first, last)` each key occupies, greatest first, ties
/// sharing a range. Invariant: `first <= last < keys.len()`.
pub fn shared_places<K: PartialOrd>(keys: &[K]) -> Vec<(usize, usize)> {
    keys.iter()
        .map(|k| {
            let above = keys.iter().filter(|o| *o > k).count();
            let equal = keys.iter().filter(|o| *o == k).count();
            (above, above + equal - 1)
        })
        .collect()
}
