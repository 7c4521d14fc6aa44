//! SQLite's lead search (docs/search.md): one FTS5 word index, `lead_search`, carries `q`, the
//! text filters, the ZIP, the team, whether a lead is live, archived or merged away, and what it
//! carries (a phone, an e-mail, its tags), each kind in a column of its own, so a lead's text never
//! stands for a team or another filter's value. A filter made of those is one MATCH, counted and paged in the
//! index alone; PostgreSQL keeps its B-tree and trigram indexes.
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Text};

use leadhub_domain::lead::record::LeadFilter;
use leadhub_domain::lead::search::{source_slug, SearchText};
use leadhub_domain::lead::work::ArchiveFilter;

use crate::lead::lead_search::LeadCondition;
use crate::DbConnection;

type Db = <DbConnection as diesel::Connection>::Backend;

diesel::table! {
    /// The contentless FTS5 table: only its rowid (the lead's id) can be read back.
    lead_search (rowid) {
        rowid -> BigInt,
    }
}

/// A filter as a MATCH expression of the word index.
pub(crate) struct WordMatch {
    pub expr: String,
    /// Every condition of the filter is in `expr`: its count and pages need no lead row.
    pub complete: bool,
    /// The ZIP filter is in `expr` exactly (a ZIP5 or a shorter run of digits).
    pub zip_in_index: bool,
}

/// The filter's conditions the index holds, or None when it has none besides visibility (then
/// the B-tree indexes in creation order answer better than a MATCH of every lead), or only what
/// a lead carries (phone, e-mail, tags) beside conditions it does not hold.
pub(crate) fn word_match(f: &LeadFilter) -> Option<WordMatch> {
    let mut terms = Vec::new();
    let mut token = |column: &str, tag: &str, value: &str| {
        // One token per value as the migration writes it: spaces as `_`; other punctuation
        // splits the value into a phrase, the same way on both sides, which must start the
        // column (`^`): a city written `Austin,f4Dallas` is not Dallas.
        let value = quoted(&format!("{tag}{}", value.trim().replace(' ', "_")));
        terms.push(format!("{column} : ^ {value}"));
    };
    if let Some(v) = &f.state {
        token("state", "f0", v);
    }
    if let Some(v) = &f.source {
        token("source", "f1", &source_slug(v).unwrap_or_default());
    }
    if let Some(v) = &f.permit_status {
        token("permit_status", "f2", v);
    }
    if let Some(v) = &f.property_type {
        token("property_type", "f3", v);
    }
    if let Some(v) = &f.city {
        token("city", "f4", v);
    }
    if let Some(v) = &f.county {
        token("county", "f5", v);
    }
    if let Some(v) = &f.work_type {
        token("work_type", "f6", v);
    }
    let zip = f.zip_code.as_deref().map(zip_term);
    let zip_in_index = matches!(zip, Some((_, true)));
    if let Some((Some(term), _)) = &zip {
        terms.push(format!("zip : ^ {term}"));
    }
    if let Some(q) = &f.q {
        terms.push(format!("words : ({})", q_term(q)));
    }
    // What a lead carries (migration 49): a phone or none, an e-mail or none, its tags. Alone, or
    // beside what else the index holds, they are counted in it; beside only conditions it does
    // not hold (a person's call list), those conditions' B-tree indexes find fewer candidates.
    let carried = |token: &str| format!("visibility : {token}");
    let mut marks: Vec<String> = [
        f.has_phone
            .map(|has| if has { "hasphone" } else { "nophone" }),
        f.has_email
            .map(|has| if has { "hasemail" } else { "noemail" }),
    ]
    .into_iter()
    .flatten()
    .map(carried)
    .chain(f.tags.iter().map(|tag| carried(&tag_token(tag))))
    .collect();
    let not_carried: Vec<String> = f
        .without_tags
        .iter()
        .map(|tag| carried(&tag_token(tag)))
        .collect();
    let no_marks = marks.is_empty() && not_carried.is_empty();
    if terms.is_empty() && (no_marks || beside_the_index(f)) {
        return None;
    }
    terms.append(&mut marks);
    // Team tokens are quoted like every value: a `team_id` of the request may be negative, and
    // `t-5` unquoted would be FTS5's column exclusion (`- 5 : ...`), an error instead of no lead.
    let team = |t: i64| quoted(&format!("t{t}"));
    if let Some(teams) = &f.visible_teams {
        let any: Vec<String> = std::iter::once(0)
            .chain(teams.iter().copied())
            .map(team)
            .collect();
        terms.push(format!("visibility : ({})", any.join(" OR ")));
    }
    if let Some(t) = f.team_id {
        terms.push(format!("visibility : {}", team(t)));
    }
    let live = match f.archive {
        ArchiveFilter::Active => "vlive",
        ArchiveFilter::Archived => "varchived",
    };
    terms.push(format!("visibility : {live}"));
    let mut expr = terms.join(" AND ");
    if !not_carried.is_empty() {
        expr = format!("({expr}) NOT ({})", not_carried.join(" OR "));
    }
    let complete = (zip.is_none() || zip_in_index) && !beside_the_index(f);
    Some(WordMatch {
        expr,
        complete,
        zip_in_index,
    })
}

/// Whether the filter has a condition the word index does not hold. The fields are named one by
/// one, with no `..`, so a field added to `LeadFilter` does not compile here until someone decides
/// whether the index holds it (else its count would be the index's, without the condition).
fn beside_the_index(f: &LeadFilter) -> bool {
    let LeadFilter {
        // Held: visibility, the text filters, `q`, whether a lead has a phone or an e-mail and
        // its tags are tokens of the index.
        visible_teams: _,
        team_id: _,
        state: _,
        city: _,
        zip_code: _,
        property_type: _,
        county: _,
        permit_status: _,
        work_type: _,
        source: _,
        q: _,
        archive: _,
        sort: _,
        has_phone: _,
        has_email: _,
        tags: _,
        without_tags: _,
        enrichment_status,
        created_after,
        created_before,
        status,
        assignee,
        follow_up_by,
        contacted,
        last_contact_before,
        contacted_by,
        contacted_since,
        do_not_call,
        upload,
        near,
    } = f;
    enrichment_status.is_some()
        || created_after.is_some()
        || created_before.is_some()
        || status.is_some()
        || assignee.is_some()
        || follow_up_by.is_some()
        || contacted.is_some()
        || last_contact_before.is_some()
        || contacted_by.is_some()
        || contacted_since.is_some()
        || do_not_call.is_some()
        || upload.is_some()
        || near.is_some()
}

/// The leads the expression matches.
pub(crate) fn in_word_index(expr: String) -> LeadCondition {
    Box::new(
        sql::<Bool>("leads.id IN (SELECT rowid FROM lead_search WHERE lead_search MATCH ")
            .bind::<Text, _>(expr)
            .sql(")"),
    )
}

/// The index's rows matching the expression.
pub(crate) fn matching(expr: String) -> lead_search::BoxedQuery<'static, Db> {
    lead_search::table
        .filter(sql::<Bool>("lead_search MATCH ").bind::<Text, _>(expr))
        .into_boxed()
}

/// The index's rowids (the leads' ids) in order, descending or not.
pub(crate) fn in_id_order(
    rows: lead_search::BoxedQuery<'static, Db>,
    descending: bool,
) -> lead_search::BoxedQuery<'static, Db, diesel::sql_types::BigInt> {
    let rows = rows.select(lead_search::rowid);
    if descending {
        rows.order(lead_search::rowid.desc())
    } else {
        rows.order(lead_search::rowid.asc())
    }
}

/// A tag's token: `g` and its UTF-8 in hex, one token whatever its characters (SQLite's `hex()`
/// in the migration writes it in upper case; the index folds case).
fn tag_token(tag: &str) -> String {
    format!("g{}", hex::encode(tag.as_bytes()))
}

/// `zip_code` in the index: a ZIP5 or ZIP+4 by its ZIP5 token (ZIP+4 is then checked on the row
/// too), a shorter run of digits as a prefix of the ZIP5; anything else only on the row. The
/// flag says whether the term is the whole condition.
fn zip_term(given: &str) -> (Option<String>, bool) {
    let given = given.trim();
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if all_digits(given) && given.len() < 5 {
        return (Some(format!("{} *", quoted(&format!("z{given}")))), true);
    }
    match given.get(..5).filter(|zip5| all_digits(zip5)) {
        Some(zip5) => (Some(quoted(&format!("z{zip5}"))), given.len() == 5),
        None => (None, false),
    }
}

/// `q`: its words as a phrase whose last word may be the start of one ("lamar bl", "ann.lee@ex"),
/// or, for a phone written any way, its digits as the start of a phone's number, of its last 10
/// or of its last 7 digits (`867-5309`, `(512) 867-5309`).
fn q_term(q: &SearchText) -> String {
    let words = format!("{} *", quoted(&q.text));
    match &q.phone_digits {
        Some(digits) => format!("{words} OR {} *", quoted(digits)),
        None => words,
    }
}

/// An FTS5 string: inside it every character is literal but `"`, written twice.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use leadhub_domain::lead::work::StatusFilter;

    #[test]
    fn zips() {
        assert_eq!(zip_term("78701"), (Some("\"z78701\"".into()), true));
        assert_eq!(zip_term(" 787 "), (Some("\"z787\" *".into()), true));
        assert_eq!(zip_term("78701-1234"), (Some("\"z78701\"".into()), false));
        assert_eq!(zip_term("7870A"), (None, false));
    }

    #[test]
    fn a_filter_of_values_the_index_holds_is_complete() {
        let f = LeadFilter {
            state: Some("tx".into()),
            city: Some(" San Antonio ".into()),
            visible_teams: Some(vec![3]),
            ..LeadFilter::default()
        };
        let w = word_match(&f).expect("a match");
        assert_eq!(
            w.expr,
            "state : ^ \"f0tx\" AND city : ^ \"f4San_Antonio\" AND visibility : (\"t0\" OR \"t3\") \
             AND visibility : vlive"
        );
        assert!(w.complete);
        let visibility_only = LeadFilter {
            visible_teams: Some(vec![3]),
            ..LeadFilter::default()
        };
        assert!(word_match(&visibility_only).is_none());
    }

    #[test]
    fn what_a_lead_carries_is_asked_of_the_index_unless_only_row_conditions_stand_beside_it() {
        let no_phone = LeadFilter {
            has_phone: Some(false),
            has_email: Some(true),
            tags: vec!["storm 2026".into()],
            without_tags: vec!["mailer-12".into(), "é".into()],
            visible_teams: Some(vec![3]),
            ..LeadFilter::default()
        };
        let w = word_match(&no_phone).expect("a match");
        assert_eq!(
            w.expr,
            "(visibility : nophone AND visibility : hasemail AND visibility : g73746f726d2032303236 \
             AND visibility : (\"t0\" OR \"t3\") AND visibility : vlive) \
             NOT (visibility : g6d61696c65722d3132 OR visibility : gc3a9)"
        );
        assert!(w.complete);
        let without_a_tag = LeadFilter {
            without_tags: vec!["hot".into()],
            visible_teams: Some(vec![3]),
            ..LeadFilter::default()
        };
        let w = word_match(&without_a_tag).expect("a match");
        assert!(
            w.expr.ends_with(" NOT (visibility : g686f74)"),
            "{}",
            w.expr
        );
        let call_list = LeadFilter {
            status: Some(StatusFilter::Open),
            ..no_phone.clone()
        };
        assert!(word_match(&call_list).is_none());
        let in_austin = LeadFilter {
            city: Some("Austin".into()),
            ..call_list
        };
        let w = word_match(&in_austin).expect("a match");
        assert!(w.expr.contains("visibility : nophone"), "{}", w.expr);
        assert!(!w.complete);
    }
}
