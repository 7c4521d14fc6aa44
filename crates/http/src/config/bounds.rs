//! The range of every numeric configuration variable. A value outside it stops the start with one
//! line naming the variable, rather than a service that panics later (a retry schedule scaled past
//! what a date can hold) or quietly does nothing (a zero-byte body limit, a zero lease).
//! README's configuration table states the same ranges (a test holds the two together).
use std::ops::RangeInclusive;

use leadhub_domain::webhook::ENDPOINTS_PER_TEAM;

use super::ConfigError;

/// A whole-number variable: its name, default and range.
pub struct Bound {
    pub variable: &'static str,
    pub default: u64,
    pub range: RangeInclusive<u64>,
}

const fn bound(variable: &'static str, default: u64, range: RangeInclusive<u64>) -> Bound {
    Bound {
        variable,
        default,
        range,
    }
}

/// Every whole-number variable. 0 is in the range only where it means "off" or "none".
pub const WHOLE_NUMBERS: &[Bound] = &[
    bound("LEADHUB_RATE_LIMIT_PER_KEY_HOUR", 1000, 0..=1_000_000),
    bound("LEADHUB_RATE_LIMIT_PER_IP_MINUTE", 100, 0..=1_000_000),
    bound("LEADHUB_MAIL_PER_ADDRESS_MINUTE", 1, 0..=1000),
    bound("LEADHUB_MAIL_PER_ADDRESS_HOUR", 5, 0..=10_000),
    // 0: `leadhub serve` runs no job worker (another process does the background work).
    bound("LEADHUB_WORKERS", 2, 0..=64),
    // Below 1 KiB not even a single lead fits; above 1 GiB one request could hold the memory.
    bound("LEADHUB_BODY_LIMIT", 8 << 20, 1024..=1 << 30),
    // Days an invite stays open: none would make invites born expired.
    bound("LEADHUB_INVITE_TTL_DAYS", 7, 1..=365),
    // A lease of 0 s would hand every running job to the next worker at once.
    bound("LEADHUB_JOB_LEASE_SECS", 60, 1..=86_400),
    // Under 10 ms an idle worker would spin on the database.
    bound("LEADHUB_JOB_POLL_MS", 5000, 10..=3_600_000),
    // Enrichment retries give up this long after their job was queued: at least a minute (one
    // retry), at most 30 days (a lead that waits a month is better told it gave up).
    bound("LEADHUB_ENRICHMENT_GIVE_UP_SECS", 86_400, 60..=2_592_000),
    // Each endpoint multiplies every event of its team into a delivery (docs/webhooks.md).
    bound(
        "LEADHUB_WEBHOOK_ENDPOINTS_PER_TEAM",
        ENDPOINTS_PER_TEAM as u64,
        1..=1000,
    ),
    // A UTC hour; `off` (read before this bound) sends no e-mail of follow-ups due.
    bound("LEADHUB_FOLLOW_UP_DIGEST_HOUR", 13, 0..=23),
    // The default follows the backend (`Config::from_vars`); this one is SQLite's.
    bound("LEADHUB_DB_POOL_SIZE", 8, 1..=1000),
];

/// `LEADHUB_WEBHOOK_RETRY_SCALE`, the one fractional variable: the tests shrink the schedule a
/// thousandfold; a hundredfold longer already waits 40 days between the last tries.
pub const RETRY_SCALE: RangeInclusive<f64> = 0.0001..=100.0;

/// The bound of `variable` (a name from `WHOLE_NUMBERS`).
fn of(variable: &'static str) -> &'static Bound {
    WHOLE_NUMBERS
        .iter()
        .find(|b| b.variable == variable)
        .unwrap_or(&WHOLE_NUMBERS[0])
}

/// `value` of `variable` (its default when unset), checked against its range.
pub(super) fn whole_number(
    variable: &'static str,
    value: Option<String>,
) -> Result<u64, ConfigError> {
    let bound = of(variable);
    let Some(v) = value else {
        return Ok(bound.default);
    };
    match v.parse::<u64>() {
        Ok(n) if bound.range.contains(&n) => Ok(n),
        _ => Err(ConfigError {
            variable,
            problem: format!(
                "{v:?} is not a whole number from {} to {}",
                bound.range.start(),
                bound.range.end()
            ),
        }),
    }
}

/// The webhook retry scale (1 when unset).
pub(super) fn retry_scale(value: Option<String>) -> Result<f64, ConfigError> {
    let Some(v) = value else {
        return Ok(1.0);
    };
    match v.parse::<f64>() {
        Ok(f) if RETRY_SCALE.contains(&f) => Ok(f),
        _ => Err(ConfigError {
            variable: "LEADHUB_WEBHOOK_RETRY_SCALE",
            problem: format!(
                "{v:?} is not a number from {} to {}",
                RETRY_SCALE.start(),
                RETRY_SCALE.end()
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use crate::config::Config;

    use super::*;

    fn start_with(variable: &str, value: &str) -> Result<Config, ConfigError> {
        let vars = HashMap::from([(variable.to_owned(), value.to_owned())]);
        Config::from_vars(&vars)
    }

    fn refused(variable: &str, value: &str) {
        let e = start_with(variable, value).expect_err(&format!("{variable}={value}"));
        assert_eq!(e.variable, variable, "{value}");
        let line = e.to_string();
        assert!(line.starts_with(&format!("{variable}: ")), "{line}");
        assert_eq!(line.lines().count(), 1, "{line}");
    }

    #[test]
    fn every_whole_number_is_bounded() {
        for b in WHOLE_NUMBERS {
            let (low, high) = (*b.range.start(), *b.range.end());
            for fine in [low, high, b.default] {
                assert!(
                    start_with(b.variable, &fine.to_string()).is_ok(),
                    "{}={fine}",
                    b.variable
                );
            }
            if low > 0 {
                refused(b.variable, &(low - 1).to_string());
            }
            refused(b.variable, &(high + 1).to_string());
            for bad in ["-1", "1.5", "1e3", "many", "99999999999999999999999"] {
                refused(b.variable, bad);
            }
        }
        // The findings that made this table.
        for (variable, value) in [
            ("LEADHUB_BODY_LIMIT", "0"),
            ("LEADHUB_JOB_LEASE_SECS", "0"),
            ("LEADHUB_JOB_POLL_MS", "0"),
            ("LEADHUB_WEBHOOK_RETRY_SCALE", "1e15"),
        ] {
            refused(variable, value);
        }
    }

    #[test]
    fn the_retry_scale_is_bounded() {
        for fine in ["0.0001", "0.001", "1", "100"] {
            assert!(
                start_with("LEADHUB_WEBHOOK_RETRY_SCALE", fine).is_ok(),
                "{fine}"
            );
        }
        for bad in ["0", "-1", "0.00009", "100.1", "1e15", "inf", "NaN", "fast"] {
            refused("LEADHUB_WEBHOOK_RETRY_SCALE", bad);
        }
    }

    #[test]
    fn the_readme_states_every_range() {
        let readme = include_str!("../../../../README.md");
        let row = |variable: &str| {
            readme
                .lines()
                .find(|l| l.starts_with('|') && l.contains(&format!("`{variable}`")))
                .unwrap_or_else(|| panic!("README has no row for {variable}"))
                .to_owned()
        };
        for b in WHOLE_NUMBERS {
            let range = format!("{} to {}", b.range.start(), b.range.end());
            assert!(row(b.variable).contains(&range), "{}: {range}", b.variable);
        }
        let scale = format!("{} to {}", RETRY_SCALE.start(), RETRY_SCALE.end());
        assert!(row("LEADHUB_WEBHOOK_RETRY_SCALE").contains(&scale));
    }
}
