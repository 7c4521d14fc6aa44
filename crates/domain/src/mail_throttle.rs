//! How many e-mails one address may receive: without a bound, anyone could have the service
//! send sign-in or invite e-mails to an address as fast as they can ask (mail bombing).
//! Counted per mailbox (`a+tag@Example.com` is `a@example.com`: a tag is a spelling of the same
//! mailbox, and would otherwise multiply the quota) in fixed windows, in the same store as the request rate limits, so
//! several processes sharing a PostgreSQL database count together.
use std::sync::Arc;

use crate::clock::Clock;
use crate::rate_limit::{RateLimitStore, Window};
use crate::secret::hash_secret;
use crate::store::StoreResult;

/// Whether an e-mail may go to an address now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailAdmission {
    Send,
    /// Over a quota: the seconds until the window that refused it ends.
    Wait(u64),
}

/// `per_minute`/`per_hour`: e-mails one address may receive in each window; 0 turns that
/// window off.
pub struct MailThrottle {
    pub store: Arc<dyn RateLimitStore>,
    pub clock: Arc<dyn Clock>,
    pub per_minute: u64,
    pub per_hour: u64,
}

impl MailThrottle {
    /// Counts an e-mail to `address` and says whether it may go.
    pub async fn admit(&self, address: &str) -> StoreResult<MailAdmission> {
        // The counters' key names no address: a hash of it is enough to count.
        let recipient = hash_secret(&mailbox(address));
        let now = self.clock.now().timestamp();
        // The minute first: an e-mail it refuses does not use up the hour's quota.
        for (quota, length) in [(self.per_minute, 60), (self.per_hour, 3600)] {
            if quota == 0 {
                continue;
            }
            // A store counts by (bucket, window start): the length goes into the bucket.
            let bucket = format!("mail{length}:{}", &recipient[..32]);
            let window = Window::containing(now, length);
            if self.store.hit(&bucket, window, now).await? > quota {
                return Ok(MailAdmission::Wait((window.end() - now).max(1) as u64));
            }
        }
        Ok(MailAdmission::Send)
    }
}

/// The mailbox an address delivers to, as the quota counts it: lower-cased (addresses are
/// compared case-insensitively here), the `+tag` of its local part removed.
pub fn mailbox(address: &str) -> String {
    let address = address.trim().to_lowercase();
    match address.rsplit_once('@') {
        Some((local, domain)) => {
            let local = local.split_once('+').map_or(local, |(mailbox, _)| mailbox);
            format!("{local}@{domain}")
        }
        None => address,
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, TimeZone, Utc};

    use super::*;
    use crate::rate_limit::MemoryRateLimitStore;

    struct At(DateTime<Utc>);

    impl Clock for At {
        fn now(&self) -> DateTime<Utc> {
            self.0
        }
    }

    fn throttle(at: DateTime<Utc>, store: Arc<MemoryRateLimitStore>) -> MailThrottle {
        MailThrottle {
            store,
            clock: Arc::new(At(at)),
            per_minute: 1,
            per_hour: 5,
        }
    }

    #[tokio::test]
    async fn one_a_minute_five_an_hour_per_address() {
        let store = Arc::new(MemoryRateLimitStore::new());
        let start = Utc.with_ymd_and_hms(2026, 1, 1, 10, 0, 0).unwrap();
        let at = |minute: i64, second: i64| {
            throttle(
                start + chrono::Duration::minutes(minute) + chrono::Duration::seconds(second),
                store.clone(),
            )
        };
        assert_eq!(
            at(0, 0).admit("a@x.com").await.unwrap(),
            MailAdmission::Send
        );
        assert_eq!(
            at(0, 20).admit(" A@X.com").await.unwrap(),
            MailAdmission::Wait(40),
            "the same address in another case"
        );
        assert_eq!(
            at(0, 30).admit("b@x.com").await.unwrap(),
            MailAdmission::Send
        );
        for minute in 1..=4 {
            assert_eq!(
                at(minute, 0).admit("a@x.com").await.unwrap(),
                MailAdmission::Send
            );
        }
        assert_eq!(
            at(5, 0).admit("a@x.com").await.unwrap(),
            MailAdmission::Wait(55 * 60),
            "the sixth in an hour waits for the hour's end"
        );
        assert_eq!(
            at(60, 0).admit("a@x.com").await.unwrap(),
            MailAdmission::Send
        );
    }

    #[test]
    fn a_tag_and_the_case_name_the_same_mailbox() {
        for spelling in [
            "victim@example.com",
            "victim+1@example.com",
            "victim+20@Example.COM",
            " Victim+a+b@EXAMPLE.com ",
            "victim+@example.com",
        ] {
            assert_eq!(mailbox(spelling), "victim@example.com", "{spelling}");
        }
        assert_eq!(mailbox("other@example.com"), "other@example.com");
        assert_eq!(mailbox("victim@example.org"), "victim@example.org");
    }

    #[tokio::test]
    async fn tagged_spellings_share_one_quota() {
        let store = Arc::new(MemoryRateLimitStore::new());
        let start = Utc.with_ymd_and_hms(2026, 1, 1, 10, 0, 0).unwrap();
        let mut sent = 0;
        for n in 1..=20 {
            let at = throttle(start + chrono::Duration::minutes(n), store.clone());
            if at.admit(&format!("victim+{n}@Example.com")).await.unwrap() == MailAdmission::Send {
                sent += 1;
            }
        }
        assert_eq!(sent, 5, "one mailbox, five an hour");
    }

    #[tokio::test]
    async fn zero_turns_a_window_off() {
        let store = Arc::new(MemoryRateLimitStore::new());
        let now = Utc.with_ymd_and_hms(2026, 1, 1, 10, 0, 0).unwrap();
        let off = MailThrottle {
            store,
            clock: Arc::new(At(now)),
            per_minute: 0,
            per_hour: 0,
        };
        for _ in 0..10 {
            assert_eq!(off.admit("a@x.com").await.unwrap(), MailAdmission::Send);
        }
    }
}
