//! What the process knows about itself: the switches of its environment,
//! and its memory, for `bench` and memory tests.

/// Is the switch `name` on: set to anything but nothing or `0`? (So
/// `LAUREL_CHECKPOINT_TRACE=0` turns the trace off, as it reads.)
pub fn switch_on(name: &str) -> bool {
    is_on(std::env::var_os(name).as_deref())
}

fn is_on(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// Peak resident set size of this process in bytes (`VmHWM` of /proc/self/status),
/// or None where /proc is not available.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_switch_is_on_unless_unset_empty_or_0() {
        let at = |v: Option<&str>| super::is_on(v.map(std::ffi::OsStr::new));
        assert_eq!(
            [
                at(None),
                at(Some("")),
                at(Some("0")),
                at(Some("1")),
                at(Some("yes"))
            ],
            [false, false, false, true, true]
        );
    }

    #[test]
    fn peak_rss_is_positive_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(super::peak_rss_bytes().unwrap() > 0);
        }
    }
}
