//! What the process knows about itself, for `bench` and memory tests.

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
    fn peak_rss_is_positive_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(super::peak_rss_bytes().unwrap() > 0);
        }
    }
}
