//! One row of a spreadsheet into a lead's or a business's fields. Each cell is read into the API's value
//! (`cells`); a cell that still breaks a rule of the API is dropped from the row with a warning, and the row
//! is kept: one bad optional cell must not throw away the address, owner and phone beside it.
use std::collections::BTreeSet;

use crate::address::split_one_line;
use crate::business::BusinessFields;
use crate::lead::fields::{max_len, LeadFields};
use crate::lead::work::tags::{not_a_tag, tags_of_cell};
use crate::lead::work::{follow_up_day, ImportedWork, LeadStatus, NOTE_MAX_CHARS};
use crate::parse::{
    clean_note, normalize_email, normalize_phone, parse_permit_date, split_person_name,
    state_from_name,
};

use super::cells::{
    cell_text, read_lead_status, read_number, read_phone_type, read_property_type, read_rating,
    read_whole,
};
use super::columns::{
    ColumnMap, ASSIGNEE, DO_NOT_CALL, DO_NOT_CALL_PHONES, FOLLOW_UP, FULL_NAME, LEAD_STATUS,
    MAIL_UNIT, NOTES, NUMBER_DNC, STREET_PARTS, TAGS, UNIT,
};
use super::street_columns::{join_unit, street_of_parts};

/// A cell dropped (or changed) by the cleaning, reported with the row.
#[derive(Debug, Clone, PartialEq)]
pub struct CellIssue {
    pub field: &'static str,
    pub value: String,
    pub code: &'static str,
    pub message: String,
}

impl CellIssue {
    pub(super) fn new(
        field: &'static str,
        value: &str,
        code: &'static str,
        message: String,
    ) -> CellIssue {
        CellIssue {
            field,
            value: value.to_owned(),
            code,
            message,
        }
    }
}

/// A lead row after cleaning.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeadRow {
    pub fields: LeadFields,
    pub team_id: Option<i64>,
    /// A note for the row's lead (several lines kept).
    pub note: Option<String>,
    /// The working state of the lead, if the row creates it.
    pub work: ImportedWork,
    pub issues: Vec<CellIssue>,
}

impl LeadRow {
    /// Whether any field kept a value (a row with none is rejected; a note alone is no lead).
    pub fn has_field(&self) -> bool {
        self.fields != LeadFields::default()
    }
}

/// `(field, cell text)` of each mapped non-blank cell, in column order.
fn mapped<'a>(
    map: &'a ColumnMap,
    cells: &'a [String],
) -> impl Iterator<Item = (&'static str, &'a str)> {
    map.fields
        .iter()
        .zip(cells)
        .filter_map(|(field, cell)| Some(((*field)?, cell_text(cell)?)))
}

/// Text longer than `limit` is dropped, not cut: a cut value would look complete.
fn text_within(
    field: &'static str,
    value: &str,
    limit: usize,
    issues: &mut Vec<CellIssue>,
) -> Option<String> {
    if value.chars().count() > limit {
        issues.push(CellIssue::new(
            field,
            value,
            "too_long",
            format!("longer than {limit} characters; dropped"),
        ));
        return None;
    }
    Some(value.to_owned())
}

/// A rule a cell may break: the issue's code, and what the cell must be. Every rule reports a
/// dropped cell in the same words; the rules of the columns follow.
struct Rule<'a> {
    code: &'static str,
    what: &'a str,
}

impl<'a> Rule<'a> {
    const fn new(code: &'static str, what: &'a str) -> Self {
        Rule { code, what }
    }

    /// The cell as the API takes it (`read`), or None with an issue saying it is not `what`.
    fn keep<T>(
        &self,
        read: Option<T>,
        (field, value): (&'static str, &str),
        issues: &mut Vec<CellIssue>,
    ) -> Option<T> {
        if read.is_none() {
            let what = self.what;
            issues.push(CellIssue::new(
                field,
                value,
                self.code,
                format!("'{value}' is not {what}; dropped"),
            ));
        }
        read
    }
}

const STATE: Rule = Rule::new("invalid_state", "a US state, DC or territory");
const PHONE_TYPE: Rule = Rule::new(
    "invalid_phone_type",
    "a phone type (mobile, landline, voip)",
);
const PROPERTY_TYPE: Rule = Rule::new(
    "invalid_property_type",
    "a property type (residential, commercial, agricultural, vacant_land)",
);
const BEDROOMS: Rule = Rule::new("invalid_number", "a number of bedrooms (0 to 100)");
const TEAM_ID: Rule = Rule::new("invalid_number", "a team id");
const PHONE: Rule = Rule::new("invalid_phone", "a valid phone number");
const RATING: Rule = Rule::new("invalid_number", "a rating from 0 to 5");
const REVIEW_COUNT: Rule = Rule::new("invalid_number", "a count of reviews");
const STATUS: Rule = Rule::new(
    "invalid_status",
    "a lead status (new, contacted, qualified, won, lost)",
);
const ASSIGNEE_EMAIL: Rule = Rule::new("invalid_email", "an e-mail address");
const FOLLOW_UP_DAY: Rule = Rule::new("invalid_date", "a day from the year 2000 to 2199");
const YES_OR_NO: Rule = Rule::new("invalid_flag", "yes or no (y, n, true, false, 1, 0)");

/// A yes/no cell as spreadsheets and list services write one.
fn read_yes_no(cell: &str) -> Option<bool> {
    match cell.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "true" | "1" | "x" | "dnc" => Some(true),
        "n" | "no" | "false" | "0" => Some(false),
        _ => None,
    }
}

/// A state or territory by its code or name, as its two-letter code.
fn state_cell(cell: (&'static str, &str), issues: &mut Vec<CellIssue>) -> Option<String> {
    let code = state_from_name(cell.1).map(|c| c.as_str().to_owned());
    STATE.keep(code, cell, issues)
}

/// The row's cells with each number its file flags do not call blanked (`ColumnMap::number_flags`),
/// each left out with a warning and, where it reads as a number, added (E.164) to `barring` for
/// the lead to bar (`ImportedWork::numbers_not_to_call`: a lead that has it loses it, and no
/// later list adds it back); None when the file flags no number. The row's verbatim copy (its
/// submission) keeps the number: only the lead's numbers, the ones people dial, leave it out.
fn numbers_not_to_call(
    map: &ColumnMap,
    cells: &[String],
    issues: &mut Vec<CellIssue>,
    barring: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    if map.number_flags.is_empty() {
        return None;
    }
    let mut kept = cells.to_vec();
    for &(flag, phone) in &map.number_flags {
        let Some(flagged) = cells.get(flag).and_then(|c| cell_text(c)) else {
            continue;
        };
        let Some(number) = cells.get(phone).and_then(|c| cell_text(c)) else {
            continue;
        };
        let field = map.feeds(phone).unwrap_or("primary_phone");
        match read_yes_no(flagged) {
            Some(true) => {
                let message = format!(
                    "{number} is flagged do not call ({}); left out of the lead's numbers",
                    map.headers.get(flag).map_or("", String::as_str)
                );
                issues.push(CellIssue::new(field, number, "number_not_to_call", message));
                barring.extend(normalize_phone(number));
                if let Some(cell) = kept.get_mut(phone) {
                    cell.clear();
                }
            }
            Some(false) => {}
            None => {
                YES_OR_NO.keep(None::<bool>, (NUMBER_DNC, flagged), issues);
            }
        }
    }
    Some(kept)
}

/// The row's note: its notes cell, then a line `Header: cell` for each non-blank cell of a column
/// kept in the note (`ColumnMap::note_lines`), in the file's order, then `last` (a stage that is
/// no status).
fn with_note_lines(
    map: &ColumnMap,
    cells: &[String],
    note: Option<String>,
    last: Option<String>,
) -> Option<String> {
    let lines = map.note_lines.iter().filter_map(|&i| {
        let cell = clean_note(cells.get(i).and_then(|c| cell_text(c))?);
        let header = map.headers.get(i).map_or("", |h| h.trim());
        (!cell.is_empty()).then(|| format!("{header}: {cell}"))
    });
    let all: Vec<String> = note.into_iter().chain(lines).chain(last).collect();
    (!all.is_empty()).then(|| all.join("\n"))
}

/// Cleans one lead row.
pub fn lead_row(map: &ColumnMap, cells: &[String]) -> LeadRow {
    let mut row = LeadRow::default();
    let barring = &mut row.work.numbers_not_to_call;
    let kept = numbers_not_to_call(map, cells, &mut row.issues, barring);
    let cells = kept.as_deref().unwrap_or(cells);
    let issues = &mut row.issues;
    let (mut unit, mut mail_unit, mut note, mut stage_line) = (None, None, None, None);
    let mut street_parts: [Option<String>; 4] = Default::default();
    for (field, value) in mapped(map, cells) {
        let f = &mut row.fields;
        let cell = (field, value);
        match field {
            "state" => f.state = state_cell(cell, issues),
            "mail_state" => f.mail_state = state_cell(cell, issues),
            "primary_phone_type" => {
                let read = read_phone_type(value).map(str::to_owned);
                f.primary_phone_type = PHONE_TYPE.keep(read, cell, issues);
            }
            "property_type" => {
                let read = read_property_type(value).map(str::to_owned);
                f.property_type = PROPERTY_TYPE.keep(read, cell, issues);
            }
            "bedrooms" => {
                let read = read_whole(value).filter(|n| (0..=100).contains(n));
                f.bedrooms = BEDROOMS.keep(read, cell, issues);
            }
            "latitude" | "longitude" => {
                let limit = if field == "latitude" { 90.0 } else { 180.0 };
                let what = format!("a {field} (-{limit} to {limit})");
                let rule = Rule::new("invalid_number", &what);
                let n = rule.keep(
                    read_number(value).filter(|n| n.abs() <= limit),
                    cell,
                    issues,
                );
                if field == "latitude" {
                    f.latitude = n
                } else {
                    f.longitude = n
                }
            }
            "team_id" => {
                row.team_id = TEAM_ID.keep(read_whole(value).filter(|n| *n > 0), cell, issues);
            }
            LEAD_STATUS => match read_lead_status(value) {
                Some(status) => row.work.status = Some(status).filter(|s| *s != LeadStatus::New),
                // A sales process's own stage ("Proposal Sent"): no status, but where the lead
                // stood, so it stays where the person working the lead reads it.
                None => {
                    let header = map.header_of(LEAD_STATUS).unwrap_or("Lead status");
                    stage_line = Some(format!("{}: {}", header.trim(), clean_note(value)));
                    let what = STATUS.what;
                    let message = format!("'{value}' is not {what}; kept in the lead's note");
                    issues.push(CellIssue::new(field, value, STATUS.code, message));
                }
            },
            DO_NOT_CALL => {
                // "No" sets nothing, as `new` does for a status: a file never takes a mark off.
                let marked = YES_OR_NO.keep(read_yes_no(value), cell, issues);
                row.work.do_not_call = marked.filter(|m| *m);
            }
            TAGS => {
                let (tags, refused) = tags_of_cell(value);
                for piece in refused {
                    let message = format!("{}; dropped", not_a_tag(&piece));
                    issues.push(CellIssue::new(field, &piece, "invalid_tag", message));
                }
                row.work.tags.extend(tags);
            }
            DO_NOT_CALL_PHONES => {
                let pieces = value.split([',', ';']).map(str::trim);
                for piece in pieces.filter(|p| !p.is_empty()) {
                    let number = PHONE.keep(normalize_phone(piece), (field, piece), issues);
                    row.work.numbers_not_to_call.extend(number);
                }
            }
            ASSIGNEE => {
                let read = normalize_email(value);
                row.work.assignee_email = ASSIGNEE_EMAIL.keep(read, cell, issues);
            }
            FOLLOW_UP => {
                // Written as spreadsheets write dates (`12/8/2026`, `Dec 8, 2026`), then held to
                // the API's rule for a follow-up day.
                let day = parse_permit_date(value).and_then(|d| follow_up_day(&d.to_string()));
                row.work.follow_up = FOLLOW_UP_DAY.keep(day, cell, issues);
            }
            NOTES => note = Some(clean_note(value)).filter(|n| !n.is_empty()),
            UNIT => unit = Some(value.to_owned()),
            _ if STREET_PARTS.contains(&field) => {
                let part = STREET_PARTS.iter().position(|p| *p == field);
                if let Some(slot) = part.and_then(|i| street_parts.get_mut(i)) {
                    *slot = Some(value.to_owned());
                }
            }
            MAIL_UNIT => mail_unit = Some(value.to_owned()),
            FULL_NAME => {
                // Within the limit of one name, each part is too.
                let whole = text_within(field, value, max_len("last_name"), issues);
                if let Some(name) = whole.as_deref().and_then(split_person_name) {
                    (f.first_name, f.last_name) = (name.first, name.last);
                }
            }
            _ => {
                if let Some(slot) = f.string_field_mut(field) {
                    *slot = text_within(field, value, max_len(field), issues);
                }
            }
        }
    }
    let note = with_note_lines(map, cells, note, stage_line);
    row.note = note.and_then(|n| text_within(NOTES, &n, NOTE_MAX_CHARS, issues));
    let f = &mut row.fields;
    // A spare phone or e-mail column's cell goes into the first slot the row leaves empty.
    for &(column, slots) in &map.spares {
        let Some(value) = cells.get(column).and_then(|c| cell_text(c)) else {
            continue;
        };
        let free = slots
            .iter()
            .copied()
            .find(|slot| f.string_field_mut(slot).is_some_and(|v| v.is_none()));
        let Some(slot) = free else {
            let last = slots[slots.len() - 1];
            issues.push(CellIssue::new(
                last,
                value,
                "no_free_slot",
                format!("one more than the {} a lead keeps; dropped", slots.len()),
            ));
            continue;
        };
        let kept = text_within(slot, value, max_len(slot), issues);
        if let Some(v) = f.string_field_mut(slot) {
            *v = kept;
        }
    }
    if let Some(line) = street_of_parts(&f.address, street_parts) {
        f.address = text_within("address", &line, max_len("address"), issues);
    }
    whole_address(&mut f.address, [&mut f.city, &mut f.state, &mut f.zip_code]);
    whole_address(
        &mut f.mail_address,
        [&mut f.mail_city, &mut f.mail_state, &mut f.mail_zip],
    );
    // After the one-line split: a unit belongs to the street, not after the ZIP.
    join_unit(&mut f.address, unit, UNIT, issues);
    join_unit(&mut f.mail_address, mail_unit, MAIL_UNIT, issues);
    // An export's coordinates that a geocoder of ours found (a ZIP centroid among them) are not
    // the source's: given, they would read as exact and never be looked up again. The address
    // is geocoded again instead, which gives the lead its provenance back.
    if f.address.is_some() && map.geocoded_by_us(cells) {
        (f.latitude, f.longitude) = (None, None);
    }
    // Coordinates come in pairs (the API's rule): one alone cannot place the lead.
    let alone = match (f.latitude, f.longitude) {
        (Some(v), None) => Some(("latitude", v, &mut f.latitude)),
        (None, Some(v)) => Some(("longitude", v, &mut f.longitude)),
        _ => None,
    };
    if let Some((field, value, slot)) = alone {
        *slot = None;
        issues.push(CellIssue::new(
            field,
            &value.to_string(),
            "unpaired_coordinate",
            format!("{field} without the other coordinate; dropped"),
        ));
    }
    row
}

/// A whole address in the street cell ("123 Main St, Austin, TX 78701") of a row with no city,
/// state or ZIP of its own fills them (`address::split_one_line`); a row that has any keeps its
/// street cell as written.
fn whole_address(street: &mut Option<String>, [city, state, zip]: [&mut Option<String>; 3]) {
    if city.is_some() || state.is_some() || zip.is_some() {
        return;
    }
    if let Some(line) = street.as_deref().and_then(split_one_line) {
        *street = Some(line.street);
        *city = line.city;
        *state = Some(line.state.as_str().to_owned());
        *zip = line.zip;
    }
}

/// A business row after cleaning.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BusinessRow {
    pub fields: BusinessFields,
    pub issues: Vec<CellIssue>,
}

impl BusinessRow {
    pub fn has_field(&self) -> bool {
        self.fields != BusinessFields::default()
    }
}

/// Cleans one business row.
pub fn business_row(map: &ColumnMap, cells: &[String]) -> BusinessRow {
    let mut row = BusinessRow::default();
    let issues = &mut row.issues;
    for (field, value) in mapped(map, cells) {
        let f = &mut row.fields;
        let cell = (field, value);
        match field {
            "state" => f.state = state_cell(cell, issues),
            // The leads' rule: a number that is not valid is dropped from the row (the API
            // refuses such an element), so the business keeps only a number one can call.
            "phone" => f.phone = PHONE.keep(normalize_phone(value), cell, issues),
            "rating" => {
                let read = read_rating(value).filter(|r| (0.0..=5.0).contains(r));
                f.rating = RATING.keep(read, cell, issues);
            }
            "review_count" => {
                let read = read_whole(value).filter(|n| *n >= 0);
                f.review_count = REVIEW_COUNT.keep(read, cell, issues);
            }
            _ => {
                let limit = crate::business::model::MAX_FIELD_LEN;
                let kept = text_within(field, value, limit, issues);
                if let Some(slot) = f.string_field_mut(field) {
                    *slot = kept;
                }
            }
        }
    }
    let f = &mut row.fields;
    whole_address(&mut f.address, [&mut f.city, &mut f.state, &mut f.zip_code]);
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::ImportKind;

    fn lead(cells: &[(&str, &str)]) -> LeadRow {
        let headers: Vec<String> = cells.iter().map(|(h, _)| (*h).to_owned()).collect();
        let values: Vec<String> = cells.iter().map(|(_, v)| (*v).to_owned()).collect();
        let map = ColumnMap::new(&ImportKind::Leads, &headers).unwrap();
        lead_row(&map, &values)
    }

    fn codes(row: &LeadRow) -> Vec<(&str, &str)> {
        row.issues.iter().map(|i| (i.field, i.code)).collect()
    }

    /// The numbers the row's lead is to bar (`ImportedWork::numbers_not_to_call`).
    fn barring(row: &LeadRow) -> Vec<&str> {
        let numbers = &row.work.numbers_not_to_call;
        numbers.iter().map(String::as_str).collect()
    }

    #[test]
    fn a_number_flagged_do_not_call_is_left_out_of_the_leads_numbers() {
        let row = lead(&[
            ("Address", "1 Main St"),
            ("Phone 1", "512-555-0101"),
            ("Phone 1 DNC", "Y"),
            ("Phone 2", "512-555-0102"),
            ("Phone 2 DNC", "N"),
            ("Phone 3", "512-555-0103"),
            ("Phone 3 DNC", "maybe"),
        ]);
        let f = &row.fields;
        assert_eq!(f.primary_phone, None);
        assert_eq!(f.phone_2.as_deref(), Some("512-555-0102"));
        assert_eq!(f.phone_3.as_deref(), Some("512-555-0103"));
        assert_eq!(
            codes(&row),
            [
                ("primary_phone", "number_not_to_call"),
                (NUMBER_DNC, "invalid_flag")
            ]
        );
        assert!(
            row.issues[0].message.contains("(Phone 1 DNC)"),
            "{:?}",
            row.issues
        );
        // Kept for the lead to bar, as the lead's numbers are written.
        assert_eq!(barring(&row), ["+15125550101"]);
    }

    #[test]
    fn a_spare_phone_fills_the_first_slot_the_row_leaves_empty() {
        // An export's own phone columns, empty or not, and the number found after them.
        let slots = ["primary_phone", "phone_2", "phone_3", "phone_4", "phone_5"];
        let mut cells: Vec<(&str, &str)> = slots.iter().map(|s| (*s, "")).collect();
        cells.push(("address", "1 Elm St"));
        cells.push(("Phone 1", "(512) 555-0101"));
        let row = lead(&cells);
        assert_eq!(row.fields.primary_phone.as_deref(), Some("(512) 555-0101"));
        assert!(row.issues.is_empty());

        cells[0].1 = "512-555-0100";
        let row = lead(&cells);
        assert_eq!(row.fields.primary_phone.as_deref(), Some("512-555-0100"));
        assert_eq!(row.fields.phone_2.as_deref(), Some("(512) 555-0101"));

        // A row with five numbers keeps them and says the sixth was dropped.
        for cell in &mut cells[..5] {
            cell.1 = "512-555-0100";
        }
        let row = lead(&cells);
        assert_eq!(row.fields.phone_5.as_deref(), Some("512-555-0100"));
        assert_eq!(codes(&row), [("phone_5", "no_free_slot")]);
        assert_eq!(row.issues[0].value, "(512) 555-0101");
    }

    #[test]
    fn coordinates_a_geocoder_of_ours_found_are_looked_up_again() {
        let exported = |source: &str, address: &str| {
            lead(&[
                ("address", address),
                ("latitude", "42.358786"),
                ("longitude", "-71.129581"),
                ("geocode_source", source),
                ("geocode_match", "zip_centroid"),
            ])
        };
        let coordinates = |row: &LeadRow| (row.fields.latitude, row.fields.longitude);
        let found = exported("zip", "1 Main St");
        assert_eq!(coordinates(&found), (None, None));
        assert!(found.issues.is_empty(), "{:?}", found.issues);
        // The source's own coordinates (no geocoder named) are kept, and so are the only place
        // of a row with no address to look up.
        let given = (Some(42.358786), Some(-71.129581));
        assert_eq!(coordinates(&exported("", "1 Main St")), given);
        assert_eq!(coordinates(&exported("census", "")), given);
    }

    #[test]
    fn spreadsheet_writings_become_api_values() {
        let row = lead(&[
            ("State", "Texas"),
            ("Mailing State", "Tex."),
            ("Phone Type", "cell"),
            ("Property Type", "condo"),
            ("Beds", "three"),
            ("Lat", "30.25"),
            ("Lng", "'-97.75"),
            ("Address", "  1 Main St "),
        ]);
        assert!(row.issues.is_empty(), "{:?}", row.issues);
        let f = &row.fields;
        assert_eq!(f.state.as_deref(), Some("TX"));
        assert_eq!(f.mail_state.as_deref(), Some("TX"));
        assert_eq!(f.primary_phone_type.as_deref(), Some("mobile"));
        assert_eq!(f.property_type.as_deref(), Some("residential"));
        assert_eq!(f.bedrooms, Some(3));
        assert_eq!((f.latitude, f.longitude), (Some(30.25), Some(-97.75)));
        assert_eq!(f.address.as_deref(), Some("1 Main St"));
    }

    #[test]
    fn a_cell_that_breaks_a_rule_is_dropped_and_the_row_kept() {
        let row = lead(&[
            ("address", "1 Main St"),
            ("state", "Lone Star"),
            ("primary_phone_type", "fax"),
            ("property_type", "castle"),
            ("bedrooms", "101"),
            ("latitude", "91"),
            ("longitude", "-97.7"),
            ("city", &"x".repeat(256)),
            ("team_id", "abc"),
        ]);
        assert_eq!(
            codes(&row),
            [
                ("state", "invalid_state"),
                ("primary_phone_type", "invalid_phone_type"),
                ("property_type", "invalid_property_type"),
                ("bedrooms", "invalid_number"),
                ("latitude", "invalid_number"),
                ("city", "too_long"),
                ("team_id", "invalid_number"),
                ("longitude", "unpaired_coordinate"),
            ]
        );
        assert_eq!(
            row.fields,
            LeadFields {
                address: Some("1 Main St".into()),
                ..LeadFields::default()
            }
        );
        assert!(row.has_field());
    }

    #[test]
    fn a_whole_name_fills_the_first_and_last_name() {
        let row = lead(&[("Owner Name", "SMITH, JOHN A"), ("Address", "1 Main St")]);
        assert!(row.issues.is_empty(), "{:?}", row.issues);
        let f = &row.fields;
        assert_eq!(f.first_name.as_deref(), Some("JOHN A"));
        assert_eq!(f.last_name.as_deref(), Some("SMITH"));
        let row = lead(&[("Owner", "Acme Holdings LLC")]);
        assert_eq!(row.fields.first_name, None);
        assert_eq!(row.fields.last_name.as_deref(), Some("Acme Holdings LLC"));
        // Too long for one name: dropped whole, under the file's own column.
        let row = lead(&[("Name", &"x ".repeat(200)), ("Address", "1 Main St")]);
        assert_eq!(codes(&row), [(FULL_NAME, "too_long")]);
        assert_eq!((row.fields.first_name, row.fields.last_name), (None, None));
    }

    #[test]
    fn a_note_keeps_its_lines_and_is_no_field() {
        let row = lead(&[("Notes", "  Called twice.\r\n\r\nTry evenings.  ")]);
        assert_eq!(row.note.as_deref(), Some("Called twice.\n\nTry evenings."));
        assert!(!row.has_field(), "a note alone is no lead");
        let long = "x".repeat(NOTE_MAX_CHARS + 1);
        let row = lead(&[("Address", "1 Main St"), ("Remarks", &long)]);
        assert_eq!(codes(&row), [(NOTES, "too_long")]);
        assert_eq!(row.note, None);
    }

    #[test]
    fn columns_kept_in_the_note_are_lines_after_the_notes_cell() {
        let headers: Vec<String> = ["Address", "Year Built", "Notes", "Roof Age", "Pool"]
            .map(String::from)
            .into();
        let chosen: Vec<Option<String>> = ["address", "note_line", "notes", "note_line", ""]
            .map(|c| Some(c.to_owned()))
            .into();
        let map = ColumnMap::chosen(&ImportKind::Leads, &headers, &chosen).unwrap();
        let cells = ["1 Main St", "1997", "hail 2in", " 11 ", "Y"].map(String::from);
        let row = lead_row(&map, &cells);
        assert_eq!(
            row.note.as_deref(),
            Some("hail 2in\nYear Built: 1997\nRoof Age: 11")
        );
        // Blank cells add no line; without a notes cell the lines are the note.
        let cells = ["1 Main St", "1997", "", "", "Y"].map(String::from);
        assert_eq!(
            lead_row(&map, &cells).note.as_deref(),
            Some("Year Built: 1997")
        );
        let cells = ["1 Main St", "", "", "", "Y"].map(String::from);
        assert_eq!(lead_row(&map, &cells).note, None);
        // A note over the limit is dropped whole, under the notes field.
        let long = "x".repeat(NOTE_MAX_CHARS);
        let cells = ["1 Main St", "1997", long.as_str(), "", ""].map(String::from);
        let row = lead_row(&map, &cells);
        assert_eq!(codes(&row), [(NOTES, "too_long")]);
        assert_eq!(row.note, None);
    }

    #[test]
    fn a_do_not_call_cell_is_yes_or_no_and_no_sets_nothing() {
        for yes in ["Y", " yes ", "TRUE", "1", "x", "DNC"] {
            let row = lead(&[("Address", "1 Main St"), ("Do Not Call", yes)]);
            assert_eq!(row.work.do_not_call, Some(true), "{yes}");
        }
        for no in ["N", "no", "False", "0", ""] {
            let row = lead(&[("Address", "1 Main St"), ("DNC", no)]);
            assert!(row.work.is_empty() && codes(&row).is_empty(), "{no}");
        }
        let row = lead(&[("Address", "1 Main St"), ("DNC", "maybe")]);
        assert_eq!(codes(&row), [(DO_NOT_CALL, "invalid_flag")]);
        assert_eq!(row.work.do_not_call, None);
    }

    #[test]
    fn a_tags_cell_gives_its_tags_and_drops_one_too_long_with_a_warning() {
        let row = lead(&[("Address", "1 Main St"), ("Tags", "Hot; storm 2026, HOT")]);
        let tags: Vec<&str> = row.work.tags.iter().map(String::as_str).collect();
        assert_eq!(tags, ["hot", "storm 2026"]);
        assert!(codes(&row).is_empty());
        let long = "z".repeat(41);
        let row = lead(&[("Address", "1 Main St"), ("Labels", &format!("ok,{long}"))]);
        assert_eq!(row.work.tags.len(), 1);
        assert_eq!(codes(&row), [(TAGS, "invalid_tag")]);
    }

    #[test]
    fn a_do_not_call_numbers_cell_gives_numbers_to_bar_and_drops_one_that_is_none() {
        let cell = "+15125550101, (512) 555-0102; call me";
        let row = lead(&[("Address", "1 Main St"), ("DNC Numbers", cell)]);
        assert_eq!(barring(&row), ["+15125550101", "+15125550102"]);
        assert_eq!(codes(&row), [(DO_NOT_CALL_PHONES, "invalid_phone")]);
        let export = lead(&[("Address", "1 Main St"), ("do_not_call_phones", "")]);
        assert!(export.work.is_empty() && codes(&export).is_empty());
    }

    #[test]
    fn a_rows_status_owner_and_follow_up_day_are_its_leads_working_state() {
        let row = lead(&[
            ("Address", "1 Main St"),
            ("Lead Status", " Won "),
            ("Assigned To", "Sam@Example.com "),
        ]);
        assert_eq!(row.work.status, Some(LeadStatus::Won));
        assert_eq!(row.work.assignee_email.as_deref(), Some("sam@example.com"));
        assert!(codes(&row).is_empty());
        let row = lead(&[("Stage", "called back"), ("Sales Rep", "Sam Jones")]);
        assert_eq!(
            codes(&row),
            [(LEAD_STATUS, "invalid_status"), (ASSIGNEE, "invalid_email")]
        );
        assert!(
            row.work.is_empty() && !row.has_field(),
            "no lead of its own"
        );
        // The stage that is no status stays where the person working the lead reads it.
        assert_eq!(row.note.as_deref(), Some("Stage: called back"));
        assert!(row.issues[0].message.ends_with("kept in the lead's note"));
        let row = lead(&[
            ("Address", "1 Main St"),
            ("Notes", "gate code 1234"),
            ("Deal Stage", "Proposal Sent"),
        ]);
        assert_eq!(row.work.status, None);
        let note = "gate code 1234\nDeal Stage: Proposal Sent";
        assert_eq!(row.note.as_deref(), Some(note));
        // Every lead starts as new: nothing to set.
        assert!(lead(&[("Stage", "NEW")]).work.is_empty());
        // A CRM's stage name, where its meaning is plain.
        let row = lead(&[("Address", "1 Main St"), ("Deal Stage", "Closed Lost")]);
        assert_eq!(row.work.status, Some(LeadStatus::Lost));
        let day = |cell: &str| {
            lead(&[("Next Call", cell)])
                .work
                .follow_up
                .map(|d| d.to_string())
        };
        assert_eq!(day("12/8/2026").as_deref(), Some("2026-12-08"));
        assert_eq!(day("Dec 8, 2026 10:00 AM").as_deref(), Some("2026-12-08"));
        assert_eq!(day("2026-12-08").as_deref(), Some("2026-12-08"));
        assert_eq!((day("soon"), day("1/1/1999")), (None, None));
        let row = lead(&[("Follow-up Date", "2/30/2026")]);
        assert_eq!(codes(&row), [(FOLLOW_UP, "invalid_date")]);
    }

    /// A property list's columns (PropStream's, a county roll's): the unit and the first owner
    /// each in columns of their own, the second owner left out, the owner's mailing address.
    #[test]
    fn a_property_lists_unit_and_first_owner_columns_are_read() {
        let row = lead(&[
            ("Address", "100 Congress Ave"),
            ("Unit #", "5"),
            ("Owner 1 First Name", "Jane"),
            ("Owner 1 Last Name", "Doe"),
            ("Owner 2 First Name", "John"),
            ("Owner Mailing Address", "12 Elm St, Dallas, TX 75201"),
            ("Mailing Unit #", "Apt 3"),
        ]);
        assert!(row.issues.is_empty(), "{:?}", row.issues);
        let f = &row.fields;
        let got = [
            &f.address,
            &f.first_name,
            &f.last_name,
            &f.mail_address,
            &f.mail_city,
        ]
        .map(|v| v.as_deref().unwrap_or_default());
        assert_eq!(
            got,
            [
                "100 Congress Ave #5",
                "Jane",
                "Doe",
                "12 Elm St Apt 3",
                "Dallas"
            ]
        );
        let row = lead(&[("Unit", "5"), ("City", "Austin")]);
        assert_eq!(codes(&row), [(UNIT, "unit_without_address")]);
        // An appraisal roll's street in parts, then its unit.
        let row = lead(&[
            ("Situs Num", "x"),
            ("Situs Street Number", "1200"),
            ("Situs Street Direction", "E"),
            ("Situs Street Name", "6th"),
            ("Situs Street Suffix", "St"),
            ("Situs Unit", "4"),
            ("Situs Zip", "78702"),
        ]);
        assert!(row.issues.is_empty(), "{:?}", row.issues);
        assert_eq!(row.fields.address.as_deref(), Some("1200 E 6th St #4"));
    }

    #[test]
    fn a_whole_address_fills_a_rows_missing_city_state_and_zip() {
        let row = lead(&[
            ("Property Address", "123 Main St, Apt 4, Austin, TX 78701"),
            ("Mailing Address", "PO Box 9, Dallas, Texas 75201"),
        ]);
        assert!(row.issues.is_empty(), "{:?}", row.issues);
        let f = &row.fields;
        let site = (&f.address, &f.city, &f.state, &f.zip_code);
        let mail = (&f.mail_address, &f.mail_city, &f.mail_state, &f.mail_zip);
        for ((street, city, state, zip), want) in [
            (site, ["123 Main St, Apt 4", "Austin", "TX", "78701"]),
            (mail, ["PO Box 9", "Dallas", "TX", "75201"]),
        ] {
            let got = [street, city, state, zip].map(|v| v.as_deref().unwrap_or_default());
            assert_eq!(got, want);
        }
        // A row with a ZIP (or a city, or a state) of its own keeps its street cell as written.
        let row = lead(&[
            ("Address", "123 Main St, Austin, TX 78701"),
            ("Zip", "78702"),
        ]);
        let f = &row.fields;
        assert_eq!(f.address.as_deref(), Some("123 Main St, Austin, TX 78701"));
        assert_eq!(
            (f.city.as_deref(), f.zip_code.as_deref()),
            (None, Some("78702"))
        );
        // A business's whole address is read the same way (a map scrape's `Full Address`).
        let map = business_map(&["Company", "Full Address"]);
        let row = business_row(&map, &["Acme".into(), "9 Elm Rd, Tulsa, OK 74103".into()]);
        let f = &row.fields;
        let got = [&f.address, &f.city, &f.state, &f.zip_code].map(|v| v.as_deref());
        assert_eq!(
            got,
            [Some("9 Elm Rd"), Some("Tulsa"), Some("OK"), Some("74103")]
        );
    }

    #[test]
    fn a_row_of_blanks_and_unknown_columns_has_no_field() {
        let row = lead(&[("address", "  "), ("Year Built", "1990")]);
        assert!(!row.has_field());
    }

    /// The column map of a business import with these headers.
    fn business_map(headers: &[&str]) -> ColumnMap {
        let headers: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
        let kind = ImportKind::Businesses {
            relationship_type: crate::business::RelationshipType::Prospect,
            skip_duplicates: true,
            auto_categorize: true,
        };
        ColumnMap::new(&kind, &headers).unwrap()
    }

    #[test]
    fn business_cells() {
        let map = business_map(&["Company", "State", "Rating", "Reviews"]);
        let row = business_row(
            &map,
            &["Acme".into(), "texas".into(), "four".into(), "1,234".into()],
        );
        assert!(row.issues.is_empty(), "{:?}", row.issues);
        assert_eq!(row.fields.state.as_deref(), Some("TX"));
        assert_eq!(row.fields.rating, Some(4.0));
        assert_eq!(row.fields.review_count, Some(1234));
        let row = business_row(&map, &["Acme".into(), "".into(), "6".into(), "-3".into()]);
        let codes: Vec<_> = row.issues.iter().map(|i| (i.field, i.code)).collect();
        assert_eq!(
            codes,
            [
                ("rating", "invalid_number"),
                ("review_count", "invalid_number")
            ]
        );
        assert_eq!(row.fields.name.as_deref(), Some("Acme"));
    }

    #[test]
    fn a_business_phone_follows_the_leads_rule() {
        let map = business_map(&["Company", "Phone"]);
        let row = business_row(&map, &["Acme".into(), "(512) 867-5309".into()]);
        assert!(row.issues.is_empty(), "{:?}", row.issues);
        assert_eq!(row.fields.phone.as_deref(), Some("+15128675309"));
        for bad in ["call us", "000-000-0000", "555-1234"] {
            let row = business_row(&map, &["Acme".into(), bad.into()]);
            let codes: Vec<_> = row
                .issues
                .iter()
                .map(|i| (i.field, i.code, i.value.as_str()))
                .collect();
            assert_eq!(codes, [("phone", "invalid_phone", bad)]);
            assert_eq!(row.fields.phone, None, "{bad}");
            assert_eq!(row.fields.name.as_deref(), Some("Acme"), "the row is kept");
        }
    }
}
