//! The leads near a lead, on its page (docs/working-leads.md "Leads nearby"): while at one door,
//! the others within a mile, nearest first, and the link to the whole list of them.
use serde::Serialize;

use leadhub_domain::lead::nearby::{Circle, DEFAULT_MILES};
use leadhub_domain::lead::record::{GeocodeInfo, Lead, LeadFilter};
use leadhub_domain::lead::search::{LeadSort, SortField};

use crate::render::PageError;
use crate::session::Visitor;

/// How many of the nearest leads the page names.
const SHOWN: usize = 5;

/// One lead near the one on the page.
#[derive(Serialize)]
struct NearbyLine {
    id: i64,
    address: String,
    miles: String,
    status: &'static str,
    /// Its position is its ZIP code's centre: its distance is a guess.
    rough: bool,
}

/// The page's "Nearby leads": the nearest, how many in all, the list of all of them, and
/// whether this lead's own position is only its ZIP code's centre.
#[derive(Serialize)]
pub struct Nearby {
    leads: Vec<NearbyLine>,
    others: i64,
    list: String,
    /// When no other lead is within a mile: the list of those within `WIDER_MILES`.
    wider: Option<String>,
    rough: bool,
}

/// The radius offered when none is within a mile: a short drive.
const WIDER_MILES: f64 = 5.0;

/// The `near` and `within_miles` of a list of the leads within `miles` of a place, nearest first.
pub fn list_query(latitude: f64, longitude: f64, miles: f64) -> String {
    format!("near={latitude},{longitude}&within_miles={miles}&sort=distance")
}

/// The leads the visitor may see within a mile of `lead` (itself left out); None for a lead with
/// no coordinates.
pub async fn of(visitor: &Visitor, lead: &Lead) -> Result<Option<Nearby>, PageError> {
    let (Some(latitude), Some(longitude)) = (lead.fields.latitude, lead.fields.longitude) else {
        return Ok(None);
    };
    let Some(circle) = Circle::new(latitude, longitude, DEFAULT_MILES) else {
        return Ok(None);
    };
    let filter = LeadFilter {
        near: Some(circle),
        sort: LeadSort {
            field: SortField::Distance,
            descending: false,
        },
        ..LeadFilter::default()
    };
    // One more than shown: the lead itself is among them.
    let (found, total) = visitor
        .state
        .submissions
        .leads(&visitor.user, filter, SHOWN as i64 + 1, 0)
        .await?;
    let leads = found
        .iter()
        .filter(|l| l.id != lead.id)
        .take(SHOWN)
        .map(|l| line(&circle, l))
        .collect();
    // A live lead is within its own circle, and the visitor sees it: it is one of the total.
    let itself = i64::from(lead.work.archived_at.is_none());
    let others = (total - itself).max(0);
    let list = |miles| format!("/leads?{}", list_query(latitude, longitude, miles));
    Ok(Some(Nearby {
        leads,
        others,
        list: list(DEFAULT_MILES),
        wider: (others == 0).then(|| list(WIDER_MILES)),
        rough: is_rough(lead),
    }))
}

fn is_rough(lead: &Lead) -> bool {
    lead.geocode
        .as_ref()
        .is_some_and(GeocodeInfo::is_zip_centroid)
}

fn line(circle: &Circle, lead: &Lead) -> NearbyLine {
    NearbyLine {
        id: lead.id,
        address: crate::lead::title(lead),
        // Every lead near a place has coordinates.
        miles: distance(circle, lead).unwrap_or_default(),
        status: lead.work.status.as_str(),
        rough: is_rough(lead),
    }
}

/// How far `lead` is from the circle's centre, as the pages say it; None without coordinates.
pub fn distance(circle: &Circle, lead: &Lead) -> Option<String> {
    circle.miles_to_lead(&lead.fields).map(miles_text)
}

/// "0.4 mi", to a tenth; "under 0.1 mi" next door (a tenth of a mile is a few houses).
fn miles_text(miles: f64) -> String {
    if miles < 0.05 {
        "under 0.1 mi".to_owned()
    } else {
        format!("{miles:.1} mi")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_read_to_a_tenth_of_a_mile() {
        assert_eq!(miles_text(0.0), "under 0.1 mi");
        assert_eq!(miles_text(0.04), "under 0.1 mi");
        assert_eq!(miles_text(0.06), "0.1 mi");
        assert_eq!(miles_text(0.96), "1.0 mi");
        assert_eq!(miles_text(12.34), "12.3 mi");
    }

    #[test]
    fn the_list_of_nearby_leads_is_a_query_the_list_takes() {
        assert_eq!(
            list_query(30.2747, -97.7404, 1.0),
            "near=30.2747,-97.7404&within_miles=1&sort=distance"
        );
    }
}
