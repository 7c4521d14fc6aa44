//! Lead queries.
use actix_web::web::Json;
use apistos::api_operation;
use serde::Deserialize;
use validator::{Validate, ValidationError, ValidationErrors};

use leadhub_domain::clock::UtcOffset;
use leadhub_domain::lead::fields::PROPERTY_TYPES;
use leadhub_domain::lead::nearby::{Circle, DEFAULT_MILES};
use leadhub_domain::lead::record::{EnrichmentStatus, LeadFilter};
use leadhub_domain::lead::search::{LeadSort, SearchText, SortField};
use leadhub_domain::lead::work::{
    follow_up_day, tags_of_field, ArchiveFilter, AssigneeFilter, LeadStatus, Person, StatusFilter,
};
use leadhub_domain::parse::state_from_name;
use leadhub_http::extract::problems::FIELD_PARAM;
use leadhub_http::extract::rules::{enum_message, follow_up_date, one_of, tag_words};
use leadhub_http::extract::{
    flat_problems, iso_timestamp, json_type, timestamp_on, Call, Lax, PageQuery, RequestQuery,
    ValidatedQuery,
};
use leadhub_http::refusals::{Answer, Queried, Seen};

use crate::lead_export::{ExportSource, LeadsCsv};
use crate::lead_work_views::Tagged;
use crate::page::page;
use crate::submission_views::{LeadPage, LeadView};
use crate::Api;

pub fn routes(api: &mut Api) {
    routes! {
        api;
        GET "/api/v1/leads" => list_leads,
        GET "/api/v1/leads/export" => export_leads,
        GET "/api/v1/leads/{id}" => get_lead,
        POST "/api/v1/leads/{id}/enrich" => enrich_lead,
    }
}

/// `GET /api/v1/leads`: every filter optional.
#[derive(Deserialize, schemars::JsonSchema, apistos::ApiComponent)]
pub struct LeadQuery {
    #[serde(flatten)]
    pub filters: LeadFilters,
    #[serde(flatten)]
    pub page: PageQuery,
}

impl Validate for LeadQuery {
    fn validate(&self) -> Result<(), ValidationErrors> {
        flat_problems([self.filters.validate(), self.page.validate()])
    }
}

/// The filters of a lead list or export.
#[derive(Deserialize, Validate, schemars::JsonSchema)]
#[validate(schema(function = "distance_from_a_place", skip_on_field_errors = false))]
pub struct LeadFilters {
    /// Only this team's leads.
    #[validate(custom(function = "json_type"))]
    pub team_id: Lax<i64>,
    /// State code.
    #[validate(custom(function = "json_type"))]
    pub state: Lax<String>,
    /// City; any case, surrounding space ignored (`austin` finds `Austin`).
    #[validate(custom(function = "json_type"))]
    pub city: Lax<String>,
    /// County; any case, surrounding space ignored.
    #[validate(custom(function = "json_type"))]
    pub county: Lax<String>,
    /// ZIP code or its prefix.
    #[validate(custom(function = "json_type"))]
    pub zip_code: Lax<String>,
    /// residential, commercial, agricultural or vacant_land.
    #[validate(custom(function = "json_type"), custom(function = "property_type"))]
    pub property_type: Lax<String>,
    /// Permit status; any case, surrounding space ignored.
    #[validate(custom(function = "json_type"))]
    pub permit_status: Lax<String>,
    /// Work type; any case, surrounding space ignored.
    #[validate(custom(function = "json_type"))]
    pub work_type: Lax<String>,
    /// Lead channel, compared as its slug (`Permit Scrape` finds `permit_scrape`, the form it is
    /// stored in).
    #[validate(custom(function = "json_type"))]
    pub source: Lax<String>,
    /// complete, partial, pending_retry, gave_up or skipped.
    #[validate(custom(function = "json_type"), custom(function = "enrichment_status"))]
    pub enrichment_status: Lax<String>,
    /// Search, any case: a substring of the address, owner name, project number or an e-mail,
    /// or a phone number written any way (`(512) 555-0100`, `512.555.0100`, its last digits),
    /// compared by its digits.
    #[validate(custom(function = "json_type"))]
    pub q: Lax<String>,
    /// ISO 8601 date or timestamp.
    #[validate(custom(function = "json_type"), custom(function = "iso_timestamp"))]
    pub created_after: Lax<String>,
    /// ISO 8601 date or timestamp.
    #[validate(custom(function = "json_type"), custom(function = "iso_timestamp"))]
    pub created_before: Lax<String>,
    /// The list's order: created_at, updated_at, city, permit_date, follow_up_on,
    /// last_contact_at (the newest contact logged) or distance (from `near`, which it needs),
    /// with a leading `-` for descending (default
    /// `-created_at`, newest first). Ties by creation time; a lead without the value comes first
    /// ascending, last descending (so `last_contact_at` puts the leads never contacted first,
    /// then the longest untried). The export is always newest first.
    #[validate(custom(function = "json_type"), custom(function = "sort_word"))]
    pub sort: Lax<String>,
    /// new, contacted, qualified, won or lost; or `open`: new, contacted or qualified (the leads
    /// still being worked).
    #[validate(custom(function = "json_type"), custom(function = "status_filter"))]
    pub status: Lax<String>,
    /// `me` (the caller's leads), `none` (leads nobody works) or a user's public id (`usr_...`).
    #[validate(custom(function = "json_type"))]
    pub assignee: Lax<String>,
    /// `true`: only archived leads; `false` (default): the others. Leads merged into another
    /// are never listed.
    #[validate(custom(function = "json_type"))]
    pub archived: Lax<bool>,
    /// `YYYY-MM-DD`: only leads with a follow-up day on or before it (the leads due by then).
    #[validate(custom(function = "json_type"), custom(function = "follow_up_date"))]
    pub follow_up_by: Lax<String>,
    /// `false`: only the leads nobody has logged a contact on yet (the ones still to call);
    /// `true`: only those with a logged contact.
    #[validate(custom(function = "json_type"))]
    pub contacted: Lax<bool>,
    /// `YYYY-MM-DD`: only the leads gone quiet: a contact logged, but none on that day (UTC) or
    /// later. A lead never contacted is not in it (`contacted=false` finds those).
    #[validate(custom(function = "json_type"), custom(function = "follow_up_date"))]
    pub last_contact_before: Lax<String>,
    /// `me` or a user's public id (`usr_...`): only the leads that person logged a contact on
    /// (from `contacted_since` on, when given): the leads behind their count of contacts.
    #[validate(custom(function = "json_type"))]
    pub contacted_by: Lax<String>,
    /// `YYYY-MM-DD`: only the leads with a contact logged on that day (UTC) or later, by anyone
    /// or by `contacted_by`.
    #[validate(custom(function = "json_type"), custom(function = "follow_up_date"))]
    pub contacted_since: Lax<String>,
    /// `true`: only the leads with a phone number (any of the five); `false`: those with none,
    /// the ones to find a number for (skip tracing) before anyone can call.
    #[validate(custom(function = "json_type"))]
    pub has_phone: Lax<bool>,
    /// `true`: only the leads with an e-mail address (any of the three); `false`: those with none.
    #[validate(custom(function = "json_type"))]
    pub has_email: Lax<bool>,
    /// `false`: only the leads one may call (no do-not-call mark); `true`: only the marked ones.
    #[validate(custom(function = "json_type"))]
    pub do_not_call: Lax<bool>,
    /// Only the leads carrying this tag (any case: tags are kept lower case); several, separated
    /// by commas (`hot,storm 2026`): the leads carrying every one of them.
    #[validate(custom(function = "json_type"), custom(function = "tag_words"))]
    pub tag: Lax<String>,
    /// Only the leads carrying none of these tags (commas between them): `tag=storm 2026` with
    /// `without_tag=mailer 12` is the storm's leads not mailed yet.
    #[validate(custom(function = "json_type"), custom(function = "tag_words"))]
    pub without_tag: Lax<String>,
    /// A place, `latitude,longitude` in degrees (`30.2672,-97.7431`): only the leads within
    /// `within_miles` of it, by their coordinates (a lead not geocoded is never near anything).
    /// With `sort=distance`, the nearest first: the leads to visit while in the street.
    #[validate(custom(function = "json_type"), custom(function = "place"))]
    pub near: Lax<String>,
    /// Miles from `near`, 0.1 to 100 (default 1); only with `near`.
    // `nearby::MIN_MILES` and `MAX_MILES` written out: the schema's derive reads only literals.
    #[validate(custom(function = "json_type"), range(min = 0.1, max = 100.0))]
    pub within_miles: Lax<f64>,
    /// The id of a browser upload (`/uploads/{id}`): only the leads it created or updated
    /// (including duplicates it merged into). An upload of a team the caller is not in finds
    /// nothing.
    #[validate(custom(function = "json_type"))]
    pub upload: Lax<i64>,
}

/// A lead status word, as the list filter and the edits take it.
pub(crate) fn lead_status(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of(field, &LeadStatus::NAMES)
}

fn status_filter(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of(field, &StatusFilter::WORDS)
}

fn sort_word(field: &Lax<String>) -> Result<(), ValidationError> {
    match field.text() {
        Some(text) if LeadSort::parse(text).is_none() => {
            let mut words: Vec<String> = LeadSort::FIELDS.iter().map(|f| (*f).to_owned()).collect();
            words.extend(LeadSort::FIELDS.iter().map(|f| format!("-{f}")));
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            Err(ValidationError::new("enum").with_message(enum_message(&words).into()))
        }
        _ => Ok(()),
    }
}

fn place(field: &Lax<String>) -> Result<(), ValidationError> {
    match field.text() {
        Some(text) if Circle::place(text).is_none() => Err(ValidationError::new("value_error")
            .with_message(
                "Value error, a place is latitude,longitude in degrees (30.2672,-97.7431)".into(),
            )),
        _ => Ok(()),
    }
}

/// `sort=distance` and `within_miles` measure from `near`: without it they are refused, not
/// ignored, so a client never reads a list in an order it did not ask for.
fn distance_from_a_place(filters: &LeadFilters) -> Result<(), ValidationError> {
    if filters.near.text().is_some() {
        return Ok(());
    }
    let by_distance = filters
        .sort
        .text()
        .and_then(LeadSort::parse)
        .is_some_and(|s| s.field == SortField::Distance);
    let (field, message) = if by_distance {
        (
            "sort",
            "sort=distance needs near, the place to measure from",
        )
    } else if filters.within_miles.value().is_some() {
        (
            "within_miles",
            "within_miles needs near, the place to measure from",
        )
    } else {
        return Ok(());
    };
    let mut e = ValidationError::new("missing").with_message(message.into());
    e.add_param(FIELD_PARAM.into(), &field);
    Err(e)
}

fn property_type(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of(field, &PROPERTY_TYPES)
}

/// The words of `EnrichmentStatus`.
pub const ENRICHMENT_STATUSES: [&str; 5] =
    ["complete", "partial", "pending_retry", "gave_up", "skipped"];

fn enrichment_status(field: &Lax<String>) -> Result<(), ValidationError> {
    one_of(field, &ENRICHMENT_STATUSES)
}

impl RequestQuery for LeadQuery {}

impl LeadQuery {
    /// The domain's filter of these parameters (validated: unknown words were refused). A day
    /// (`YYYY-MM-DD`) is UTC's, as the API documents.
    pub fn filter(&self) -> LeadFilter {
        self.filters.filter(UtcOffset::default())
    }

    /// The same, a day read as the person at `offset` lives it: the pages', whose date fields a
    /// person fills from their own calendar and whose times they read on their own clock.
    pub fn filter_on_clock(&self, offset: UtcOffset) -> LeadFilter {
        self.filters.filter(offset)
    }
}

/// The tags a `tag=` or `without_tag=` names (validated by `tag_words`; none when blank).
fn tag_filter(given: &Lax<String>) -> Vec<String> {
    let tags = given.text().and_then(|t| tags_of_field(t).ok());
    tags.map(Vec::from_iter).unwrap_or_default()
}

impl LeadFilters {
    fn filter(&self, offset: UtcOffset) -> LeadFilter {
        let instant = |field: &Lax<String>| field.text().and_then(|t| timestamp_on(t, offset));
        let text = |field: &Lax<String>| field.text().map(str::to_owned);
        LeadFilter {
            visible_teams: None,
            team_id: self.team_id.value().copied(),
            // A name or usual abbreviation is its code, as an import reads it ("Texas", "Okla.").
            state: self.state.text().map(|given| {
                state_from_name(given).map_or_else(|| given.to_owned(), |c| c.as_str().to_owned())
            }),
            city: text(&self.city),
            county: text(&self.county),
            work_type: text(&self.work_type),
            zip_code: text(&self.zip_code),
            property_type: self.property_type.text().and_then(|given| {
                PROPERTY_TYPES
                    .iter()
                    .find(|t| t.eq_ignore_ascii_case(given))
                    .map(|t| (*t).to_owned())
            }),
            permit_status: text(&self.permit_status),
            source: text(&self.source),
            enrichment_status: self
                .enrichment_status
                .text()
                .and_then(|given| given.to_ascii_lowercase().parse::<EnrichmentStatus>().ok()),
            q: self.q.text().and_then(SearchText::parse),
            created_after: instant(&self.created_after),
            created_before: instant(&self.created_before),
            sort: self
                .sort
                .text()
                .and_then(LeadSort::parse)
                .unwrap_or_default(),
            status: self.status.text().and_then(StatusFilter::parse),
            assignee: self.assignee.text().map(AssigneeFilter::parse),
            archive: if self.archived.value() == Some(&true) {
                ArchiveFilter::Archived
            } else {
                ArchiveFilter::Active
            },
            upload: self.upload.value().copied(),
            follow_up_by: self.follow_up_by.text().and_then(follow_up_day),
            contacted: self.contacted.value().copied(),
            last_contact_before: self
                .last_contact_before
                .text()
                .and_then(follow_up_day)
                .map(|day| offset.began(day)),
            contacted_by: self.contacted_by.text().map(Person::parse),
            contacted_since: self
                .contacted_since
                .text()
                .and_then(follow_up_day)
                .map(|day| offset.began(day)),
            has_phone: self.has_phone.value().copied(),
            has_email: self.has_email.value().copied(),
            do_not_call: self.do_not_call.value().copied(),
            tags: tag_filter(&self.tag),
            without_tags: tag_filter(&self.without_tag),
            near: self
                .near
                .text()
                .and_then(Circle::place)
                .and_then(|(lat, lon)| {
                    let miles = self.within_miles.value().copied();
                    Circle::new(lat, lon, miles.unwrap_or(DEFAULT_MILES))
                }),
        }
    }
}

/// The leads the caller may see (their teams' and unassigned ones), filtered and sorted.
/// Newest first unless `sort` says otherwise. Text filters ignore case and surrounding space; `q`
/// also finds a lead by any writing of one of its phone numbers, or by an e-mail.
#[api_operation(operation_id = "list_leads", tag = "leads")]
pub async fn list_leads(
    call: Call,
    query: ValidatedQuery<LeadQuery>,
) -> Answer<Json<LeadPage>, Queried> {
    let query = query.0;
    let paging = query.page.paging();
    let (leads, total) = call
        .state
        .submissions
        .leads(call.user(), query.filter(), paging.limit, paging.offset)
        .await?;
    Ok(page(leads, total, paging))
}

/// Every lead the caller may see that matches the filters (those of `list_leads`), as one CSV
/// file, newest first, streamed: `limit` and `offset` are ignored.
#[api_operation(operation_id = "export_leads", tag = "leads")]
pub async fn export_leads(
    call: Call,
    query: ValidatedQuery<LeadQuery>,
) -> Answer<LeadsCsv, Queried> {
    let filter = call
        .state
        .submissions
        .visible_filter(call.user(), query.0.filter())
        .await?;
    Ok(LeadsCsv::new(ExportSource::of(&call.state), filter))
}

/// One lead with everything the pipeline added. The `ETag` header is its version (quoted), for
/// `If-Match` on a PATCH. A lead merged into another answers 301 with the survivor in
/// `Location` and in the body's `merged_into`.
#[api_operation(operation_id = "get_lead", tag = "leads")]
pub async fn get_lead(lead: Call<i64>) -> Answer<Tagged<LeadView>, Seen> {
    // Through the working-lead service: a merged lead answers 301 to its survivor.
    let found = lead.state.lead_work.lead(lead.user(), lead.path).await?;
    let outlook = lead.state.enrichment_retries.outlook(&found).await?;
    Ok(Tagged::of(found).map(|view| view.with_enrichment(outlook)))
}

/// Geocodes and appraises the lead again now (its team's members and platform admins).
#[api_operation(operation_id = "enrich_lead", tag = "leads")]
pub async fn enrich_lead(lead: Call<i64>) -> Answer<Json<LeadView>, Seen> {
    let intake = &lead.state.submissions;
    let enriched = intake.enrich_now(lead.user(), lead.path).await?;
    let outlook = lead.state.enrichment_retries.outlook(&enriched).await?;
    Ok(Json(LeadView::from(enriched).with_enrichment(outlook)))
}

#[cfg(test)]
mod tests {
    use leadhub_domain::lead::nearby::{MAX_MILES, MIN_MILES};
    use leadhub_http::extract::read_query;

    use super::LeadQuery;

    #[test]
    fn the_radius_the_query_takes_is_the_domains() {
        // `LeadFilters::within_miles` writes these out for the schema's derive.
        assert_eq!((MIN_MILES, MAX_MILES), (0.1, 100.0));
        // And the query's own check takes exactly the domain's range.
        let read =
            |miles: f64| read_query::<LeadQuery>(&format!("near=30,-97&within_miles={miles}"));
        assert!(read(MIN_MILES).is_ok() && read(MAX_MILES).is_ok());
        assert!(read(MIN_MILES - 0.01).is_err() && read(MAX_MILES + 0.01).is_err());
    }
}
