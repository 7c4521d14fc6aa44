//! Single submissions are written in groups by one runner on SQLite; a group whose leads wait on
//! the geocoder is answered apart, so later submissions are written and answered meanwhile.
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use tokio::sync::{Notify, Semaphore};

use leadhub_domain::enrich::{GeocodeOutcome, GeocodeQuery, Geocoder};
use leadhub_tests::{backend_tests, TestApp};

use crate::helpers::submit;

backend_tests!(a_geocoder_that_waits_holds_up_only_its_own_submission);

/// Finds nothing, at once, except for addresses on "Held St": it says it was asked about one,
/// then waits for a permit.
struct HeldGeocoder {
    asked: Arc<Notify>,
    release: Arc<Semaphore>,
}

#[async_trait]
impl Geocoder for HeldGeocoder {
    async fn geocode(&self, query: &GeocodeQuery) -> GeocodeOutcome {
        if query.address.contains("Held") {
            self.asked.notify_one();
            let _permit = self.release.acquire().await;
        }
        Ok(None)
    }
}

async fn a_geocoder_that_waits_holds_up_only_its_own_submission(app: TestApp) {
    let (asked, release) = (Arc::new(Notify::new()), Arc::new(Semaphore::new(0)));
    let geocoder = Arc::new(HeldGeocoder {
        asked: asked.clone(),
        release: release.clone(),
    });
    let app = app.restart().geocoder(Some(geocoder)).build().await;
    let alice = app.user("alice@example.com").await;
    let lead = |address: &str| json!({"address": address, "city": "Austin", "state": "TX", "zip_code": "78701"});

    let held = submit(&app, &alice.key, lead("1 Held St"));
    let others = async {
        // Its group is written (enrichment comes after) and waits on the geocoder.
        let waiting = tokio::time::timeout(Duration::from_secs(20), asked.notified()).await;
        // Other submissions are written and answered while it waits.
        let mut answers = Vec::new();
        for n in 1..=3 {
            let free = submit(&app, &alice.key, lead(&format!("{n} Free St")));
            answers.push(tokio::time::timeout(Duration::from_secs(10), free).await);
        }
        // Released before anything is judged, so a failure fails rather than hangs.
        release.add_permits(1);
        assert!(
            waiting.is_ok(),
            "the geocoder was never asked about the held lead"
        );
        for answered in answers {
            let answered = answered.expect("a submission waited on another's geocoding");
            assert_eq!(answered["status"], "completed", "{answered}");
        }
    };
    let (held, ()) = tokio::join!(held, others);
    assert_eq!(held["status"], "completed", "{held}");
}
