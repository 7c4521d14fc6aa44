//! `/`: the signed-in person's dashboard: live leads per day over the last 30 days, by source, by
//! enrichment status and by status (the funnel), the person's open leads, what became of the
//! last 30 days' submissions (the share of duplicates), and the failed submissions. Only what
//! the person may see, by the API's rules. Also the person's switch for the e-mail of follow-ups
//! due (`POST /follow-up-email`).
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};

use leadhub_domain::clock::UtcOffset;
use leadhub_domain::dashboard::{SubmissionFigures, DAYS};
use leadhub_domain::lead::record::LeadFilter;
use leadhub_domain::submission::Submission;
use leadhub_http::state::AppState;

use crate::charts::{bars, days, ranked};
use crate::render::{see_other, when, PageError};
use crate::session::{Posted, Visitor};
use crate::{base_context, Done};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(home))
        .route("/follow-up-email", web::post().to(set_digest));
}

/// The dashboard's switch for the e-mail of follow-ups due.
#[derive(Deserialize)]
pub struct DigestForm {
    /// `on` or `off`.
    wanted: String,
}

async fn set_digest(
    Posted { visitor, form }: Posted<DigestForm>,
) -> Result<HttpResponse, PageError> {
    let wanted = match form.wanted.as_str() {
        "on" => true,
        "off" => false,
        _ => return Err(PageError::BadForm),
    };
    visitor
        .state
        .follow_up_digests
        .set_wanted(visitor.user.id, wanted)
        .await?;
    let done = if wanted { "digest-on" } else { "digest-off" };
    Ok(visitor.finish(see_other(&format!("/?done={done}#digest"))))
}

/// One failed submission, for a person to look into.
#[derive(Serialize)]
struct FailedLine {
    id: i64,
    at: String,
    batch: Option<String>,
    error: String,
    raw_json: String,
}

impl FailedLine {
    fn new(s: &Submission, offset: UtcOffset) -> FailedLine {
        FailedLine {
            id: s.id,
            at: when(s.created_at, offset),
            batch: s
                .batch_id
                .as_ref()
                .map(|b| format!("{b}, element {}", s.batch_index.unwrap_or(0))),
            error: s
                .error
                .clone()
                .unwrap_or_else(|| "(no reason recorded)".into()),
            raw_json: s.raw_json.clone(),
        }
    }
}

/// What became of the submissions, as the bars of one chart.
fn outcomes(s: &SubmissionFigures) -> Vec<(String, i64)> {
    let action = |a: &str| s.by_action.get(a).copied().unwrap_or(0);
    let status = |a: &str| s.by_status.get(a).copied().unwrap_or(0);
    vec![
        ("new lead".into(), action("created")),
        ("merged".into(), action("updated")),
        ("identical".into(), action("skipped")),
        ("failed".into(), status("failed")),
        ("waiting".into(), status("pending") + status("processing")),
    ]
}

/// "12.5%": one decimal, or None without submissions.
fn share(part: i64, whole: i64) -> Option<String> {
    (whole > 0).then(|| format!("{:.1}%", part as f64 * 100.0 / whole as f64))
}

/// The digest's hour: of the person's own day where their browser has said (the page keeps
/// their offset for it), else of UTC's.
fn digest_at(hour: u32, offset: UtcOffset) -> String {
    if offset == UtcOffset::default() {
        format!("{hour:02}:00 UTC")
    } else {
        format!("{hour:02}:00 your time")
    }
}

async fn home(
    state: web::Data<AppState>,
    visitor: Visitor,
    done: web::Query<Done>,
) -> Result<HttpResponse, PageError> {
    let user = &visitor.user;
    let leads = state
        .submissions
        .visible_filter(user, LeadFilter::default())
        .await?;
    let submissions = state.submissions.visible_submissions(user).await?;
    let d = state
        .dashboard
        .dashboard(leads, submissions, visitor.offset)
        .await?;
    let mut context = base_context(Some(&visitor), "dashboard");
    context.insert("notice", &done.notice());
    context.insert("digest_wanted", &user.follow_up_digest);
    context.insert(
        "digest_at",
        &state
            .follow_up_digests
            .hour
            .map(|h| digest_at(h, visitor.offset)),
    );
    context.insert("days", &DAYS);
    context.insert("lead_total", &d.leads.total);
    context.insert("recent_leads", &d.days.iter().map(|(_, n)| n).sum::<i64>());
    context.insert("my_open", &d.my_open);
    context.insert("my_due", &d.my_due);
    context.insert("my_not_contacted", &d.my_not_contacted);
    context.insert("my_contacts", &d.my_contacts_today);
    context.insert("today", &visitor.today().to_string());
    context.insert(
        "funnel",
        &bars(
            "funnel",
            "Leads by status",
            "Status",
            d.leads.funnel().into_iter().map(|(s, n)| (s.to_owned(), n)),
        ),
    );
    context.insert(
        "charts",
        &[
            days(
                "per-day",
                &format!("Leads per day, last {DAYS} days (UTC)"),
                &d.days,
            ),
            ranked("by-source", "Leads by source", "Source", d.leads.by_source),
            ranked(
                "by-enrichment",
                "Leads by enrichment status",
                "Enrichment status",
                d.leads
                    .by_enrichment_status
                    .into_iter()
                    .map(|(s, n)| (s.replace('_', " "), n)),
            ),
        ],
    );
    let duplicates = d.submissions.duplicates();
    context.insert("submission_total", &d.submissions.total);
    context.insert("duplicates", &duplicates);
    context.insert("duplicate_share", &share(duplicates, d.submissions.total));
    context.insert(
        "outcomes",
        &bars(
            "outcomes",
            &format!("Submissions of the last {DAYS} days by outcome"),
            "Outcome",
            outcomes(&d.submissions),
        ),
    );
    context.insert("failed_total", &d.failed_total);
    context.insert(
        "failed",
        &d.failed
            .iter()
            .map(|s| FailedLine::new(s, visitor.offset))
            .collect::<Vec<_>>(),
    );
    visitor.page(StatusCode::OK, "dashboard.html", &context)
}
