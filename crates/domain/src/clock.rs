//! Time as a port, so expiry rules can be tested without sleeping.
use chrono::{DateTime, Days, NaiveDate, NaiveDateTime, NaiveTime, Utc};

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

/// The wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        // Whole seconds: stored timestamps and the ISO 8601 answers carry no fractions.
        let now = Utc::now();
        DateTime::from_timestamp(now.timestamp(), 0).unwrap_or(now)
    }
}

/// Where a person's day begins: their offset from UTC (minutes east), as their browser says.
/// Without one the day is UTC's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UtcOffset(i32);

impl UtcOffset {
    /// The offsets in use on Earth: UTC-12:00 to UTC+14:00.
    pub const MINUTES: std::ops::RangeInclusive<i32> = -720..=840;

    /// None for an offset no place has.
    pub fn from_minutes(minutes: i32) -> Option<UtcOffset> {
        UtcOffset::MINUTES
            .contains(&minutes)
            .then_some(UtcOffset(minutes))
    }

    pub fn minutes(self) -> i32 {
        self.0
    }

    /// `at` on the person's clock.
    pub fn local(self, at: DateTime<Utc>) -> NaiveDateTime {
        shifted(at.naive_utc(), self.shift())
    }

    fn shift(self) -> chrono::Duration {
        chrono::Duration::minutes(i64::from(self.0))
    }

    /// The person's day at `now`: its date where they are, and the instant it began.
    pub fn day_at(self, now: DateTime<Utc>) -> PersonDay {
        PersonDay {
            date: self.local(now).date(),
            offset: self,
        }
    }

    /// The instant `date` began on the person's clock, in UTC.
    pub fn began(self, date: NaiveDate) -> DateTime<Utc> {
        self.instant(date.and_time(NaiveTime::MIN))
    }

    /// The instant the person's clock reads `local`, in UTC.
    pub fn instant(self, local: NaiveDateTime) -> DateTime<Utc> {
        shifted(local, -self.shift()).and_utc()
    }
}

/// A calendar day as one person lives it (`UtcOffset::day_at`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PersonDay {
    pub date: NaiveDate,
    offset: UtcOffset,
}

impl PersonDay {
    /// The instant the day `days_before` this one began (0: this day), in UTC.
    pub fn began(self, days_before: u64) -> DateTime<Utc> {
        let day = self
            .date
            .checked_sub_days(Days::new(days_before))
            .unwrap_or(self.date);
        self.offset.began(day)
    }
}

/// `at` moved by `by`; unmoved at the ends of the calendar chrono can hold (no panic there).
fn shifted(at: NaiveDateTime, by: chrono::Duration) -> NaiveDateTime {
    at.checked_add_signed(by).unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(rfc3339: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(rfc3339).unwrap().to_utc()
    }

    #[test]
    fn a_day_begins_at_the_persons_midnight() {
        // 02:30 UTC on the 5th is still the 4th in Chicago (UTC-6), already the 5th in Berlin.
        let now = at("2026-12-05T02:30:00Z");
        let chicago = UtcOffset::from_minutes(-360).unwrap().day_at(now);
        assert_eq!(chicago.date.to_string(), "2026-12-04");
        assert_eq!(chicago.began(0), at("2026-12-04T06:00:00Z"));
        assert_eq!(chicago.began(6), at("2026-11-28T06:00:00Z"));
        let berlin = UtcOffset::from_minutes(60).unwrap().day_at(now);
        assert_eq!(berlin.date.to_string(), "2026-12-05");
        assert_eq!(berlin.began(0), at("2026-12-04T23:00:00Z"));
        let utc = UtcOffset::default().day_at(now);
        assert_eq!(utc.date.to_string(), "2026-12-05");
        assert_eq!(utc.began(0), at("2026-12-05T00:00:00Z"));
    }

    #[test]
    fn the_ends_of_the_calendar_do_not_panic() {
        let east = UtcOffset::from_minutes(840).unwrap();
        let west = UtcOffset::from_minutes(-720).unwrap();
        assert_eq!(
            east.local(DateTime::<Utc>::MAX_UTC),
            DateTime::<Utc>::MAX_UTC.naive_utc()
        );
        let first = west.day_at(DateTime::<Utc>::MIN_UTC);
        assert_eq!(first.date, DateTime::<Utc>::MIN_UTC.date_naive());
        assert!(first.began(0) >= DateTime::<Utc>::MIN_UTC);
    }

    #[test]
    fn only_offsets_in_use_are_taken() {
        for minutes in [-720, -330, 0, 345, 840] {
            assert_eq!(
                UtcOffset::from_minutes(minutes).map(UtcOffset::minutes),
                Some(minutes)
            );
        }
        for minutes in [-721, 841, i32::MIN, i32::MAX] {
            assert_eq!(UtcOffset::from_minutes(minutes), None, "{minutes}");
        }
    }
}
