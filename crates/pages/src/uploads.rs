//! CSV uploads from the browser: `/leads/import` and `/businesses/import` take a file in the
//! CLI's format, store it (bytes in the database) and queue its import; `/uploads/{id}` shows the
//! progress (refreshing itself) and then the summary; `/uploads/{id}/report` is the reject report
//! (`.../report.xlsx`: the same as an Excel workbook). A file whose header has columns we do not
//! know (or only guess at) is stored awaiting its columns: `/uploads/{id}` then asks which field
//! each column feeds (`upload_columns`), and the import is queued once that is answered.
//! Only the members of the team an upload went into see it; anyone else gets 404.
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;

use leadhub_domain::business::RelationshipType;
use leadhub_domain::error::ServiceError;
use leadhub_domain::import::file_source;
use leadhub_domain::lead::record::LeadFilter;
use leadhub_domain::lead::work::tags::tags_of_field;
use leadhub_domain::upload::{import_kind, NewUpload, UploadKind, UploadStatus};
use leadhub_http::state::AppState;
use leadhub_spreadsheet::workbook_export::csv_as_workbook;

use crate::import::{check_file, FileCheck};
use crate::list::team_choices;
use crate::multipart::{boundary, Part, Parts};
use crate::render::{attachment, see_other, when, PageError, XLSX};
use crate::session::Visitor;
use crate::{base_context, id_of, Done};

/// Room for the form's other fields and the multipart framing around the file.
const FORM_OVERHEAD: usize = 64 * 1024;

pub fn configure(cfg: &mut web::ServiceConfig) {
    routes! {
        cfg;
        GET "/leads/import" => lead_form,
        POST "/leads/import" => upload_leads,
        GET "/businesses/import" => business_form,
        POST "/businesses/import" => upload_businesses,
        GET "/uploads" => list,
        GET "/uploads/{id}" => status,
        POST "/uploads/{id}/columns" => crate::upload_columns::choose,
        POST "/uploads/{id}/discard" => crate::upload_columns::discard,
        GET "/uploads/{id}/{report}" => report,
    }
}

/// The upload form, with a message and status when a file was refused.
async fn form_page(
    state: &AppState,
    visitor: &Visitor,
    kind: UploadKind,
    status: StatusCode,
    error: Option<&str>,
) -> Result<HttpResponse, PageError> {
    let teams = team_choices(visitor, true).await?;
    let mut context = base_context(Some(visitor), kind.as_str());
    context.insert("kind", kind.as_str());
    context.insert("teams", &teams);
    let aliases: Vec<serde_json::Value> = import_kind(kind, &serde_json::Value::Null)
        .aliases()
        .iter()
        .map(|(field, aliases)| serde_json::json!({ "field": field, "aliases": aliases }))
        .collect();
    context.insert("aliases", &aliases);
    context.insert("relationship_types", &RelationshipType::NAMES);
    context.insert("limit_mb", &megabytes(state.config.body_limit));
    context.insert("error", &error);
    visitor.page(status, "upload_form.html", &context)
}

fn megabytes(bytes: usize) -> String {
    let mb = bytes as f64 / (1024.0 * 1024.0);
    if mb >= 1.0 {
        format!("{mb:.0} MB")
    } else {
        format!("{} KB", bytes / 1024)
    }
}

async fn lead_form(
    state: web::Data<AppState>,
    visitor: Visitor,
) -> Result<HttpResponse, PageError> {
    form_page(&state, &visitor, UploadKind::Leads, StatusCode::OK, None).await
}

async fn business_form(
    state: web::Data<AppState>,
    visitor: Visitor,
) -> Result<HttpResponse, PageError> {
    form_page(
        &state,
        &visitor,
        UploadKind::Businesses,
        StatusCode::OK,
        None,
    )
    .await
}

async fn upload_leads(
    state: web::Data<AppState>,
    visitor: Visitor,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, PageError> {
    upload(&state, &visitor, &req, body, UploadKind::Leads).await
}

async fn upload_businesses(
    state: web::Data<AppState>,
    visitor: Visitor,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, PageError> {
    upload(&state, &visitor, &req, body, UploadKind::Businesses).await
}

/// The body, kept up to `keep` bytes; the rest is read and dropped (so the browser gets the
/// answer rather than a reset connection), up to a bound past which the connection is dropped.
/// Returns the kept bytes and whether anything was dropped.
async fn read_capped(mut body: web::Payload, keep: usize) -> Result<(Vec<u8>, bool), PageError> {
    let mut kept = Vec::new();
    let mut seen = 0usize;
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|_| PageError::BadForm)?;
        seen += chunk.len();
        if kept.len() < keep {
            let room = keep - kept.len();
            kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        if seen > keep.saturating_mul(4) {
            break;
        }
    }
    Ok((kept, seen > keep))
}

/// The form's fields other than the file, by name (the last value of each).
fn text_field(parts: &[Part<'_>], name: &str) -> Option<String> {
    parts
        .iter()
        .rev()
        .find(|p| p.name == name && p.file_name.is_none())
        .map(|p| String::from_utf8_lossy(p.data).trim().to_owned())
}

async fn upload(
    state: &AppState,
    visitor: &Visitor,
    req: &HttpRequest,
    body: web::Payload,
    kind: UploadKind,
) -> Result<HttpResponse, PageError> {
    let boundary = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(boundary)
        .ok_or(PageError::BadForm)?;
    let limit = state.config.body_limit;
    let (bytes, cut) = read_capped(body, limit + FORM_OVERHEAD).await?;
    let mut parts = Parts::new(&bytes, &boundary);
    // The token is the form's first field, so it is checked before anything else is looked at.
    let csrf = match parts.next() {
        Some(Ok(first)) if first.name == "csrf" && first.file_name.is_none() => {
            String::from_utf8_lossy(first.data).into_owned()
        }
        _ => String::new(),
    };
    visitor.check_csrf(&csrf)?;
    let refuse = |status: StatusCode, text: String| async move {
        form_page(state, visitor, kind, status, Some(&text)).await
    };
    let too_large = format!(
        "The file is larger than {}, the most an upload may hold. Split it, or import it with `leadhub import {}`.",
        megabytes(limit),
        kind.as_str()
    );
    if cut {
        return refuse(StatusCode::PAYLOAD_TOO_LARGE, too_large).await;
    }
    let parts: Vec<Part<'_>> = parts
        .collect::<Result<_, _>>()
        .map_err(|_| PageError::BadForm)?;
    let Some(file) = parts
        .iter()
        .find(|p| p.name == "file" && p.file_name.is_some())
    else {
        return Err(PageError::BadForm);
    };
    let file_name = file.file_name.clone().unwrap_or_default();
    if file_name.is_empty() && file.data.is_empty() {
        return refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Choose a file to upload.".into(),
        )
        .await;
    }
    if file.data.len() > limit {
        return refuse(StatusCode::PAYLOAD_TOO_LARGE, too_large).await;
    }
    // "Tag every lead of this file": the list the leads came from.
    let tags = match tags_of_field(&text_field(&parts, "tags").unwrap_or_default()) {
        Ok(tags) => tags,
        Err(problem) => {
            return refuse(StatusCode::UNPROCESSABLE_ENTITY, format!("{problem}.")).await
        }
    };
    // "Source of these leads": the channel of each row without a source cell.
    let source = match file_source(&text_field(&parts, "source").unwrap_or_default()) {
        Ok(source) => source,
        Err(problem) => {
            return refuse(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("In the source of these leads: {problem}."),
            )
            .await
        }
    };
    let options = serde_json::json!({
        "relationship_type": text_field(&parts, "relationship_type"),
        "skip_duplicates": text_field(&parts, "skip_duplicates").is_some(),
        "auto_categorize": text_field(&parts, "auto_categorize").is_some(),
        "tags": tags,
        "source": source,
    });
    // Opening a workbook parses its shared strings (0.3 s for an 8 MiB one): off the async workers.
    let content = file.data.to_vec();
    let import = import_kind(kind, &options);
    let (content, check) = web::block(move || {
        let check = check_file(&content, &import);
        (content, check)
    })
    .await
    .map_err(|e| PageError::unexpected(e.into()))?;
    let check = match check {
        Ok(check) => check,
        Err(problem) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, problem).await,
    };
    let Some(team_id) = text_field(&parts, "team_id").and_then(|t| t.parse::<i64>().ok()) else {
        return refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Choose the team to import into.".into(),
        )
        .await;
    };
    let started = state
        .uploads
        .start(
            &visitor.user,
            NewUpload {
                kind,
                team_id,
                user_id: visitor.user.id,
                file_name,
                options,
                content,
                awaiting_columns: check == FileCheck::ChooseColumns,
            },
        )
        .await;
    match started {
        Ok(id) => Ok(visitor.finish(see_other(&format!("/uploads/{id}")))),
        Err(ServiceError::Forbidden(reason)) => {
            refuse(StatusCode::FORBIDDEN, format!("{reason}.")).await
        }
        Err(e) => Err(e.into()),
    }
}

/// GET /uploads: the latest uploads into the visitor's teams, newest first.
async fn list(
    state: web::Data<AppState>,
    visitor: Visitor,
    done: web::Query<Done>,
) -> Result<HttpResponse, PageError> {
    let teams = team_choices(&visitor, false).await?;
    let names: std::collections::HashMap<String, String> = teams
        .iter()
        .map(|t| (t.id.clone(), t.name.clone()))
        .collect();
    let ids = teams.iter().filter_map(|t| t.id.parse().ok()).collect();
    let uploads = state.uploads.recent(ids, 100).await?;
    let rows: Vec<serde_json::Value> = uploads
        .iter()
        .map(|u| {
            let c = u.counts;
            serde_json::json!({
                "id": u.id,
                "file_name": u.file_name,
                "kind": u.kind.as_str(),
                "team": names.get(&u.team_id.to_string()),
                "status": u.status.as_str(),
                "uploaded": when(u.created_at, visitor.offset),
                "rows": c.rows,
                "created": c.created,
                // The split of the upload's own page: rows merged into a lead, and rows
                // identical to one (skipped), apart.
                "merged": c.updated,
                "skipped": c.skipped,
                "rejected": c.rejected + c.failed,
                "warnings": c.warnings,
                // Only an upload that created or merged leads has a list of them; a link to
                // an empty list would promise leads that are not there.
                "leads_link": (u.status == UploadStatus::Done
                    && u.kind == UploadKind::Leads
                    && c.created + c.updated > 0)
                    .then(|| format!("/leads?upload={}", u.id)),
            })
        })
        .collect();
    let mut context = base_context(Some(&visitor), "leads");
    context.insert("notice", &done.notice());
    context.insert("uploads", &rows);
    visitor.page(StatusCode::OK, "uploads.html", &context)
}

/// GET /uploads/{id}: progress while the import runs (the page reloads itself), then the summary.
async fn status(
    state: web::Data<AppState>,
    visitor: Visitor,
    id: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Upload")?;
    let upload = state.uploads.visible(&visitor.user, id).await?;
    if upload.status == UploadStatus::AwaitingColumns {
        // Only this step reads the file: the page of a running import is polled every 2 s.
        let (upload, content) = state.uploads.with_file(&visitor.user, id).await?;
        let ok = StatusCode::OK;
        return crate::upload_columns::page(&visitor, &upload, content, &[], ok, None).await;
    }
    let mut context = base_context(Some(&visitor), upload.kind.as_str());
    context.insert("id", &upload.id);
    context.insert("kind", upload.kind.as_str());
    context.insert("file_name", &upload.file_name);
    let tags = leadhub_domain::upload::file_tags(&upload.options);
    context.insert("file_tags", &crate::lead_view::tag_links(&tags));
    let source = leadhub_domain::upload::lead_source(&upload.options);
    let source_leads = source
        .as_deref()
        .map(|s| crate::lead_view::leads_where("source", s));
    context.insert("file_source", &source);
    context.insert("file_source_leads", &source_leads);
    context.insert("status", upload.status.as_str());
    context.insert("running", &upload.status.is_importing());
    context.insert("done", &(upload.status == UploadStatus::Done));
    context.insert(
        "percent",
        &(upload.bytes_done * 100)
            .checked_div(upload.size)
            .unwrap_or(0),
    );
    let c = upload.counts;
    context.insert("rows", &c.rows);
    context.insert("created", &c.created);
    context.insert("merged", &c.updated);
    context.insert("skipped", &c.skipped);
    context.insert("rejected", &(c.rejected + c.failed));
    context.insert("warnings", &c.warnings);
    let summary = upload.summary.unwrap_or_default();
    context.insert("encoding", &summary["encoding"].as_str());
    let list = |name: &str| summary[name].as_array().cloned().unwrap_or_default();
    context.insert("top_reasons", &list("top_reasons"));
    context.insert("mapping", &list("mapping"));
    context.insert("ignored", &list("ignored"));
    context.insert("notes", &summary["notes"].as_u64().unwrap_or(0));
    context.insert("work", &summary["work"].as_u64().unwrap_or(0));
    context.insert("failure", &upload.error);
    context.insert("has_report", &upload.has_report);
    context.insert("uploaded", &when(upload.created_at, visitor.offset));
    if upload.status == UploadStatus::Done && upload.kind == UploadKind::Leads {
        context.insert(
            "lead_count",
            &upload_lead_count(&state, &visitor, upload.id).await?,
        );
    }
    visitor.page(StatusCode::OK, "upload.html", &context)
}

/// How many leads `/leads?upload={id}` lists for the visitor: the distinct leads the upload
/// created or updated (two rows of one property are one lead), by the list's own query.
async fn upload_lead_count(
    state: &AppState,
    visitor: &Visitor,
    upload: i64,
) -> Result<i64, PageError> {
    let filter = LeadFilter {
        upload: Some(upload),
        ..LeadFilter::default()
    };
    let (_, total) = state.submissions.leads(&visitor.user, filter, 1, 0).await?;
    Ok(total)
}

/// GET /uploads/{id}/report: the rejected rows and warnings as CSV (formula-safe, as from the CLI);
/// GET /uploads/{id}/report.xlsx: the same as an Excel workbook, every cell text, so the rejected
/// rows can be fixed in Excel without losing a ZIP's leading zero, then imported again.
async fn report(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, PageError> {
    let (id, file) = path.into_inner();
    let id = id_of(&id, "Upload")?;
    let for_excel = match file.as_str() {
        "report" => false,
        "report.xlsx" => true,
        _ => return Err(PageError::NotFound("Page".into())),
    };
    let csv = state.uploads.report(&visitor.user, id).await?;
    if !for_excel {
        let name = format!("rejected-rows-{id}.csv");
        return Ok(visitor.finish(attachment("text/csv; charset=utf-8", &name).body(csv)));
    }
    // A report of an 8 MiB upload takes a moment to zip: off the async workers.
    let workbook = web::block(move || {
        let mut out = Vec::new();
        csv_as_workbook(&csv, "Report", &mut out).map(|()| out)
    })
    .await
    .map_err(|e| PageError::unexpected(e.into()))?
    .map_err(PageError::unexpected)?;
    let name = format!("rejected-rows-{id}.xlsx");
    Ok(visitor.finish(attachment(XLSX, &name).body(workbook)))
}
