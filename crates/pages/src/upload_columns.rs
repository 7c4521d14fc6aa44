//! The columns step of an upload whose header has columns we do not know, or only guess at
//! (`Status`: a permit's or a lead's?): `/uploads/{id}` shows each column with a few of its cells
//! and a choice of the field it feeds (what its header names, else nothing), and
//! `POST /uploads/{id}/columns` queues the import with the columns as chosen
//! (`UploadService::choose_columns`, which refuses a choice that cannot be imported);
//! `POST /uploads/{id}/discard` throws such an upload away instead (the wrong file).
use std::collections::HashMap;

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};

use leadhub_domain::error::ServiceError;
use leadhub_domain::upload::{import_kind, Upload};

use crate::import::{headers, preview};
use crate::render::{see_other, when, PageError};
use crate::session::{Posted, Visitor};
use crate::{base_context, id_of, Button};

/// The form field of column `i`'s choice.
fn field_name(i: usize) -> String {
    format!("column-{i}")
}

/// The columns step of `upload` (its file `content`), with the person's `chosen` fields (empty:
/// what the headers name) and why their choice was refused, if it was.
pub async fn page(
    visitor: &Visitor,
    upload: &Upload,
    content: Vec<u8>,
    chosen: &[Option<String>],
    status: StatusCode,
    error: Option<&str>,
) -> Result<HttpResponse, PageError> {
    let kind = import_kind(upload.kind, &upload.options);
    let fields = kind.choices();
    let columns = web::block(move || preview(&content, &kind))
        .await
        .map_err(|e| PageError::unexpected(e.into()))?
        .map_err(|e| PageError::unexpected(anyhow::anyhow!(e)))?;
    let rows: Vec<serde_json::Value> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let selected = match chosen.get(i) {
                Some(choice) => choice.clone().unwrap_or_default(),
                None => c.field.unwrap_or_default().to_owned(),
            };
            serde_json::json!({
                "name": field_name(i),
                "header": c.header,
                "samples": c.samples,
                "selected": selected,
                "asked": c.asked,
                "flags": c.flags,
            })
        })
        .collect();
    let mut context = base_context(Some(visitor), upload.kind.as_str());
    context.insert("id", &upload.id);
    context.insert("kind", upload.kind.as_str());
    context.insert("file_name", &upload.file_name);
    context.insert("uploaded", &when(upload.created_at, visitor.offset));
    context.insert("columns", &rows);
    context.insert("fields", &fields);
    context.insert("error", &error);
    visitor.page(status, "upload_columns.html", &context)
}

/// POST /uploads/{id}/discard: an upload awaiting its columns deleted, back to the uploads with
/// a notice; one queued meanwhile stays, and its page says how it goes.
pub async fn discard(
    id: web::Path<String>,
    Posted { visitor, .. }: Posted<Button>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Upload")?;
    let location = match visitor.state.uploads.discard(&visitor.user, id).await {
        Ok(true) => "/uploads?done=discarded".to_owned(),
        Ok(false) => format!("/uploads/{id}"),
        Err(ServiceError::Forbidden(reason)) => {
            return Err(PageError::Refused {
                status: StatusCode::FORBIDDEN,
                title: "The upload was not discarded",
                text: format!("{reason}."),
                back: format!("/uploads/{id}"),
            })
        }
        Err(e) => return Err(e.into()),
    };
    Ok(visitor.finish(see_other(&location)))
}

/// POST /uploads/{id}/columns: `column-{i}` names the field column i feeds ("" for none).
pub async fn choose(
    id: web::Path<String>,
    Posted { visitor, form }: Posted<HashMap<String, String>>,
) -> Result<HttpResponse, PageError> {
    let id = id_of(&id, "Upload")?;
    let uploads = &visitor.state.uploads;
    let (upload, content) = uploads.with_file(&visitor.user, id).await?;
    let (headers, content) = web::block(move || (headers(&content), content))
        .await
        .map_err(|e| PageError::unexpected(e.into()))?;
    let headers = headers.map_err(|e| PageError::unexpected(anyhow::anyhow!(e)))?;
    let choices: Vec<Option<String>> = (0..headers.len())
        .map(|i| {
            form.get(&field_name(i))
                .map(|f| f.trim().to_owned())
                .filter(|f| !f.is_empty())
        })
        .collect();
    let queued = uploads
        .choose_columns(&visitor.user, id, &headers, choices.clone())
        .await;
    let (status, problem) = match queued {
        Ok(_) => return Ok(visitor.finish(see_other(&format!("/uploads/{id}")))),
        Err(ServiceError::Invalid(errors)) => {
            let problem = errors.first().map(|e| e.msg.clone()).unwrap_or_default();
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("These columns cannot be imported: {problem}."),
            )
        }
        Err(ServiceError::Forbidden(reason)) => (StatusCode::FORBIDDEN, format!("{reason}.")),
        Err(e) => return Err(e.into()),
    };
    page(&visitor, &upload, content, &choices, status, Some(&problem)).await
}
