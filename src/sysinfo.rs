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
    vm_hwm(&std::fs::read_to_string("/proc/self/status").ok()?)
}

/// The `VmHWM` line of a /proc status text, in bytes.
fn vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
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
    fn vm_hwm_reads_kib_as_bytes_and_nothing_else() {
        let status = "Name:\tlaurel\nVmPeak:\t  9000 kB\nVmHWM:\t  1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(super::vm_hwm(status), Some(1234 * 1024));
        assert_eq!(super::vm_hwm("VmRSS:\t 1000 kB\n"), None);
        assert_eq!(super::vm_hwm("VmHWM:\t lots kB\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn peak_rss_is_positive_on_linux() {
        assert!(super::peak_rss_bytes().is_some_and(|b| b > 0));
    }
}
