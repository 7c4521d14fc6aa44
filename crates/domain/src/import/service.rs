//! The import use case: rows in, leads or businesses out through the API's services, a report line for
//! every rejected row and every warning, and the summary. An import never stops half-way over a row: each
//! row is imported or reported with its number and reason.
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;

use crate::business::{BusinessService, ImportOutcome, ImportRequest};
use crate::lead::fields::Warning;
use crate::lead::record::LeadAction;
use crate::lead::work::{ImportedWork, KeptWork, LeadWork, LeadWorkService, WorkSet};
use crate::submission::{ElementOutcome, SubmissionRequest, SubmissionService};
use crate::telemetry::IMPORT_ROWS;
use crate::user::User;

use super::columns::{
    map_header, ColumnMap, ASSIGNEE, DO_NOT_CALL, FOLLOW_UP, LEAD_STATUS, NOTES, NUMBER_DNC, TAGS,
};
use super::reading::{misfits, RowReading};
use super::rows::{business_row, lead_row, CellIssue};
use super::verbatim::Verbatim;
use super::{
    ImportDestination, ImportKind, ImportProgress, ImportReport, ImportSummary, ReadRow,
    ReportLine, SheetRow, SheetRows,
};

/// Rows per chunk: one batch through the service, one transaction.
pub const DEFAULT_CHUNK: usize = 500;

/// How to import a file.
pub struct ImportRun<'a> {
    pub kind: &'a ImportKind,
    /// Applies to every row (a lead row's own `team_id` column overrides it).
    pub team_id: Option<i64>,
    pub chunk: usize,
    /// The field each column feeds, as a person chose it (`ColumnMap::chosen`); None: the header's
    /// names decide.
    pub columns: Option<&'a [Option<String>]>,
    /// Tags (stored form) added to every lead the file creates or merges into: the list it came
    /// from ("mailer 12"), beside each row's own `tags` cell.
    pub tags: &'a [String],
    /// The source (`file_source`) of each lead row without a `source` cell of its own: the file's
    /// channel, as if it had a source column (a row that merges sets its lead's source too).
    pub source: Option<&'a str>,
}

/// The API's services as an import's destination.
pub struct ImportServices {
    pub submissions: Arc<SubmissionService>,
    pub businesses: Arc<BusinessService>,
    /// Where the rows' notes go.
    pub lead_work: Arc<LeadWorkService>,
    /// The browser upload being imported, linked to each lead batch; None for the CLI.
    pub upload_id: Option<i64>,
}

#[async_trait]
impl ImportDestination for ImportServices {
    async fn submit_leads(
        &self,
        user: &User,
        requests: Vec<SubmissionRequest>,
        team_id: Option<i64>,
    ) -> anyhow::Result<Vec<ElementOutcome>> {
        let outcome = self
            .submissions
            .submit_import_chunk(user, requests, team_id, self.upload_id)
            .await
            .map_err(describe)?;
        Ok(outcome.elements)
    }

    async fn import_businesses(
        &self,
        user: &User,
        request: ImportRequest,
    ) -> anyhow::Result<ImportOutcome> {
        self.businesses
            .import(user, request)
            .await
            .map_err(describe)
    }

    async fn add_notes(&self, user: &User, notes: Vec<(i64, String)>) -> anyhow::Result<u64> {
        Ok(self.lead_work.add_imported_notes(user, notes).await?)
    }

    async fn set_work(
        &self,
        user: &User,
        work: Vec<(i64, ImportedWork)>,
    ) -> anyhow::Result<Vec<WorkSet>> {
        self.lead_work
            .apply_imported_work(user, &work)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
    }

    async fn working_state(
        &self,
        _user: &User,
        leads: Vec<i64>,
    ) -> anyhow::Result<HashMap<i64, LeadWork>> {
        Ok(self.lead_work.imported_leads_work(leads).await?)
    }
}

/// A service's refusal in words for the person running the import.
fn describe(e: crate::error::ServiceError) -> anyhow::Error {
    use crate::error::ServiceError;
    match e {
        ServiceError::Forbidden(reason) => anyhow::anyhow!("team: {reason}"),
        ServiceError::NotFound(thing) => anyhow::anyhow!("{thing} not found"),
        ServiceError::Invalid(problems) => anyhow::anyhow!(
            "{}",
            problems
                .iter()
                .map(|p| p.msg.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        ),
        ServiceError::Unexpected(cause) => cause,
    }
}

/// The warning code of a row's working state left aside or not set.
const WORK_NOT_SET: &str = "work_not_set";

/// The fields of the columns a row's working state came from, in the order a warning about
/// all of it names the first: status, follow-up, owner, do-not-call, tags, a number's flag.
fn work_columns(work: &ImportedWork) -> Vec<&'static str> {
    [
        (work.status.is_some(), LEAD_STATUS),
        (work.follow_up.is_some(), FOLLOW_UP),
        (work.assignee_email.is_some(), ASSIGNEE),
        (work.do_not_call.is_some(), DO_NOT_CALL),
        (!work.tags.is_empty(), TAGS),
        (!work.numbers_not_to_call.is_empty(), NUMBER_DNC),
    ]
    .into_iter()
    .filter_map(|(given, field)| given.then_some(field))
    .collect()
}

/// The column of a part of a lead's working state the lead kept, and the warning saying so.
fn kept_work_said(kept: &KeptWork) -> (&'static str, String) {
    let as_it_is = "as the team has it";
    match kept {
        KeptWork::Status(status) => (
            LEAD_STATUS,
            format!(
                "the lead existed: its status stays {}, {as_it_is}",
                status.as_str()
            ),
        ),
        KeptWork::Owner(Some(email)) => (
            ASSIGNEE,
            format!("the lead existed: {email} still works it, {as_it_is}"),
        ),
        KeptWork::Owner(None) => (
            ASSIGNEE,
            format!("the lead existed: it stays without an owner, {as_it_is}"),
        ),
        KeptWork::FollowUp(Some(day)) => (
            FOLLOW_UP,
            format!("the lead existed: its follow-up day stays {day}, {as_it_is}"),
        ),
        KeptWork::FollowUp(None) => (
            FOLLOW_UP,
            format!("the lead existed: it stays without a follow-up day, {as_it_is}"),
        ),
    }
}

/// A row waiting in a chunk.
struct Pending {
    row: SheetRow,
    raw_json: String,
    issues: Vec<CellIssue>,
    item: Item,
    /// A lead row's note, for its lead once stored.
    note: Option<String>,
    /// A lead row's working state, for its lead if the row creates it.
    work: ImportedWork,
}

enum Item {
    Lead(Box<SubmissionRequest>),
    Business(Box<crate::business::BusinessFields>),
}

fn empty_request() -> SubmissionRequest {
    SubmissionRequest {
        fields: crate::lead::fields::LeadFields::default(),
        team_id: None,
        raw_json: String::new(),
        idempotency_key_id: None,
        owner_chosen: false,
    }
}

/// One import, under way.
struct Import<'a> {
    destination: &'a dyn ImportDestination,
    user: &'a User,
    run: ImportRun<'a>,
    map: ColumnMap,
    verbatim: Verbatim,
    report: &'a mut dyn ImportReport,
    /// Report lines held back until the rows before them are settled, so the report reads in
    /// row order (a rejected row is known at once, a warning only when its chunk is stored).
    held: Vec<ReportLine>,
    summary: ImportSummary,
    /// Whether any row reached the destination yet (a refusal before that is the run's, not a row's).
    started: bool,
    /// How the file writes rows: its decimal mark, the widths of its rows so far.
    reading: RowReading,
}

/// Imports every row of `sheet` as `user` into `destination`. Err only when the file cannot be imported
/// at all (no column of ours, unreadable) or the destination refuses the run itself (a team the user
/// may not add to) before any row was stored.
pub async fn import(
    destination: &dyn ImportDestination,
    user: &User,
    run: ImportRun<'_>,
    sheet: &mut dyn SheetRows,
    report: &mut dyn ImportReport,
    progress: &mut dyn ImportProgress,
) -> anyhow::Result<ImportSummary> {
    let started = Instant::now();
    let map = match run.columns {
        Some(choices) => ColumnMap::chosen(run.kind, &sheet.header(), choices)
            .map_err(|p| anyhow::anyhow!("the columns chosen do not fit the file: {p}"))?,
        None => map_header(run.kind, sheet)
            .map_err(|no| anyhow::anyhow!("the file has {}", no.problem))?,
    };
    let summary = ImportSummary {
        encoding: sheet.encoding(),
        mapping: map
            .mapping()
            .into_iter()
            .map(|(h, f)| (h, f.to_owned()))
            .collect(),
        ignored: map.ignored(),
        ..ImportSummary::default()
    };
    let chunk_size = run.chunk.max(1);
    let mut import = Import {
        destination,
        user,
        run,
        verbatim: Verbatim::new(&map),
        map,
        report,
        held: Vec::new(),
        summary,
        started: false,
        reading: RowReading::new(sheet.separator()),
    };
    let mut chunk: Vec<Pending> = Vec::with_capacity(chunk_size);
    while let Some(read) = sheet.next_row()? {
        if let Some(pending) = import.take(read) {
            chunk.push(pending);
        }
        if chunk.is_empty() {
            import.write_held()?;
        }
        if chunk.len() >= chunk_size {
            import.flush(std::mem::take(&mut chunk)).await?;
            import.write_held()?;
            if !progress
                .chunk_done(sheet.bytes_read(), &import.summary)
                .await
            {
                import.summary.stopped = true;
                break;
            }
        }
    }
    if !chunk.is_empty() {
        import.flush(chunk).await?;
    }
    import.write_held()?;
    progress
        .chunk_done(sheet.bytes_read(), &import.summary)
        .await;
    let mut summary = import.summary;
    summary.elapsed = started.elapsed();
    Ok(summary)
}

impl Import<'_> {
    /// Writes the held report lines in row order.
    fn write_held(&mut self) -> anyhow::Result<()> {
        self.held.sort_by_key(|line| line.row);
        for line in self.held.drain(..) {
            self.report.write(&line)?;
        }
        Ok(())
    }

    /// Reads one row: None when it is blank or rejected (and reported), else the row to send.
    fn take(&mut self, read: ReadRow) -> Option<Pending> {
        let row = match read {
            ReadRow::Unreadable { row, reason, cells } => {
                self.summary.rows += 1;
                self.reject(row, "unreadable_row", &reason, cells);
                return None;
            }
            ReadRow::Row(row) => row,
        };
        // A spreadsheet's empty lines (`,,,,`) are no rows; nor are a re-imported report's warning lines.
        let data_cells = row
            .cells
            .iter()
            .enumerate()
            .filter(|(i, c)| !self.map.is_report_column(*i) && !c.trim().is_empty())
            .count();
        if data_cells == 0 {
            return None;
        }
        self.summary.rows += 1;
        if self.reading.is_totals_line(&self.map, &row.cells) {
            let message = "a totals line (a sum of the rows above), not a lead: not imported";
            self.reject(row.row, "totals_row", message, row.cells);
            return None;
        }
        let width = self.map.headers.len();
        let beyond = row
            .cells
            .iter()
            .skip(width)
            .filter(|c| !c.trim().is_empty())
            .count();
        if beyond > 0 {
            let message = format!(
                "{beyond} cell(s) with values beyond the header's {width} columns: the columns may be shifted, so nothing of the row is used"
            );
            self.reject(row.row, "shifted_row", &message, row.cells);
            return None;
        }
        // Numbers as the cleaning reads them (a decimal-comma file's `42,3611` as `42.3611`).
        let mut read_issues = Vec::new();
        let cells = self
            .reading
            .in_point_form(&self.map, &row.cells, &mut read_issues);
        let misfit = || misfits(&self.map, &cells);
        if let Some(message) = self.reading.shifted(width, row.cells.len(), misfit) {
            self.reject(row.row, "shifted_row", &message, row.cells);
            return None;
        }
        let raw_json = self.verbatim.row(&row.cells);
        let (item, mut issues, usable, note, work) = match self.run.kind {
            ImportKind::Leads => {
                let cleaned = lead_row(&self.map, &cells);
                let usable = cleaned.has_field();
                let mut fields = cleaned.fields;
                if fields.source.is_none() {
                    fields.source = self.run.source.map(str::to_owned);
                }
                let request = SubmissionRequest {
                    team_id: cleaned.team_id.or(self.run.team_id),
                    fields,
                    raw_json: String::new(),
                    idempotency_key_id: None,
                    owner_chosen: cleaned.work.assignee_email.is_some(),
                };
                let item = Item::Lead(Box::new(request));
                let mut work = cleaned.work;
                work.tags.extend(self.run.tags.iter().cloned());
                (item, cleaned.issues, usable, cleaned.note, work)
            }
            ImportKind::Businesses { .. } => {
                let cleaned = business_row(&self.map, &cells);
                let usable = cleaned.has_field();
                let item = Item::Business(Box::new(cleaned.fields));
                (item, cleaned.issues, usable, None, ImportedWork::default())
            }
        };
        if !usable {
            let mut message = "no cell holds a usable field".to_owned();
            if let Some(first) = issues.first() {
                message.push_str(&format!(" ({}: {})", first.field, first.message));
            }
            self.reject(row.row, "no_usable_field", &message, row.cells);
            return None;
        }
        issues.extend(read_issues);
        self.warn_recoded(&row);
        Some(Pending {
            row,
            raw_json,
            issues,
            item,
            note,
            work,
        })
    }

    /// A `recoded_cell` warning for each cell of `row` the file had in another encoding than
    /// its own (a row pasted from Excel on Windows into a UTF-8 file), read in that one.
    fn warn_recoded(&mut self, row: &SheetRow) {
        for &(column, encoding) in &row.recoded {
            self.hold_warning(ReportLine {
                row: row.row,
                column: self.map.headers.get(column).cloned().unwrap_or_default(),
                value: row.cells.get(column).cloned().unwrap_or_default(),
                code: "recoded_cell".to_owned(),
                message: format!(
                    "not text in the file's encoding: read as {encoding} (what Excel on Windows saves); check its characters"
                ),
                cells: Vec::new(),
            });
        }
    }

    /// Counts `rows` of this import's kind that ended as `outcome`, for `/metrics` (the summary
    /// counts the same rows for the person who imports).
    fn count_rows(&self, outcome: &'static str, rows: u64) {
        metrics::counter!(IMPORT_ROWS, "kind" => self.run.kind.name(), "outcome" => outcome)
            .increment(rows);
    }

    fn reject(&mut self, row: u64, code: &str, message: &str, cells: Vec<String>) {
        self.summary.rejected += 1;
        self.count_rows("rejected", 1);
        self.summary.count_reason(code);
        self.held.push(ReportLine {
            row,
            column: String::new(),
            value: String::new(),
            code: code.to_owned(),
            message: message.to_owned(),
            cells,
        })
    }

    /// A warning about one cell of an imported row.
    fn warn(
        &mut self,
        row: &SheetRow,
        field: &str,
        code: &str,
        message: &str,
        value: Option<&str>,
    ) {
        let column = self.map.fields.iter().position(|f| *f == Some(field));
        let value = match (value, column) {
            (Some(v), _) => v.to_owned(),
            (None, Some(i)) => row.cells.get(i).cloned().unwrap_or_default(),
            (None, None) => String::new(),
        };
        let column = column
            .and_then(|i| self.map.headers.get(i).cloned())
            .unwrap_or_else(|| field.to_owned());
        self.hold_warning(ReportLine {
            row: row.row,
            column,
            value,
            code: code.to_owned(),
            message: message.to_owned(),
            cells: Vec::new(),
        })
    }

    /// Holds a warning's report line for its row's place in the report, and counts it.
    fn hold_warning(&mut self, line: ReportLine) {
        self.summary.warnings += 1;
        self.summary.count_reason(&line.code);
        self.held.push(line);
    }

    fn warn_all(&mut self, pending: &Pending, warnings: &[Warning]) {
        for issue in &pending.issues {
            self.warn(
                &pending.row,
                issue.field,
                issue.code,
                &issue.message,
                Some(&issue.value),
            );
        }
        for w in warnings {
            self.warn(&pending.row, &w.field, &w.code, &w.message, None);
        }
    }

    /// A refusal of a whole chunk: the run's own before any row was stored, else its rows'.
    fn refused(&mut self, rows: Vec<Pending>, e: anyhow::Error) -> anyhow::Result<()> {
        if !self.started {
            return Err(e);
        }
        let message = format!("not imported: {e:#}");
        for p in rows {
            self.reject(p.row.row, "not_imported", &message, p.row.cells);
        }
        Ok(())
    }

    async fn flush(&mut self, rows: Vec<Pending>) -> anyhow::Result<()> {
        match self.run.kind {
            ImportKind::Leads => self.flush_leads(rows).await,
            ImportKind::Businesses {
                relationship_type,
                skip_duplicates,
                auto_categorize,
            } => {
                let request = ImportRequest {
                    elements: Vec::new(),
                    relationship_type: *relationship_type,
                    skip_duplicates: *skip_duplicates,
                    auto_categorize: *auto_categorize,
                    team_id: self.run.team_id,
                };
                self.flush_businesses(request, rows).await
            }
        }
    }

    async fn flush_leads(&mut self, mut rows: Vec<Pending>) -> anyhow::Result<()> {
        let requests: Vec<SubmissionRequest> = rows
            .iter_mut()
            .filter_map(|p| match &mut p.item {
                Item::Lead(r) => {
                    // Moved out: the row keeps only what the report needs.
                    let mut request = std::mem::replace(&mut **r, empty_request());
                    request.raw_json = std::mem::take(&mut p.raw_json);
                    Some(request)
                }
                Item::Business(_) => None,
            })
            .collect();
        let outcomes = match self
            .destination
            .submit_leads(self.user, requests, self.run.team_id)
            .await
        {
            Ok(outcomes) => outcomes,
            Err(e) => return self.refused(rows, e),
        };
        self.started = true;
        for (pending, outcome) in rows.iter().zip(&outcomes) {
            self.warn_all(pending, &outcome.warnings);
            match outcome.action {
                Some(LeadAction::Created) => {
                    self.summary.created += 1;
                    self.count_rows("created", 1);
                }
                Some(LeadAction::Updated) if outcome.lead_changed => {
                    self.summary.updated += 1;
                    self.count_rows("updated", 1);
                }
                // A merge whose change later rows of the chunk undid (two spellings of one
                // address) left the lead as it was: it changed nothing, as a duplicate.
                Some(LeadAction::Updated | LeadAction::Skipped) => {
                    self.summary.skipped += 1;
                    self.count_rows("skipped", 1);
                }
                // Kept as a submission; reported so the row can be imported again.
                None => {
                    self.summary.failed += 1;
                    self.count_rows("failed", 1);
                    self.summary.count_reason("failed");
                    let reason = outcome
                        .error
                        .as_deref()
                        .unwrap_or("the lead could not be stored");
                    self.held.push(ReportLine {
                        row: pending.row.row,
                        column: String::new(),
                        value: String::new(),
                        code: "failed".into(),
                        message: reason.to_owned(),
                        cells: pending.row.cells.clone(),
                    });
                }
            }
        }
        self.add_notes(&rows, &outcomes).await;
        self.set_work(&rows, &outcomes).await;
        Ok(())
    }

    /// Gives each lead a row created the row's status, owner, follow-up day, do-not-call mark,
    /// tags and numbers not to call. A row that merged into a lead that existed gives it only the
    /// mark, the tags and the numbers, and leaves the rest of its working state as the team has
    /// it, saying so of each cell that says otherwise than the lead; a row whose working state
    /// could not be set says so too (the lead stays, as the file made it).
    async fn set_work(&mut self, rows: &[Pending], outcomes: &[ElementOutcome]) {
        // Each row whose work is sent, with the work sent: only a row whose work sets a status,
        // owner or follow-up day counts in the summary's `work` (a row's tags, the file's tags
        // or a do-not-call mark alone are set too, but are no working state).
        let mut applied: Vec<(&Pending, ImportedWork)> = Vec::new();
        let mut work = Vec::new();
        // Rows that merged into a lead that existed, with the status, owner and follow-up day
        // it does not take from them.
        let mut left: Vec<(&Pending, i64, ImportedWork)> = Vec::new();
        for (pending, outcome) in rows.iter().zip(outcomes) {
            if pending.work.is_empty() {
                continue;
            }
            match (outcome.action, outcome.lead_id) {
                (Some(LeadAction::Created), Some(lead_id)) => {
                    applied.push((pending, pending.work.clone()));
                    work.push((lead_id, pending.work.clone()));
                }
                (Some(_), Some(lead_id)) => {
                    let aside = pending.work.left_for_existing_lead();
                    if !aside.is_empty() {
                        left.push((pending, lead_id, aside));
                    }
                    if let Some(mark) = pending.work.for_existing_lead() {
                        applied.push((pending, mark.clone()));
                        work.push((lead_id, mark));
                    }
                }
                _ => {}
            }
        }
        if !work.is_empty() {
            match self.destination.set_work(self.user, work).await {
                Ok(sets) => {
                    for ((pending, sent), set) in applied.into_iter().zip(sets) {
                        match set {
                            WorkSet::All if sent.sets_working_state() => self.summary.work += 1,
                            WorkSet::All => {}
                            WorkSet::OwnerLeftOut(reason) => {
                                let message = format!("the owner was left out: {reason}");
                                self.warn(&pending.row, ASSIGNEE, WORK_NOT_SET, &message, None);
                            }
                            WorkSet::Not(reason) => self.warn_work(pending, &sent, &reason),
                        }
                    }
                }
                Err(e) => {
                    let message = format!(
                        "the status, owner, follow-up day, do-not-call mark and tags could not be set: {e:#}"
                    );
                    for (pending, sent) in applied {
                        self.warn_work(pending, &sent, &message);
                    }
                }
            }
        }
        self.warn_kept(left).await;
    }

    /// Of each row that merged into a lead that existed, each status, owner or follow-up cell
    /// that says otherwise than the lead, which keeps its own: a `work_not_set` warning under
    /// that cell's column, naming what the lead keeps. A cell the lead agrees with (a lead
    /// export imported again) is no edit lost and says nothing. Read once the chunk's work is
    /// set, so a row merging into a lead an earlier row of the file created is compared with
    /// what that row set.
    async fn warn_kept(&mut self, left: Vec<(&Pending, i64, ImportedWork)>) {
        if left.is_empty() {
            return;
        }
        let ids: BTreeSet<i64> = left.iter().map(|(_, lead_id, _)| *lead_id).collect();
        let leads = match self
            .destination
            .working_state(self.user, ids.into_iter().collect())
            .await
        {
            Ok(leads) => leads,
            Err(e) => {
                // What the leads have is not known: each such cell is said to be left aside.
                tracing::warn!(error = %e, "the working state of the leads rows merged into was not read");
                HashMap::new()
            }
        };
        for (pending, lead_id, aside) in left {
            match leads.get(&lead_id) {
                Some(lead) => {
                    for kept in aside.kept_by(lead) {
                        let (field, message) = kept_work_said(&kept);
                        self.warn(&pending.row, field, WORK_NOT_SET, &message, None);
                    }
                }
                None => {
                    let message =
                        "the lead existed: its status, owner and follow-up day stay as the team has them";
                    for field in work_columns(&aside) {
                        self.warn(&pending.row, field, WORK_NOT_SET, message, None);
                    }
                }
            }
        }
    }

    /// A `work_not_set` warning for `sent`, a row's working state none of which was set, under
    /// the column of its first part: status, follow-up, owner, do-not-call, tags or a number's
    /// do-not-call flag.
    fn warn_work(&mut self, pending: &Pending, sent: &ImportedWork, message: &str) {
        let field = work_columns(sent).into_iter().next().unwrap_or(NUMBER_DNC);
        self.warn(&pending.row, field, WORK_NOT_SET, message, None);
    }

    /// Puts each stored row's note on its lead. When the notes cannot be stored, the leads stay
    /// and each row with a note says so in the report (the note is in its submission).
    async fn add_notes(&mut self, rows: &[Pending], outcomes: &[ElementOutcome]) {
        let noted: Vec<(&Pending, i64, &String)> = rows
            .iter()
            .zip(outcomes)
            .filter_map(|(p, o)| Some((p, o.lead_id?, p.note.as_ref()?)))
            .collect();
        if noted.is_empty() {
            return;
        }
        let notes = noted
            .iter()
            .map(|(_, lead, note)| (*lead, (*note).clone()))
            .collect();
        match self.destination.add_notes(self.user, notes).await {
            Ok(added) => self.summary.notes += added,
            Err(e) => {
                let message = format!("the note could not be added: {e:#}");
                for (pending, _, _) in noted {
                    self.warn(&pending.row, NOTES, "note_not_added", &message, None);
                }
            }
        }
    }

    async fn flush_businesses(
        &mut self,
        mut request: ImportRequest,
        rows: Vec<Pending>,
    ) -> anyhow::Result<()> {
        request.elements = rows
            .iter()
            .map(|p| match &p.item {
                Item::Business(fields) => Ok((**fields).clone()),
                Item::Lead(_) => Err("not a business".to_owned()),
            })
            .collect();
        let outcome = match self.destination.import_businesses(self.user, request).await {
            Ok(outcome) => outcome,
            Err(e) => return self.refused(rows, e),
        };
        self.started = true;
        self.summary.created += outcome.imported.len() as u64;
        self.summary.skipped += outcome.skipped.len() as u64;
        self.count_rows("created", outcome.imported.len() as u64);
        self.count_rows("skipped", outcome.skipped.len() as u64);
        let mut errors = outcome.errors.iter().peekable();
        for (index, pending) in rows.iter().enumerate() {
            match errors.next_if(|e| e.index == index) {
                Some(error) => {
                    self.reject(
                        pending.row.row,
                        "refused",
                        &error.detail,
                        pending.row.cells.clone(),
                    );
                }
                None => self.warn_all(pending, &[]),
            }
        }
        Ok(())
    }
}
