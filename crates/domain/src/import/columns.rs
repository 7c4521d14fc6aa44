//! Which column of a spreadsheet feeds which field: headers as people write them (`First Name`, `E-mail`,
//! `Zip`, `Permit #`) matched case-, space- and punctuation-insensitively against the field names and the
//! usual aliases of CRMs and permit portals. The aliases are listed in docs/imports.md and on the upload page.
use super::{ImportKind, ReadRow, SheetRows};
use crate::lead::fields::EXPORT_RECORD_COLUMNS;

/// Lead fields and the header forms that name them (each as `header_key` makes it: lower-case letters and
/// digits only). The field's own name is always accepted too.
pub const LEAD_ALIASES: &[(&str, &[&str])] = &[
    (
        "address",
        &[
            "street",
            "streetaddress",
            "address1",
            "addressline1",
            "fulladdress",
            "projectaddress",
            // A permit portal's export (Austin's open data: `original_address1`).
            "originaladdress1",
        ],
    ),
    // Not a field of the lead: the address's unit, joined after the street (`import::street_columns`).
    (
        UNIT,
        &[
            "unit",
            "unitnumber",
            "unitno",
            "apt",
            "aptno",
            "aptnumber",
            "apartment",
            "apartmentnumber",
            "suite",
            "address2",
            "addressline2",
        ],
    ),
    // Nor are the parts of a street line that appraisal rolls keep apart, joined into the
    // address of a row without one (`import::street_columns`).
    (
        STREET_NUMBER,
        &[
            "housenumber",
            "houseno",
            "housenum",
            "streetno",
            "streetnum",
            "addressnumber",
        ],
    ),
    (
        STREET_DIRECTION,
        &[
            "streetdir",
            "predirection",
            "predirectional",
            "streetprefix",
        ],
    ),
    (STREET_NAME, &[]),
    (STREET_SUFFIX, &["streettype", "streetsuffixtype"]),
    ("city", &["town", "originalcity"]),
    ("state", &["st", "stateprovince", "originalstate"]),
    (
        "zip_code",
        &[
            "zip",
            "zip5",
            "postalcode",
            "postcode",
            "zippostalcode",
            "originalzip",
        ],
    ),
    ("county", &["countyname"]),
    (
        "first_name",
        &[
            "first",
            "fname",
            "givenname",
            "ownerfirst",
            "ownerfirstname",
            "owner1first",
            "owner1firstname",
            "contactfirst",
            "contactfirstname",
        ],
    ),
    (
        "last_name",
        &[
            "last",
            "lname",
            "surname",
            "familyname",
            "ownerlast",
            "ownerlastname",
            "owner1last",
            "owner1lastname",
            "contactlast",
            "contactlastname",
        ],
    ),
    // Not a field of the lead: a whole name, read into first_name and last_name
    // (`parse::split_person_name`) when the file has neither of their columns.
    (
        FULL_NAME,
        &[
            "name",
            "ownername",
            "owner",
            "ownerfullname",
            "owner1name",
            "owner1fullname",
            "propertyowner",
            "homeowner",
            "homeownername",
            "contactname",
            "customername",
            "customer",
        ],
    ),
    (
        "primary_phone",
        &[
            "phone",
            "phonenumber",
            "phone1",
            "telephone",
            "tel",
            "cell",
            "cellphone",
            "mobile",
            "mobilephone",
            "mobilenumber",
            "cellnumber",
            "wireless",
            "landline",
            "landlinephone",
            "homephone",
            "ownerphone",
            "contactphone",
        ],
    ),
    ("primary_phone_type", &["phonetype", "phone1type"]),
    ("phone_2", &["altphone", "alternatephone", "secondaryphone"]),
    ("phone_3", &[]),
    ("phone_4", &[]),
    ("phone_5", &[]),
    (
        "email_1",
        &["email", "emailaddress", "owneremail", "contactemail"],
    ),
    ("email_2", &["altemail", "alternateemail", "secondaryemail"]),
    ("email_3", &[]),
    // The mailing address: `Mailing`, `Mail`, `Owner Mailing` or `Owner` and the part's name
    // (`address_part`).
    ("mail_address", &[]),
    (MAIL_UNIT, &[]),
    ("mail_city", &[]),
    ("mail_state", &[]),
    ("mail_zip", &[]),
    (
        "project_number",
        &[
            "permit",
            "permitnumber",
            "permitno",
            "permitid",
            "permitnum",
            "projectno",
            "recordnumber",
            "applicationnumber",
            "casenumber",
        ],
    ),
    (
        "permit_date",
        &["issueddate", "issuedate", "dateissued", "issued"],
    ),
    (
        "permit_status",
        &["status", "recordstatus", "statuscurrent"],
    ),
    (
        "parcel_number",
        &[
            "parcelid",
            "parcel",
            "parcelno",
            "apn",
            "assessorparcelnumber",
            "pin",
        ],
    ),
    ("subdivision", &["subdivisionname"]),
    ("lot", &["lotnumber", "lotno"]),
    (
        "work_type",
        &["permittype", "permittypedesc", "typeofwork", "workclass"],
    ),
    (
        "project_description",
        &["description", "workdescription", "scopeofwork"],
    ),
    ("specific_use", &["proposeduse", "use"]),
    ("property_type", &["proptype", "propertyclass"]),
    ("lot_size", &["lotarea", "acreage", "lotsqft"]),
    ("bedrooms", &["beds", "bedroomcount", "numberofbedrooms"]),
    ("related_url", &["url", "link", "permiturl", "recordurl"]),
    ("latitude", &["lat"]),
    ("longitude", &["lon", "lng", "long"]),
    ("source", &["leadsource", "channel"]),
    ("source_identifier", &["sourceid", "externalid", "recordid"]),
    ("team_id", &[]),
    // Not a field of the lead either: a note on the lead the row created or merged into.
    (NOTES, &["note", "comments", "comment", "remarks"]),
    // The working state of a lead the row creates (`LeadWorkService::apply_imported_work`).
    (
        LEAD_STATUS,
        &[
            "salesstatus",
            "stage",
            "leadstage",
            "dealstage",
            "pipelinestage",
        ],
    ),
    (
        FOLLOW_UP,
        &[
            "followup",
            "followupdate",
            "nextfollowup",
            "nextfollowupdate",
            "nextcall",
            "nextcalldate",
            "callback",
            "callbackdate",
            "nextcontact",
            "nextcontactdate",
        ],
    ),
    (DO_NOT_CALL, &["dnc", "donotcallflag", "dncflag"]),
    (TAGS, &["tag", "labels", "label"]),
    (
        DO_NOT_CALL_PHONES,
        &[
            "dncphones",
            "dncnumbers",
            "donotcallnumbers",
            "numbersnottocall",
        ],
    ),
    (
        ASSIGNEE,
        &[
            "assignee",
            "assignedto",
            "assignedtoemail",
            "salesrep",
            "salesrepemail",
            "repemail",
            "leadowneremail",
        ],
    ),
];

/// The column of a whole name ("John A. Smith", "Smith, John"), split into the first and last name.
pub const FULL_NAME: &str = "full_name";

/// The column of the property address's unit ("Unit #", "Apt", "Address Line 2"), joined after
/// the street (`100 Congress Ave` and `5`: `100 Congress Ave #5`), so units of one building stay
/// leads of their own.
pub const UNIT: &str = "address_unit";

/// The column of the mailing address's unit ("Mailing Unit #"), joined after `mail_address`.
pub const MAIL_UNIT: &str = "mail_unit";

/// The columns of a street line in parts ("Situs Street Number", "Situs Street Name"), in the
/// order the line is written.
pub const STREET_NUMBER: &str = "street_number";
pub const STREET_DIRECTION: &str = "street_direction";
pub const STREET_NAME: &str = "street_name";
pub const STREET_SUFFIX: &str = "street_suffix";
pub const STREET_PARTS: [&str; 4] = [STREET_NUMBER, STREET_DIRECTION, STREET_NAME, STREET_SUFFIX];

/// The column of a note on the row's lead ("Notes", "Comments").
pub const NOTES: &str = "notes";

/// A column kept on the lead as a line of the row's note, `Header: cell` (`Roof Age: 11`): a
/// property list's columns that are no field of a lead (`Year Built`, `Estimated Equity`) stay
/// where the person working the lead reads them. Only by choice (the columns step, `--column`),
/// never by a header's name; any number of columns may feed it.
pub const NOTE_LINE: &str = "note_line";

/// The column of the status of a lead the row creates ("Lead Status", "Stage").
pub const LEAD_STATUS: &str = "lead_status";

/// The column of the day to follow up a lead the row creates ("Next Call", "Follow-up Date"):
/// the lead export's `follow_up_on`.
pub const FOLLOW_UP: &str = "follow_up_on";

/// The column of a lead's do-not-call mark ("DNC", "Do Not Call": yes or no): the lead export's
/// `do_not_call`.
pub const DO_NOT_CALL: &str = "do_not_call";

/// The column of numbers not to call ("DNC Numbers": commas or semicolons between them): the lead
/// export's `do_not_call_phones`. Each is barred on the row's lead as a flagged phone is.
pub const DO_NOT_CALL_PHONES: &str = "do_not_call_phones";

/// The column of a lead's tags ("hot, storm 2026": commas or semicolons between them): the lead
/// export's `tags`.
pub const TAGS: &str = "tags";

/// The column of the e-mail address of the person to work a lead the row creates ("Assigned
/// To"): the lead export's `assignee_email`.
pub const ASSIGNEE: &str = "assignee_email";

/// Business fields and their header forms, as for leads.
pub const BUSINESS_ALIASES: &[(&str, &[&str])] = &[
    (
        "name",
        &[
            "businessname",
            "companyname",
            "company",
            "business",
            "organization",
            "accountname",
        ],
    ),
    (
        "phone",
        &[
            "phonenumber",
            "telephone",
            "tel",
            "mainphone",
            "businessphone",
        ],
    ),
    ("website", &["url", "web", "site", "homepage", "websiteurl"]),
    (
        "address",
        &[
            "street",
            "streetaddress",
            "address1",
            "addressline1",
            "fulladdress",
        ],
    ),
    ("city", &["town"]),
    ("state", &["st", "stateprovince"]),
    (
        "zip_code",
        &["zip", "zip5", "postalcode", "postcode", "zippostalcode"],
    ),
    (
        "industry",
        &["category", "businesscategory", "vertical", "trade"],
    ),
    ("rating", &["stars", "averagerating", "googlerating"]),
    (
        "review_count",
        &["reviews", "numberofreviews", "numreviews"],
    ),
];

/// The columns of leadhub's own import report, ignored when a fixed report is imported again.
pub const REPORT_COLUMNS: [&str; 6] = ["row", "column", "value", "code", "message", "reason"];

/// Phone and e-mail columns beyond the first of their kind fill the next free slot.
pub(super) const PHONE_SLOTS: [&str; 5] =
    ["primary_phone", "phone_2", "phone_3", "phone_4", "phone_5"];
pub(super) const EMAIL_SLOTS: [&str; 3] = ["email_1", "email_2", "email_3"];
/// What the summary says a spare phone or e-mail column feeds (`ColumnMap::spares`).
pub const SPARE_PHONE: &str = "next_free_phone";
pub const SPARE_EMAIL: &str = "next_free_email";
/// What the summary says a phone's do-not-call flag column feeds (`ColumnMap::number_flags`).
pub const NUMBER_DNC: &str = "number_do_not_call";
/// Each kind of slot: what a spare column of it feeds, and its slots.
pub(crate) const SPARES: [(&str, &[&str]); 2] =
    [(SPARE_PHONE, &PHONE_SLOTS), (SPARE_EMAIL, &EMAIL_SLOTS)];

/// A header as compared: lower-case ASCII letters and digits only (`E-mail` -> `email`, `Permit #` ->
/// `permit`, `Zip Code` -> `zipcode`); a byte-order mark or other characters drop out.
pub fn header_key(header: &str) -> String {
    header
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// How many rows below a header that names no column of ours are looked at for one that does.
const HEADER_SEARCH_ROWS: usize = 10;

/// Header forms matched to a field only as a guess, so an upload asks before using them: "Status"
/// is a permit's status in a permit portal's export, but how far a lead got in a salesperson's sheet.
const GUESSED_KEYS: &[&str] = &["status"];

/// Why a header row maps no column of ours: the sentence for a person, and whether it points at
/// the file's own layout (a header further down, other sheets of a workbook) rather than at
/// headers we do not know.
#[derive(Debug, Clone, PartialEq)]
pub struct NoHeader {
    pub problem: String,
    pub layout: bool,
}

/// The mapping of `sheet`'s header row for `kind`. When it names no column of ours, Err says so
/// and, when one of the next rows names two or more (a title or notes above the header), which
/// row that is and to delete the rows above it, or else which sheets of a workbook were not read:
/// a hint, never a guess, since a wrong header would import every row under the wrong fields. Rows
/// read for the hint are gone from `sheet`.
pub fn map_header(kind: &ImportKind, sheet: &mut dyn SheetRows) -> Result<ColumnMap, NoHeader> {
    let mut problem = match ColumnMap::new(kind, &sheet.header()) {
        Ok(map) => return Ok(map),
        Err(problem) => problem,
    };
    let unread = sheet.unread_sheets();
    let layout = !unread.is_empty();
    if layout {
        problem = format!(
            "{problem}; only its first sheet is read, not \"{}\": move the sheet to import to the front",
            unread.join("\", \"")
        );
    }
    for _ in 0..HEADER_SEARCH_ROWS {
        let row = match sheet.next_row() {
            Ok(Some(ReadRow::Row(row))) => row,
            Ok(Some(ReadRow::Unreadable { .. })) => continue,
            Ok(None) | Err(_) => break,
        };
        let named: Vec<String> = ColumnMap::new(kind, &row.cells)
            .map(|map| map.mapping().into_iter().map(|(h, _)| h).collect())
            .unwrap_or_default();
        if named.len() >= 2 {
            let problem = format!(
                "no column named like a {} field in its first row, but row {} names {} ({}): delete \
                 the rows above it",
                kind.name(),
                row.row,
                named.len(),
                named.join(", ")
            );
            return Err(NoHeader {
                problem,
                layout: true,
            });
        }
    }
    Err(NoHeader { problem, layout })
}

/// Every column's choice (as `ColumnMap::chosen` takes them) when `overrides` name some columns by
/// header (`(HEADER, FIELD)`, headers compared as always, FIELD empty for none: the CLI's
/// `--column`): the others feed what their headers name, except a field an override gave to
/// another column. Err names a header the file does not have.
pub fn choose_by_header(
    kind: &ImportKind,
    headers: &[String],
    overrides: &[(String, String)],
) -> Result<Vec<Option<String>>, String> {
    let named = ColumnMap::read(kind, headers);
    // What each column feeds as its header names it, a free phone or e-mail slot included.
    let mut choices: Vec<Option<String>> = (0..headers.len())
        .map(|i| named.feeds(i).map(str::to_owned))
        .collect();
    let keys: Vec<String> = headers.iter().map(|h| header_key(h)).collect();
    let mut overridden = vec![false; headers.len()];
    for (header, field) in overrides {
        let key = header_key(header);
        let i = keys
            .iter()
            .position(|k| *k == key)
            .ok_or_else(|| format!("no column \"{header}\" in the file's header"))?;
        choices[i] = Some(field.trim().to_owned()).filter(|f| !f.is_empty());
        overridden[i] = true;
    }
    // Two overrides naming one field stay, for `ColumnMap::chosen` to refuse.
    let given: Vec<Option<String>> = choices
        .iter()
        .zip(&overridden)
        .filter(|(c, o)| **o && c.is_some())
        .map(|(c, _)| c.clone())
        .collect();
    for (choice, overridden) in choices.iter_mut().zip(&overridden) {
        let shared = choice.as_deref().is_some_and(takes_many_columns);
        if !overridden && !shared && given.contains(choice) {
            *choice = None;
        }
    }
    Ok(choices)
}

/// What each column of a file feeds.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnMap {
    /// `fields[i]`: the field column i feeds, or None.
    pub fields: Vec<Option<&'static str>>,
    /// The file's headers, as written.
    pub headers: Vec<String>,
    /// `report[i]`: column i is one of the report's own; worked out once, as every row asks.
    report: Vec<bool>,
    /// The lead export's `geocode_source` column, feeding no field; worked out once, as every
    /// row with an address asks (`geocoded_by_us`).
    geocode_source: Option<usize>,
    /// `asked[i]`: column i's header names no field at all, or names one only as a guess, so a
    /// person is asked about it.
    asked: Vec<bool>,
    /// Phone and e-mail columns that found every slot of their kind taken by earlier columns
    /// (`spare_slots`), with those slots: each row's cell goes into the first slot the row leaves
    /// empty. An export sent out for skip tracing comes back with its own empty `primary_phone`
    /// ... `phone_5` columns and the numbers found in a `Phone 1` column after them.
    pub spares: Vec<(usize, &'static [&'static str])>,
    /// `(flag, phone)`: column `flag` says whether the number in column `phone` is on a
    /// do-not-call list (`Phone 1 DNC` beside `Phone 1`, as skip-tracing services write it): a
    /// flagged number is left out of the lead's numbers (`NUMBER_DNC`).
    pub number_flags: Vec<(usize, usize)>,
    /// The columns kept as lines of the row's note (`NOTE_LINE`), in the file's order.
    pub note_lines: Vec<usize>,
}

impl ColumnMap {
    /// Maps `headers` for `kind`; Err (for a person) when no column names a field of ours.
    pub fn new(kind: &ImportKind, headers: &[String]) -> Result<ColumnMap, String> {
        let map = ColumnMap::read(kind, headers);
        if map.fields.iter().all(Option::is_none) {
            return Err(format!(
                "no column named like a {} field (expected some of: {})",
                kind.name(),
                kind.columns().join(", ")
            ));
        }
        Ok(map)
    }

    /// Maps `headers` for `kind` by their names, even when none names a field of ours.
    pub fn read(kind: &ImportKind, headers: &[String]) -> ColumnMap {
        let aliases = kind.aliases();
        let mut fields: Vec<Option<&'static str>> = Vec::with_capacity(headers.len());
        let mut spares = Vec::new();
        let mut unknown = Vec::with_capacity(headers.len());
        let mut guesses = Vec::with_capacity(headers.len());
        for (i, header) in headers.iter().enumerate() {
            let key = header_key(header);
            let named = field_for(aliases, &key);
            let field = named
                .and_then(|field| free_slot(field, &fields))
                .or_else(|| second_reading(&key, &fields));
            if let Some(slots) = named.filter(|_| field.is_none()).and_then(slots_of) {
                spares.push((i, slots));
            }
            unknown.push(named.is_none() && !known_unused(kind, &key));
            // A guess that lost its field to a column naming it plainly (an export's `status`
            // after its `permit_status`) is no question: it is read the second way.
            let guessed = field.is_some() && field == named && GUESSED_KEYS.contains(&key.as_str());
            guesses.push(guessed);
            fields.push(field);
        }
        let number_flags = number_flags(headers, &fields, &spares);
        let asked = (0..headers.len())
            .map(|i| {
                let flag = number_flags.iter().any(|(f, _)| *f == i);
                (unknown[i] && !flag) || guesses[i]
            })
            .collect();
        // A file with a first or last name column says how it splits names; a whole name beside
        // them would only repeat (or contradict) them, so it is ignored.
        let named_apart = fields
            .iter()
            .any(|f| matches!(f, Some("first_name" | "last_name")));
        if named_apart {
            for f in fields.iter_mut().filter(|f| **f == Some(FULL_NAME)) {
                *f = None;
            }
        }
        ColumnMap {
            report: report_columns(headers, &fields),
            geocode_source: geocode_source_column(headers, &fields),
            fields,
            headers: headers.to_vec(),
            asked,
            spares,
            number_flags,
            note_lines: Vec::new(),
        }
    }

    /// The mapping a person chose (the upload's columns step): `choices[i]` names the field column
    /// i feeds, None or "" for none. Err (for a person) when a choice is no field of `kind`, two
    /// columns feed one field, a whole name stands beside a first or last name, or nothing is chosen.
    pub fn chosen(
        kind: &ImportKind,
        headers: &[String],
        choices: &[Option<String>],
    ) -> Result<ColumnMap, String> {
        if choices.len() != headers.len() {
            return Err(format!(
                "{} columns, but a choice for {}",
                headers.len(),
                choices.len()
            ));
        }
        let known = kind.choices();
        let mut fields: Vec<Option<&'static str>> = Vec::with_capacity(headers.len());
        let mut spares = Vec::new();
        let mut note_lines = Vec::new();
        for (i, (header, choice)) in headers.iter().zip(choices).enumerate() {
            let field = match choice.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                None => None,
                Some(name) => Some(
                    known
                        .iter()
                        .copied()
                        .find(|f| *f == name)
                        .ok_or_else(|| format!("\"{name}\" is not a {} field", kind.name()))?,
                ),
            };
            // A free slot takes any number of columns, each row's cells in the file's order.
            let slots = SPARES.iter().find(|(name, _)| field == Some(*name));
            if let Some(&(_, slots)) = slots {
                spares.push((i, slots));
                fields.push(None);
                continue;
            }
            if field == Some(NOTE_LINE) {
                note_lines.push(i);
                fields.push(None);
                continue;
            }
            if let Some(before) = field.and_then(|f| fields.iter().position(|g| *g == Some(f))) {
                return Err(format!(
                    "\"{}\" and \"{header}\" both feed {}: choose another field for one of them",
                    headers[before],
                    field.unwrap_or_default()
                ));
            }
            fields.push(field);
        }
        let whole = fields.contains(&Some(FULL_NAME));
        if whole
            && fields
                .iter()
                .any(|f| matches!(f, Some("first_name" | "last_name")))
        {
            return Err(format!(
                "a whole name ({FULL_NAME}) beside a first or last name: choose one or the other"
            ));
        }
        if fields.iter().all(Option::is_none) && spares.is_empty() {
            return Err("no column feeds a field: choose a field for one at least".into());
        }
        Ok(ColumnMap {
            report: report_columns(headers, &fields),
            geocode_source: geocode_source_column(headers, &fields),
            asked: vec![false; headers.len()],
            number_flags: number_flags(headers, &fields, &spares),
            fields,
            headers: headers.to_vec(),
            spares,
            note_lines,
        })
    }

    /// Whether a person should look at the mapping before the import: a column's header names
    /// no field of ours, or names one only as a guess (`GUESSED_KEYS`).
    pub fn unsure(&self) -> bool {
        self.asked.contains(&true)
    }

    /// Whether column `i` is one a person is asked about (`unsure`).
    pub fn asks_about(&self, i: usize) -> bool {
        self.asked.get(i).copied().unwrap_or(false)
    }

    /// The header of the phone column whose number column `i` flags (`number_flags`).
    pub fn flagged_phone(&self, i: usize) -> Option<&str> {
        let (_, phone) = self.number_flags.iter().find(|(flag, _)| *flag == i)?;
        self.headers.get(*phone).map(String::as_str)
    }

    /// `header -> field` for each mapped column, in the file's order.
    pub fn mapping(&self) -> Vec<(String, &'static str)> {
        self.headers
            .iter()
            .enumerate()
            .zip(&self.fields)
            .filter_map(|((i, h), f)| {
                let feeds = f
                    .or_else(|| self.spare(i))
                    .or_else(|| self.number_flag(i))
                    .or_else(|| self.note_line(i));
                Some((h.clone(), feeds?))
            })
            .collect()
    }

    /// `NUMBER_DNC` for a column of `number_flags`.
    fn number_flag(&self, column: usize) -> Option<&'static str> {
        self.number_flags
            .iter()
            .any(|(flag, _)| *flag == column)
            .then_some(NUMBER_DNC)
    }

    /// What column `i` feeds: its field, a free slot (`spares`) or a line of the note; what the
    /// columns step offers first.
    pub fn feeds(&self, i: usize) -> Option<&'static str> {
        self.fields
            .get(i)
            .copied()
            .flatten()
            .or_else(|| self.spare(i))
            .or_else(|| self.note_line(i))
    }

    /// `NOTE_LINE` for a column of `note_lines`.
    fn note_line(&self, column: usize) -> Option<&'static str> {
        self.note_lines.contains(&column).then_some(NOTE_LINE)
    }

    /// What a spare column (`spares`) feeds, as the summary says it.
    fn spare(&self, column: usize) -> Option<&'static str> {
        let (_, slots) = self.spares.iter().find(|(i, _)| *i == column)?;
        SPARES
            .iter()
            .find(|(_, these)| these == slots)
            .map(|(name, _)| *name)
    }

    /// The columns no field takes (report columns of a re-imported report included), as written.
    pub fn ignored(&self) -> Vec<String> {
        self.headers
            .iter()
            .enumerate()
            .zip(&self.fields)
            .filter(|((i, h), f)| {
                f.is_none()
                    && self.spare(*i).is_none()
                    && self.number_flag(*i).is_none()
                    && self.note_line(*i).is_none()
                    && !h.trim().is_empty()
            })
            .map(|((_, h), _)| h.clone())
            .collect()
    }

    /// Whether column `i` is one of the report's own (`row`, `reason`, ...).
    pub fn is_report_column(&self, i: usize) -> bool {
        self.report.get(i).copied().unwrap_or(false)
    }

    /// Whether the row's coordinates are this service's own finding, not its source's: a lead
    /// export imported again names the geocoder that placed the lead (`geocode_source`).
    pub fn geocoded_by_us(&self, cells: &[String]) -> bool {
        self.geocode_source
            .and_then(|i| cells.get(i))
            .is_some_and(|c| !c.trim().is_empty())
    }

    /// The header of the column feeding `field`, for the report.
    pub fn header_of(&self, field: &str) -> Option<&str> {
        self.fields
            .iter()
            .position(|f| *f == Some(field))
            .and_then(|i| self.headers.get(i))
            .map(String::as_str)
    }
}

/// Whether any number of columns may feed `choice`: a free phone or e-mail slot, a line of the
/// note.
fn takes_many_columns(choice: &str) -> bool {
    choice == NOTE_LINE || SPARES.iter().any(|(name, _)| *name == choice)
}

/// A field for a header whose own field an earlier column took: a `Status` beside a
/// `permit_status` column (as in the lead export) is the lead's status.
fn second_reading(key: &str, taken: &[Option<&'static str>]) -> Option<&'static str> {
    (key == "status" && !taken.contains(&Some(LEAD_STATUS))).then_some(LEAD_STATUS)
}

/// Whether a header key names no field but a column we know to leave out: a blank header, the
/// report's own columns, the lead export's record columns (an export imported again).
fn known_unused(kind: &ImportKind, key: &str) -> bool {
    let exported = || {
        *kind == ImportKind::Leads
            && (key == "id" || EXPORT_RECORD_COLUMNS.iter().any(|c| header_key(c) == key))
    };
    key.is_empty() || REPORT_COLUMNS.contains(&key) || exported()
}

/// The column of the lead export's `geocode_source`, when it feeds no field.
fn geocode_source_column(headers: &[String], fields: &[Option<&'static str>]) -> Option<usize> {
    headers
        .iter()
        .zip(fields)
        .position(|(h, f)| f.is_none() && header_key(h) == "geocodesource")
}

/// Which columns are the report's own (`row`, `reason`, ...): those of its names that feed no field.
fn report_columns(headers: &[String], fields: &[Option<&'static str>]) -> Vec<bool> {
    headers
        .iter()
        .zip(fields)
        .map(|(h, f)| f.is_none() && REPORT_COLUMNS.contains(&header_key(h).as_str()))
        .collect()
}

fn field_for(aliases: &[(&'static str, &[&str])], key: &str) -> Option<&'static str> {
    if key.is_empty() || REPORT_COLUMNS.contains(&key) {
        return None;
    }
    let named = |key: &str| {
        aliases
            .iter()
            .find(|(field, forms)| header_key(field) == key || forms.contains(&key))
            .map(|(field, _)| *field)
    };
    named(key)
        .or_else(|| numbered_slot(key, named))
        .or_else(|| address_part(key, named))
}

/// What comes before an address part's name to say whose address it is: the property's, or the
/// owner's mailing address (longest first, so `Owner Mailing` is not read as `Owner`).
const PROPERTY_PLACES: [&str; 3] = ["property", "site", "situs"];
const MAILING_PLACES: [&str; 4] = ["ownermailing", "mailing", "mail", "owner"];
/// The parts of an address, and the mailing address's field for each (a county has none, nor
/// has a street in parts: only the property's is read).
const ADDRESS_PARTS: [(&str, Option<&str>); 10] = [
    ("address", Some("mail_address")),
    (UNIT, Some(MAIL_UNIT)),
    (STREET_NUMBER, None),
    (STREET_DIRECTION, None),
    (STREET_NAME, None),
    (STREET_SUFFIX, None),
    ("city", Some("mail_city")),
    ("state", Some("mail_state")),
    ("zip_code", Some("mail_zip")),
    ("county", None),
];

/// An address part after whose address it is, as county rolls, permit portals and property lists
/// name them: `Property Zip Code`, `Situs Address`, `Site Unit` (the property's); `Mailing
/// Address`, `Owner Mailing Zip Code`, `Owner City` (the mailing address's). One rule instead of
/// an alias for each pair.
fn address_part(key: &str, named: impl Fn(&str) -> Option<&'static str>) -> Option<&'static str> {
    let part = |places: &[&str]| {
        places.iter().find_map(|place| {
            let field = named(key.strip_prefix(place)?)?;
            ADDRESS_PARTS.iter().find(|(part, _)| *part == field)
        })
    };
    if let Some((field, _)) = part(&PROPERTY_PLACES) {
        return Some(field);
    }
    // The mailing field only where the kind has one (a business has no mailing address).
    let (_, mailing) = part(&MAILING_PLACES)?;
    named(&header_key((*mailing)?))
}

/// A phone or e-mail header with a number after it (`Mobile 2`, `Landline 1`, `Email 4`), as skip-tracing
/// services number what they found: the kind's first slot, so that the number is no slot of its own and
/// the columns fill the slots (then the spares) in the file's order. Other fields keep their numbers
/// (`Address 2` is no second address: it is the unit line).
fn numbered_slot(key: &str, named: impl Fn(&str) -> Option<&'static str>) -> Option<&'static str> {
    let unnumbered = key.trim_end_matches(|c: char| c.is_ascii_digit());
    if unnumbered.len() == key.len() || unnumbered.is_empty() {
        return None;
    }
    named(unnumbered).filter(|field| slots_of(field).is_some())
}

/// The columns that flag a phone column's number do not call: a column feeding nothing whose header
/// is a phone column's header with `DNC` or `Do Not Call` after it, or `DNC` before it (`Phone 1 DNC`,
/// `Mobile2_DNC`, `DNC Phone 1`); each with that phone column.
fn number_flags(
    headers: &[String],
    fields: &[Option<&'static str>],
    spares: &[(usize, &'static [&'static str])],
) -> Vec<(usize, usize)> {
    let keys: Vec<String> = headers.iter().map(|h| header_key(h)).collect();
    let is_phone = |j: usize| {
        fields
            .get(j)
            .copied()
            .flatten()
            .is_some_and(|f| PHONE_SLOTS.contains(&f))
            || spares
                .iter()
                .any(|(c, slots)| *c == j && *slots == PHONE_SLOTS)
    };
    let phone_named = |name: &str| (0..keys.len()).find(|&j| keys[j] == name && is_phone(j));
    let mut flags = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        if fields.get(i).copied().flatten().is_some() || spares.iter().any(|(c, _)| *c == i) {
            continue;
        }
        let phone = ["donotcall", "dnc"]
            .iter()
            .find_map(|mark| key.strip_suffix(mark))
            .or_else(|| key.strip_prefix("dnc"))
            .filter(|name| !name.is_empty())
            .and_then(phone_named);
        if let Some(phone) = phone {
            flags.push((i, phone));
        }
    }
    flags
}

/// The phone or e-mail slots `field` is one of.
fn slots_of(field: &'static str) -> Option<&'static [&'static str]> {
    SPARES
        .iter()
        .map(|(_, slots)| *slots)
        .find(|slots| slots.contains(&field))
}

/// `field` unless an earlier column took it: then the next free phone or e-mail slot, or None.
fn free_slot(field: &'static str, taken: &[Option<&'static str>]) -> Option<&'static str> {
    let free = |f: &'static str| !taken.contains(&Some(f));
    if free(field) {
        return Some(field);
    }
    slots_of(field).and_then(|slots| slots.iter().copied().find(|f| free(f)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(headers: &[&str]) -> Vec<Option<&'static str>> {
        let headers: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
        ColumnMap::new(&ImportKind::Leads, &headers)
            .map(|m| m.fields)
            .unwrap_or_default()
    }

    #[test]
    fn an_address_part_after_whose_address_it_is() {
        let property = [
            "Property Address",
            "Property Address Line 2",
            "Site City",
            "Situs State",
            "Property Zip Code",
            "Property County",
        ];
        let want = ["address", UNIT, "city", "state", "zip_code", "county"];
        assert_eq!(map(&property), want.map(Some));
        let mailing = [
            "Owner Mailing Address",
            "Mailing Unit #",
            "Owner City",
            "Mail State",
            "Mailing Postal Code",
        ];
        let want = [
            "mail_address",
            MAIL_UNIT,
            "mail_city",
            "mail_state",
            "mail_zip",
        ];
        let mut headers = vec!["Address"];
        headers.extend(mailing);
        assert_eq!(map(&headers)[1..], want.map(Some));
        // `Mailing Address 1`: the number is the address's first line.
        assert_eq!(map(&["Mailing Address 1"]), [Some("mail_address")]);
        // An appraisal roll's street in parts: the property's only.
        let parts = [
            "Situs Street Number",
            "Situs Street Direction",
            "Situs Street Name",
            "Situs Street Suffix",
            "House Number",
            "Street Type",
            "Mailing Street Number",
        ];
        let want = [
            Some(STREET_NUMBER),
            Some(STREET_DIRECTION),
            Some(STREET_NAME),
            Some(STREET_SUFFIX),
            None,
            None,
            None,
        ];
        assert_eq!(map(&parts), want, "a part is one column");
        let want = [Some(STREET_NUMBER), Some(STREET_SUFFIX)];
        assert_eq!(map(&["House Number", "Street Type"]), want);
        // Not an address part, or a part with no mailing field: nothing.
        let none = [
            "Address",
            "Mailing County",
            "Property Status",
            "Owner Occupied",
            "Site",
        ];
        assert_eq!(map(&none), [Some("address"), None, None, None, None]);
    }

    #[test]
    fn any_number_of_columns_are_kept_in_the_note_by_choice_only() {
        let headers: Vec<String> = ["Address", "Year Built", "Roof Age", "Mobile 1"]
            .map(String::from)
            .into();
        let read = ColumnMap::read(&ImportKind::Leads, &headers);
        assert_eq!(read.ignored(), ["Year Built", "Roof Age"]);
        let by_header = |overrides: &[(&str, &str)]| {
            let overrides: Vec<(String, String)> = overrides
                .iter()
                .map(|(h, f)| ((*h).to_owned(), (*f).to_owned()))
                .collect();
            choose_by_header(&ImportKind::Leads, &headers, &overrides).unwrap()
        };
        let choices = by_header(&[("year built", NOTE_LINE), ("Roof Age", NOTE_LINE)]);
        let map = ColumnMap::chosen(&ImportKind::Leads, &headers, &choices).unwrap();
        assert_eq!(map.note_lines, [1, 2]);
        assert_eq!(map.feeds(2), Some(NOTE_LINE));
        assert!(map.ignored().is_empty());
        assert_eq!(
            map.mapping(),
            [
                ("Address".to_owned(), "address"),
                ("Year Built".to_owned(), NOTE_LINE),
                ("Roof Age".to_owned(), NOTE_LINE),
                ("Mobile 1".to_owned(), "primary_phone"),
            ]
        );
        // Not a business field.
        let business = ImportKind::Businesses {
            relationship_type: crate::business::RelationshipType::Prospect,
            skip_duplicates: true,
            auto_categorize: true,
        };
        let refused = ColumnMap::chosen(&business, &headers[..2], &choices[..2]).unwrap_err();
        assert!(refused.contains("\"note_line\" is not a"), "{refused}");
    }

    #[test]
    fn a_column_override_keeps_the_free_slot_columns_as_read() {
        let headers: Vec<String> = [
            "primary_phone",
            "phone_2",
            "phone_3",
            "phone_4",
            "phone_5",
            "Phone 1",
            "Phone 2",
            "Prop Addr",
        ]
        .map(String::from)
        .into();
        let overrides = [("Prop Addr".to_owned(), "address".to_owned())];
        let choices = choose_by_header(&ImportKind::Leads, &headers, &overrides).unwrap();
        let map = ColumnMap::chosen(&ImportKind::Leads, &headers, &choices).unwrap();
        assert_eq!(map.spares, [(5, &PHONE_SLOTS[..]), (6, &PHONE_SLOTS[..])]);
        let overrides = [("Prop Addr".to_owned(), SPARE_PHONE.to_owned())];
        let choices = choose_by_header(&ImportKind::Leads, &headers, &overrides).unwrap();
        let map = ColumnMap::chosen(&ImportKind::Leads, &headers, &choices).unwrap();
        assert_eq!(
            map.spares.len(),
            3,
            "an override of a shared choice takes no column off it"
        );
    }

    #[test]
    fn headers_as_people_write_them() {
        assert_eq!(
            map(&[
                "\u{feff}First Name",
                "Last_Name",
                "E-mail",
                "Zip",
                "ZIP Code",
                "Street Address",
                "Parcel ID",
                "Permit #",
                "Issued Date",
                "Owner First Name",
                "APN"
            ]),
            [
                Some("first_name"),
                Some("last_name"),
                Some("email_1"),
                Some("zip_code"),
                None,
                Some("address"),
                Some("parcel_number"),
                Some("project_number"),
                Some("permit_date"),
                None,
                None,
            ]
        );
    }

    #[test]
    fn a_permit_portals_export_is_read_without_asking() {
        // Austin's "Issued Construction Permits" (open data), its columns as exported; the
        // contractor's and the applicant's phones are no owner's and stay asked about.
        let headers = [
            "Permit Num",
            "Permit Type Desc",
            "Work Class",
            "Description",
            "Issue Date",
            "Status Current",
            "Original Address 1",
            "Original City",
            "Original State",
            "Original Zip",
            "Link",
            "Contractor Phone",
            "Applicant Phone",
        ];
        assert_eq!(
            map(&headers),
            [
                Some("project_number"),
                Some("work_type"),
                None,
                Some("project_description"),
                Some("permit_date"),
                Some("permit_status"),
                Some("address"),
                Some("city"),
                Some("state"),
                Some("zip_code"),
                Some("related_url"),
                None,
                None,
            ]
        );
        let headers: Vec<String> = headers.map(String::from).into();
        let read = ColumnMap::read(&ImportKind::Leads, &headers);
        let asked: Vec<&str> = (0..headers.len())
            .filter(|i| read.asks_about(*i))
            .map(|i| headers[i].as_str())
            .collect();
        assert_eq!(asked, ["Contractor Phone", "Applicant Phone"]);
    }

    #[test]
    fn more_phone_and_email_columns_fill_the_next_slots() {
        assert_eq!(
            map(&["Phone", "Cell", "Phone Number", "Email Address", "email"]),
            [
                Some("primary_phone"),
                Some("phone_2"),
                Some("phone_3"),
                Some("email_1"),
                Some("email_2"),
            ]
        );
    }

    #[test]
    fn a_phone_columns_dnc_flag_is_known_and_paired_with_it() {
        let headers: Vec<String> = [
            "Address",
            "Phone 1",
            "Phone 1 DNC",
            "Mobile 2",
            "DNC Mobile 2",
            "Landline_3_Do_Not_Call",
            "Email 1 DNC",
            "DNC",
        ]
        .map(String::from)
        .to_vec();
        let columns = ColumnMap::new(&ImportKind::Leads, &headers).unwrap();
        assert_eq!(columns.number_flags, [(2, 1), (4, 3)]);
        // A flag of a phone the file has not, or of an e-mail, is still a question; `DNC` alone
        // is the lead's mark.
        assert!(columns.unsure());
        assert_eq!(columns.fields[7], Some(DO_NOT_CALL));
        let mapping = columns.mapping();
        assert!(mapping.contains(&("Phone 1 DNC".to_owned(), NUMBER_DNC)));
        assert_eq!(columns.ignored(), ["Landline_3_Do_Not_Call", "Email 1 DNC"]);
        let asked: Vec<bool> = (0..headers.len()).map(|i| columns.asks_about(i)).collect();
        assert_eq!(
            asked,
            [false, false, false, false, false, true, true, false]
        );
        assert_eq!(columns.flagged_phone(2), Some("Phone 1"));
        assert_eq!(columns.flagged_phone(1), None);
        let sure: Vec<String> = headers[..5].to_vec();
        assert!(!ColumnMap::new(&ImportKind::Leads, &sure).unwrap().unsure());
    }

    #[test]
    fn numbered_phone_and_email_headers_fill_the_slots_in_the_file_order() {
        // A skip-tracing service's columns: five mobiles, three landlines, e-mails numbered from 1.
        let mut headers = vec!["Property Address".to_owned(), "Address 2".to_owned()];
        headers.extend((1..=5).map(|i| format!("Mobile {i}")));
        headers.extend((1..=3).map(|i| format!("Landline {i}")));
        headers
            .extend(["Email 1", "Email 2", "Email 3", "Email 4", "Phone 1 Type"].map(String::from));
        let columns = ColumnMap::new(&ImportKind::Leads, &headers).unwrap();
        // `Address 2` is the address's second line, the unit: no numbered address.
        assert_eq!(
            columns.fields,
            [
                Some("address"),
                Some(UNIT),
                Some("primary_phone"),
                Some("phone_2"),
                Some("phone_3"),
                Some("phone_4"),
                Some("phone_5"),
                None,
                None,
                None,
                Some("email_1"),
                Some("email_2"),
                Some("email_3"),
                None,
                Some("primary_phone_type"),
            ]
        );
        assert_eq!(
            columns.spares,
            [
                (7, &PHONE_SLOTS[..]),
                (8, &PHONE_SLOTS[..]),
                (9, &PHONE_SLOTS[..]),
                (13, &EMAIL_SLOTS[..])
            ]
        );
        // Every column known: an upload does not ask.
        assert!(!columns.unsure());
        assert!(columns.ignored().is_empty());
        // A number after any other field names nothing; a bare number names nothing.
        assert_eq!(map(&["Zip 2", "City", "2"]), [None, Some("city"), None]);
    }

    #[test]
    fn phone_and_email_columns_past_the_slots_are_spares() {
        let headers: Vec<String> = [
            "address",
            "primary_phone",
            "phone_2",
            "phone_3",
            "phone_4",
            "phone_5",
            "email_1",
            "email_2",
            "email_3",
            "Phone 1",
            "Email",
            "Mobile",
        ]
        .map(str::to_owned)
        .to_vec();
        let map = ColumnMap::new(&ImportKind::Leads, &headers).unwrap();
        assert_eq!(&map.fields[9..], [None, None, None]);
        assert_eq!(
            map.spares,
            [
                (9, &PHONE_SLOTS[..]),
                (10, &EMAIL_SLOTS[..]),
                (11, &PHONE_SLOTS[..])
            ]
        );
        // The summary says what they feed; they are not ignored.
        assert!(map.mapping().contains(&("Email".to_owned(), SPARE_EMAIL)));
        assert!(map.mapping().contains(&("Mobile".to_owned(), SPARE_PHONE)));
        assert!(map.ignored().is_empty(), "{:?}", map.ignored());
        // With a slot free, a column takes it as before.
        let map = ColumnMap::new(&ImportKind::Leads, &headers[..10]).unwrap();
        assert_eq!(map.spares, [(9, &PHONE_SLOTS[..])]);
        assert_eq!(map.feeds(9), Some(SPARE_PHONE));
        assert_eq!(map.feeds(1), Some("primary_phone"));

        // A person may choose a free slot for any number of columns; a business has none.
        let headers: Vec<String> = ["Addr", "Phone A", "Phone B", "Mail"]
            .map(str::to_owned)
            .to_vec();
        let choices =
            ["address", SPARE_PHONE, SPARE_PHONE, SPARE_EMAIL].map(|c| Some(c.to_owned()));
        let map = ColumnMap::chosen(&ImportKind::Leads, &headers, &choices).unwrap();
        assert_eq!(map.fields, [Some("address"), None, None, None]);
        assert_eq!(
            map.spares,
            [
                (1, &PHONE_SLOTS[..]),
                (2, &PHONE_SLOTS[..]),
                (3, &EMAIL_SLOTS[..])
            ]
        );
        let business = ImportKind::Businesses {
            relationship_type: crate::business::RelationshipType::Prospect,
            skip_duplicates: true,
            auto_categorize: true,
        };
        let refused = ColumnMap::chosen(&business, &headers[..2], &choices[..2]).unwrap_err();
        assert!(
            refused.contains("\"next_free_phone\" is not a"),
            "{refused}"
        );
    }

    #[test]
    fn a_whole_name_column_counts_only_without_first_and_last_name_columns() {
        assert_eq!(
            map(&["Owner Name", "Address"]),
            [Some(FULL_NAME), Some("address")]
        );
        assert_eq!(
            map(&["Name", "First Name", "Address"]),
            [None, Some("first_name"), Some("address")]
        );
        assert_eq!(map(&["Last", "Full Name"]), [Some("last_name"), None]);
    }

    #[test]
    fn report_columns_and_unknown_ones_are_ignored() {
        let headers: Vec<String> = ["row", "reason", "code", "address", "Year Built"]
            .iter()
            .map(|h| (*h).to_owned())
            .collect();
        let m = ColumnMap::new(&ImportKind::Leads, &headers).unwrap();
        assert_eq!(m.fields, [None, None, None, Some("address"), None]);
        assert_eq!(m.ignored(), ["row", "reason", "code", "Year Built"]);
        assert!(m.is_report_column(1) && !m.is_report_column(4));
        assert_eq!(m.mapping(), [("address".to_owned(), "address")]);
    }

    #[test]
    fn a_header_naming_nothing_is_refused() {
        let headers = vec!["foo".to_owned(), "bar".to_owned()];
        assert!(ColumnMap::new(&ImportKind::Leads, &headers).is_err());
    }

    fn owned(items: &[&str]) -> Vec<String> {
        items.iter().map(|h| (*h).to_owned()).collect()
    }

    #[test]
    fn unknown_and_guessed_headers_make_a_mapping_unsure() {
        let unsure =
            |headers: &[&str]| ColumnMap::read(&ImportKind::Leads, &owned(headers)).unsure();
        assert!(!unsure(&[
            "Address",
            "Zip",
            "",
            "reason",
            "Name",
            "First Name"
        ]));
        assert!(unsure(&["Address", "Year Built"]));
        assert!(unsure(&["Address", "Status"]));
        assert!(unsure(&["Prop Addr", "Own Nm"]));
        assert!(!unsure(&["Address", "Permit Status"]));
        // The lead export's own columns, imported again: known, and its `status` after its
        // `permit_status` is the lead's.
        let exported = ["id", "address", "permit_status", "status", "assignee_email"];
        assert!(!unsure(&exported));
        let fields = ColumnMap::read(&ImportKind::Leads, &owned(&exported)).fields;
        assert_eq!(
            fields,
            [
                None,
                Some("address"),
                Some("permit_status"),
                Some(LEAD_STATUS),
                Some(ASSIGNEE)
            ]
        );
    }

    #[test]
    fn a_chosen_mapping_is_used_as_chosen() {
        let headers = owned(&["Prop Addr", "Status", "row", "Own Nm"]);
        let choices =
            [Some("address"), Some(""), None, Some(FULL_NAME)].map(|c| c.map(str::to_owned));
        let m = ColumnMap::chosen(&ImportKind::Leads, &headers, &choices).unwrap();
        assert_eq!(m.fields, [Some("address"), None, None, Some(FULL_NAME)]);
        assert!(m.is_report_column(2) && !m.unsure());
        assert_eq!(m.ignored(), ["Status", "row"]);
    }

    #[test]
    fn a_chosen_mapping_that_cannot_be_read_is_refused_saying_why() {
        let headers = owned(&["A", "B"]);
        let refused = |choices: [Option<&str>; 2]| {
            let choices = choices.map(|c| c.map(str::to_owned));
            ColumnMap::chosen(&ImportKind::Leads, &headers, &choices).unwrap_err()
        };
        assert_eq!(
            refused([Some("city"), Some("city")]),
            "\"A\" and \"B\" both feed city: choose another field for one of them"
        );
        assert_eq!(
            refused([Some("rating"), None]),
            "\"rating\" is not a leads field"
        );
        assert!(refused([Some(FULL_NAME), Some("last_name")]).starts_with("a whole name"));
        assert!(refused([None, Some(" ")]).starts_with("no column feeds a field"));
        let short = ColumnMap::chosen(&ImportKind::Leads, &headers, &[None]).unwrap_err();
        assert_eq!(short, "2 columns, but a choice for 1");
    }

    #[test]
    fn overrides_by_header_take_their_fields_from_the_named_columns() {
        let headers = owned(&["Address", "Prop Addr", "Status", "Zip"]);
        let overrides =
            [("prop addr", "address"), ("STATUS", "")].map(|(h, f)| (h.to_owned(), f.to_owned()));
        let choices = choose_by_header(&ImportKind::Leads, &headers, &overrides).unwrap();
        let expected = [None, Some("address"), None, Some("zip_code")];
        assert_eq!(choices, expected.map(|c| c.map(str::to_owned)));
        let missing = [("Owner".to_owned(), "full_name".to_owned())];
        let refused = choose_by_header(&ImportKind::Leads, &headers, &missing).unwrap_err();
        assert_eq!(refused, "no column \"Owner\" in the file's header");
    }

    #[test]
    fn every_alias_is_a_header_key_and_names_one_field() {
        for table in [LEAD_ALIASES, BUSINESS_ALIASES] {
            let mut seen = std::collections::BTreeSet::new();
            for (field, forms) in table {
                for form in forms.iter().copied().chain([*field]) {
                    let key = header_key(form);
                    assert!(seen.insert(key.clone()), "{form} twice");
                    assert!(!REPORT_COLUMNS.contains(&key.as_str()), "{form}");
                }
            }
        }
    }
}
