//! Which states a ZIP code belongs to, by its first three digits: enough to tell that `07520` is a New Jersey
//! ZIP and not a Texas one. The table (`zip3_states.csv`, 933 prefixes, 11 KB) is derived from
//! `shared/data/zip_states.csv` by `scripts/zip3-states.sh` and compiled in.
use std::sync::OnceLock;

static TABLE: &str = include_str!("zip3_states.csv");

/// Prefix -> space-separated state codes, sorted by prefix.
fn table() -> &'static [(&'static str, &'static str)] {
    static PARSED: OnceLock<Vec<(&'static str, &'static str)>> = OnceLock::new();
    PARSED.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once(','))
            .collect()
    })
}

/// The states whose ZIPs start as `zip` does (`"TX"`, `"AR MO"`), or None when no issued ZIP starts so.
pub fn zip_states(zip: &str) -> Option<&'static str> {
    let prefix = zip.get(..3)?;
    let table = table();
    table
        .binary_search_by(|(p, _)| (*p).cmp(prefix))
        .ok()
        .and_then(|i| table.get(i))
        .map(|(_, states)| *states)
}

/// Whether `zip` belongs to the state `code` (upper case); None when its prefix is not an issued one.
pub fn zip_in_state(zip: &str, code: &str) -> Option<bool> {
    zip_states(zip).map(|states| states.split(' ').any(|s| s == code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_name_their_states() {
        assert_eq!(zip_states("78701"), Some("TX"));
        assert_eq!(zip_states("07520"), Some("NJ"));
        assert_eq!(zip_states("02134-1234"), Some("MA"));
        assert_eq!(zip_states("72643"), Some("AR MO"));
        assert_eq!(zip_states("72501"), Some("AR"));
        assert_eq!(zip_states("00000"), None);
        assert_eq!(zip_states("12"), None);
        assert_eq!(zip_in_state("07520", "TX"), Some(false));
        assert_eq!(zip_in_state("07520", "NJ"), Some(true));
        assert_eq!(zip_in_state("72643", "MO"), Some(true));
        assert_eq!(
            zip_in_state("99999", "AK"),
            zip_states("99999").map(|s| s.contains("AK"))
        );
    }

    #[test]
    fn the_table_is_sorted_and_whole() {
        let t = table();
        assert!(t.len() > 900);
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
